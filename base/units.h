#pragma once
// Integer time, shared by every layer: nanoseconds in a signed 64-bit
// integer (±292 years), never floating point, so a run computes the same
// times on every machine. sim/ and core/ alias these.

#include <cstdint>
#include <limits>

namespace leasesim::base {

using Nanos = std::int64_t;

inline constexpr Nanos kNanosPerMicro = 1'000;
inline constexpr Nanos kNanosPerMilli = 1'000'000;
inline constexpr Nanos kNanosPerSecond = 1'000'000'000;
// Parts per million in one: the denominator of every rate, drift and
// probability said in ppm.
inline constexpr std::uint32_t kPpmOne = 1'000'000;
// "Never" / "not yet": later than any time a run reaches.
inline constexpr Nanos kNeverNanos = std::numeric_limits<Nanos>::max();

constexpr Nanos Micros(std::int64_t us) { return us * kNanosPerMicro; }
constexpr Nanos Millis(std::int64_t ms) { return ms * kNanosPerMilli; }
constexpr Nanos Seconds(std::int64_t s) { return s * kNanosPerSecond; }

// The longest true time `span` of a clock's own time can take when the
// clock may run slow by up to `drift_ppm` (clamped below one): ceil(span /
// (1 - drift)). Not span * (1 + drift), which is short by span * drift^2 /
// (1 - drift): 0.1% of the span at a 10% bound. Split so no product
// overflows for any span.
constexpr Nanos TrueSpanAtSlowest(Nanos span, std::int64_t drift_ppm) {
  const std::int64_t bound = drift_ppm < 0 ? 0 : (drift_ppm >= kPpmOne ? kPpmOne - 1 : drift_ppm);
  const std::int64_t slow = kPpmOne - bound;
  return span / slow * kPpmOne + (span % slow * kPpmOne + slow - 1) / slow;
}

// The longest a clock that may run fast by up to `drift_ppm` (clamped to
// [0, one]) reads across `span` of true time: span * (1 + drift), rounded
// up; split so no product overflows.
constexpr Nanos LocalSpanAtFastest(Nanos span, std::int64_t drift_ppm) {
  const std::int64_t bound = drift_ppm < 0 ? 0 : (drift_ppm > kPpmOne ? kPpmOne : drift_ppm);
  return span + span / kPpmOne * bound + (span % kPpmOne * bound + kPpmOne - 1) / kPpmOne;
}
// A time cut to whole milliseconds (toward zero, as integer division does):
// what scenario files, written in milliseconds, can say exactly.
constexpr Nanos WholeMillis(Nanos ns) { return ns / kNanosPerMilli * kNanosPerMilli; }

}  // namespace leasesim::base
