#pragma once
// The equality of short names, without a call (see SameText).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace leasesim::base {

// Whether two strings are equal. The names compared on every operation or
// step (keys, holders, process identities) are short: up to 16 bytes are
// compared as two overlapping words each, in registers, where
// std::string's == calls memcmp (some twenty instructions and a call).
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

}  // namespace leasesim::base
