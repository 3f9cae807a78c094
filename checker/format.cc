#include "checker/format.h"

#include <cstdio>

#include "base/units.h"

namespace leasesim::checker {

std::string FormatTime(TimeNs ns) {
  if (ns == kNeverNs) return "never";
  const bool negative = ns < 0;
  const std::int64_t ms = (negative ? -ns : ns) / base::kNanosPerMilli;
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%s%lld.%03llds", negative ? "-" : "",
                static_cast<long long>(ms / 1000), static_cast<long long>(ms % 1000));
  return buffer;
}

std::string FormatDuration(TimeNs ns) {
  const bool negative = ns < 0;
  const std::int64_t us = (negative ? -ns : ns) / base::kNanosPerMicro;
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%s%lld.%03lld ms", negative ? "-" : "", static_cast<long long>(us / 1000),
                static_cast<long long>(us % 1000));
  return buffer;
}

}  // namespace leasesim::checker
