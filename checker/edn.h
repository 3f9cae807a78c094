#pragma once
// A minimal EDN reader: enough of the format for Jepsen history lines
// (maps, vectors, lists, keywords, strings, integers, nil, booleans,
// symbols). It reports errors with the column; it never throws.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace leasesim::checker {

// One EDN value. Maps keep their entries in file order.
struct EdnValue {
  enum class Type { kNil, kBool, kInt, kFloat, kString, kKeyword, kSymbol, kVector, kMap };
  Type type = Type::kNil;
  std::int64_t integer = 0;
  bool boolean = false;
  std::string text;                                   // string contents, keyword/symbol name (no ':')
  std::vector<EdnValue> items;                        // vector/list
  std::vector<std::pair<EdnValue, EdnValue>> entries;  // map

  // For maps: the value under keyword `name`, or nullptr.
  const EdnValue* Get(std::string_view name) const;
  // Renders the value back as EDN (for messages).
  std::string ToString() const;
};

// Parses exactly one value filling `text` (whitespace and commas around it
// allowed). On failure returns false with a message naming the column.
bool ParseEdn(std::string_view text, EdnValue& out, std::string& error);

}  // namespace leasesim::checker
