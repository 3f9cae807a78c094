#pragma once
// Option values as the commands read them: whole integers and durations
// ("90s", "10m", "2h", "1h30m", "1.5h", "500ms", or a bare number of seconds).

#include <charconv>
#include <cstdint>
#include <string>

namespace leasesim::cli {

// The whole text as a number of type T; false on anything else.
template <typename T>
bool ParseNumber(const std::string& text, T& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// A duration in absl::ParseDuration's syntax — numbers each with a unit
// (ms, s, m, h; decimals allowed): "90s", "10m", "2h", "1h30m", "1.5h" — or a
// bare whole number of seconds (1 to 1,000,000), as milliseconds (truncated).
// -1 if malformed, shorter than 1 ms or longer than 1,000,000 hours.
std::int64_t ParseDurationMs(const std::string& text);

// The rule an option taking a duration states when its value is malformed.
inline constexpr const char* kDurationRule = "must be a duration like 90s, 10m, 2h or 1h30m, or whole seconds";

}  // namespace leasesim::cli
