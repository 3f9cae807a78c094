#include "checker/format.h"

#include <absl/strings/str_format.h>

#include "base/units.h"

namespace leasesim::checker {

std::string FormatTime(TimeNs ns) {
  if (ns == kNeverNs) return "never";
  const bool negative = ns < 0;
  const std::int64_t ms = (negative ? -ns : ns) / base::kNanosPerMilli;
  return absl::StrFormat("%s%d.%03ds", negative ? "-" : "", ms / 1000, ms % 1000);
}

std::string FormatDuration(TimeNs ns) {
  const bool negative = ns < 0;
  const std::int64_t us = (negative ? -ns : ns) / base::kNanosPerMicro;
  return absl::StrFormat("%s%d.%03d ms", negative ? "-" : "", us / 1000, us % 1000);
}

}  // namespace leasesim::checker
