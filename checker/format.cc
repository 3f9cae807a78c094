#include "checker/format.h"

#include <cstdio>

namespace leasesim::checker {

std::string FormatTime(TimeNs ns) {
  if (ns == kNeverNs) return "never";
  const bool negative = ns < 0;
  const std::int64_t ms = (negative ? -ns : ns) / 1'000'000;
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%s%lld.%03llds", negative ? "-" : "",
                static_cast<long long>(ms / 1000), static_cast<long long>(ms % 1000));
  return buffer;
}

}  // namespace leasesim::checker
