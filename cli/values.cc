#include "cli/values.h"

#include <absl/time/time.h>

namespace leasesim::cli {
namespace {

constexpr std::int64_t kBareSecondsMax = 1'000'000;
constexpr std::int64_t kDurationHoursMax = 1'000'000;

}  // namespace

std::int64_t ParseDurationMs(const std::string& text) {
  // A bare whole number is seconds, as before absl's syntax was taken on
  // (absl::ParseDuration wants a unit on every number but "0").
  if (std::int64_t seconds = 0; ParseNumber(text, seconds)) {
    return seconds >= 1 && seconds <= kBareSecondsMax ? seconds * 1000 : -1;
  }
  absl::Duration duration;
  if (!absl::ParseDuration(text, &duration)) return -1;
  if (duration < absl::Milliseconds(1) || duration > absl::Hours(kDurationHoursMax)) return -1;  // "inf" too
  return absl::ToInt64Milliseconds(duration);
}

}  // namespace leasesim::cli
