#include "live/live_variant.h"

#include <cstddef>

namespace leasesim::live {

std::string ParseVariantList(const std::string& list, LedgerVariant& variant) {
  constexpr const char* kKnown = "(known: correct, no-fencing, no-idempotency; combine with ',')";
  variant = LedgerVariant{};
  // Each round consumes one name and its comma, so at most size+1 rounds.
  for (std::size_t begin = 0; begin <= list.size();) {
    const std::size_t comma = list.find(',', begin);
    const std::string name = list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (name == "no-fencing") {
      variant.check_fence = false;
    } else if (name == "no-idempotency") {
      variant.check_idempotency = false;
    } else if (name.empty()) {
      return "empty variant name in \"" + list + "\" " + kKnown;
    } else if (name != "correct") {
      return "unknown variant \"" + name + "\" " + kKnown;
    }
    if (comma == std::string::npos) return {};
    begin = comma + 1;
  }
  return "empty variant name at the end of \"" + list + "\" " + kKnown;
}

}  // namespace leasesim::live
