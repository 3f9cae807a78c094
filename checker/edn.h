#pragma once
// An EDN reader covering what Jepsen writes into histories and logs: maps,
// vectors, lists, sets, keywords, strings (with \uXXXX escapes), characters,
// integers (with N), floats and ratios (kept as text), nil, booleans,
// symbols, tagged values (#jepsen.history.Op{...}, #inst "...") and #_
// discards. It reports errors with the position; it never throws, and its
// nesting depth is bounded so hostile input cannot exhaust the stack.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "checker/input_error.h"

namespace leasesim::checker {

struct EdnEntry;

// One EDN value. Maps keep their entries in file order.
struct EdnValue {
  enum class Type { kNil, kBool, kInt, kFloat, kString, kChar, kKeyword, kSymbol, kVector, kSet, kMap };
  Type type = Type::kNil;
  std::int64_t integer = 0;
  bool boolean = false;
  // String contents (UTF-8), character, keyword or symbol name (no ':'),
  // a float's or ratio's spelling.
  std::string text;
  std::string tag;               // "jepsen.history.Op" for #jepsen.history.Op{...}; "" untagged
  std::vector<EdnValue> items;   // vector, list, set
  std::vector<EdnEntry> entries; // map
  std::size_t offset = 0;        // where the value starts in the text read

  // For maps: the value under keyword `name`, or nullptr.
  const EdnValue* Get(std::string_view name) const;
  // Renders the value back as EDN (for messages and as a canonical text).
  std::string ToString() const;
};

struct EdnEntry {
  EdnValue key;
  EdnValue value;
};

// Reads the one value that starts at text[pos], after any whitespace, commas
// and `;` comments, and leaves pos just past it. False with `error` set when
// the text there is not a value: the one bad-input error, its line and
// column (1-based, counted in bytes from text[0]) where reading failed and
// its rule why; no path.
bool ReadEdnValue(std::string_view text, std::size_t& pos, EdnValue& out, InputError& error);

// Moves pos past whitespace, commas and comments; true when the text ends there.
bool SkipEdnSpace(std::string_view text, std::size_t& pos);

// Parses exactly one value filling `text` (whitespace and commas around it
// allowed). On failure returns false with `error` naming the line and column.
bool ParseEdn(std::string_view text, EdnValue& out, InputError& error);

}  // namespace leasesim::checker
