#include "base/hash_text.h"

#include <cassert>
#include <charconv>

namespace leasesim::base {

std::string HashText(std::uint64_t hash) {
  // std::to_chars rather than a format library: base/ is installed for
  // outside projects and depends on nothing but the standard library.
  char digits[16];
  const std::to_chars_result end = std::to_chars(digits, digits + sizeof digits, hash, 16);
  assert(end.ec == std::errc());
  const auto length = static_cast<std::size_t>(end.ptr - digits);
  return std::string(sizeof digits - length, '0') + std::string(digits, length);
}

}  // namespace leasesim::base
