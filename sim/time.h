#pragma once
// Integer time. True time is the one global virtual clock of a simulation;
// local times are what a node's own clocks read. Both are nanoseconds.

#include <cstdint>
#include <limits>

namespace leasesim::sim {

using Nanos = std::int64_t;

inline constexpr Nanos kNanosPerMicro = 1'000;
inline constexpr Nanos kNanosPerMilli = 1'000'000;
inline constexpr Nanos kNanosPerSecond = 1'000'000'000;
inline constexpr Nanos kNeverNanos = std::numeric_limits<Nanos>::max();

constexpr Nanos Millis(std::int64_t ms) { return ms * kNanosPerMilli; }
constexpr Nanos Seconds(std::int64_t s) { return s * kNanosPerSecond; }

}  // namespace leasesim::sim
