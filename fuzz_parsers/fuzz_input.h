#pragma once
// What every parser fuzz target shares: the input as text, and a check that
// stays on in every build (a broken invariant must crash the fuzzer, which
// then keeps the input).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace leasesim::fuzz_parsers {

inline std::string_view AsText(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts with `what` when `ok` is false (assert, but never compiled out).
inline void Require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_parsers invariant broken: %s\n", what);
  std::abort();
}

// Lines in `text` (a last line without '\n' counts): the most an error may name.
inline std::int64_t LineCount(std::string_view text) {
  std::int64_t lines = 1;
  for (char c : text) lines += c == '\n';
  return lines;
}

}  // namespace leasesim::fuzz_parsers
