#pragma once
// Small string helpers shared by the importers and the checks: line
// splitting and strict integer parsing (no exceptions, no locale); the
// equality of short names is base::SameText.

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/same_text.h"

namespace leasesim::checker {

using base::SameText;

inline std::string_view TrimView(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// Lines without their terminators; a final line without '\n' counts too.
inline std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) {
      lines.push_back(text);
      break;
    }
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  return lines;
}

// The whole of `text` as a decimal integer (optional leading '-').
inline bool ParseInt64(std::string_view text, std::int64_t& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

// Where an imported operation stands in its file, as its description ends:
// " (line N)", " (line N-M)" once it returned, "" when it was not read from
// a file (line 0).
inline std::string LineSpanText(std::int64_t invoke_line, std::int64_t return_line) {
  if (invoke_line <= 0) return "";
  std::string text = " (line " + std::to_string(invoke_line);
  if (return_line > 0) text += "-" + std::to_string(return_line);
  return text + ")";
}

}  // namespace leasesim::checker
