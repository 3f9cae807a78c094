#pragma once
// Small string helpers shared by the importers and the checks: line
// splitting, strict integer parsing (no exceptions, no locale), and the
// equality of short names.

#include <charconv>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace leasesim::checker {

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

// Whether two strings are equal. The names a history repeats on every
// operation (keys, holders, processes) are short, and the checks compare
// them once an operation: up to 16 bytes are compared as two overlapping
// words each, in registers, where memcmp would be a call of some twenty
// instructions.
inline bool SameText(std::string_view a, std::string_view b) {
  const std::size_t size = a.size();
  if (size != b.size()) return false;
  const auto same_words = [&]<typename Word>(Word) {
    Word head_a, head_b, tail_a, tail_b;
    std::memcpy(&head_a, a.data(), sizeof(Word));
    std::memcpy(&head_b, b.data(), sizeof(Word));
    std::memcpy(&tail_a, a.data() + size - sizeof(Word), sizeof(Word));
    std::memcpy(&tail_b, b.data() + size - sizeof(Word), sizeof(Word));
    return ((head_a ^ head_b) | (tail_a ^ tail_b)) == 0;
  };
  if (size > 16) return std::memcmp(a.data(), b.data(), size) == 0;
  if (size >= 8) return same_words(std::uint64_t{});
  if (size >= 4) return same_words(std::uint32_t{});
  for (std::size_t i = 0; i < size; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace leasesim::checker
