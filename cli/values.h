#pragma once
// Option values as the commands read them: whole integers and durations
// ("90s", "10m", "2h", or a bare number of seconds).

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

// A duration of 1 to 1,000,000 units as milliseconds; -1 if malformed.
std::int64_t ParseDurationMs(const std::string& text);

}  // namespace leasesim::cli
