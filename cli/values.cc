#include "cli/values.h"

namespace leasesim::cli {

std::int64_t ParseDurationMs(const std::string& text) {
  if (text.empty()) return -1;
  std::int64_t unit_ms = 1000;
  std::string digits = text;
  const char last = text.back();
  if (last == 's' || last == 'm' || last == 'h') {
    unit_ms = last == 's' ? 1000 : last == 'm' ? 60'000 : 3'600'000;
    digits.pop_back();
  }
  std::int64_t value = 0;
  if (!ParseNumber(digits, value) || value < 1 || value > 1'000'000) return -1;
  return value * unit_ms;
}

}  // namespace leasesim::cli
