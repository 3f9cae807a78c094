#pragma once
// What a reader reports when its input is not a valid history: where (line
// number, 1-based, and the field) and what is wrong. Readers return it and
// never throw or abort on bad input.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace leasesim::checker {

struct InputError {
  std::int64_t line = 0;  // 1-based; 0 when not about one line
  std::string field;      // the offending field, when there is one
  std::string message;

  // "line 12, field \"value\": expected an integer".
  std::string ToString() const {
    std::string text;
    if (line > 0) text += "line " + std::to_string(line);
    if (!field.empty()) text += (text.empty() ? "" : ", ") + std::string("field \"") + field + "\"";
    if (!text.empty()) text += ": ";
    return text + message;
  }
};

// A reader's output: the records, or the first error found.
template <class T>
struct ReadResult {
  std::vector<T> records;
  std::optional<InputError> error;
  bool ok() const { return !error.has_value(); }
};

}  // namespace leasesim::checker
