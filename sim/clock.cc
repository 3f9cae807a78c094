#include "sim/clock.h"

#include <cassert>

namespace leasesim::sim {
namespace {

// 128-bit intermediates keep scaled time exact without overflow.
__extension__ using Int128 = __int128;
__extension__ using UInt128 = unsigned __int128;

constexpr std::int64_t kMillion = 1'000'000;

}  // namespace

NodeClock::NodeClock(Nanos monotonic_start, Nanos wall_start, std::int64_t drift_ppm)
    : wall_start_(wall_start) {
  assert(drift_ppm > -kMillion);
  assert(drift_ppm < kMillion);
  segments_.push_back(Segment{0, monotonic_start, drift_ppm, false});
}

Nanos NodeClock::LocalIn(const Segment& segment, Nanos true_now) {
  assert(true_now >= segment.true_start);
  if (segment.frozen) return segment.local_start;
  if (segment.drift_ppm == 0) return segment.local_start + (true_now - segment.true_start);
  const Int128 elapsed = true_now - segment.true_start;
  const Int128 scaled = elapsed * (kMillion + segment.drift_ppm) / kMillion;
  return segment.local_start + static_cast<Nanos>(scaled);
}

Nanos NodeClock::Monotonic(Nanos true_now) const {
  // Queries are almost always about the present: search from the back.
  for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
    if (it->true_start <= true_now) return LocalIn(*it, true_now);
  }
  assert(false && "true_now precedes the clock's first segment");
  return segments_.front().local_start;
}

Nanos NodeClock::Wall(Nanos true_now) const { return wall_start_ + true_now + wall_offset_; }

void NodeClock::Begin(Nanos true_now, std::int64_t drift_ppm, bool frozen) {
  assert(true_now >= segments_.back().true_start);
  assert(drift_ppm > -kMillion);
  assert(drift_ppm < kMillion);
  assert(segments_.size() < kSegmentsMax);
  const Nanos local = LocalIn(segments_.back(), true_now);
  if (segments_.back().true_start == true_now) {
    segments_.back() = Segment{true_now, local, drift_ppm, frozen};
  } else {
    segments_.push_back(Segment{true_now, local, drift_ppm, frozen});
  }
}

void NodeClock::SetDriftPpm(Nanos true_now, std::int64_t drift_ppm) {
  Begin(true_now, drift_ppm, segments_.back().frozen);
}

void NodeClock::Freeze(Nanos true_now) { Begin(true_now, segments_.back().drift_ppm, true); }

void NodeClock::Unfreeze(Nanos true_now) { Begin(true_now, segments_.back().drift_ppm, false); }

Nanos NodeClock::TrueTimeAtMonotonic(Nanos local) const {
  if (local <= segments_.front().local_start) return segments_.front().true_start;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const Segment& segment = segments_[i];
    const bool last = i + 1 == segments_.size();
    if (!last && segments_[i + 1].local_start < local) continue;
    if (segment.local_start >= local) return segment.true_start;
    if (segment.frozen) {
      if (last) return kNeverNanos;
      continue;
    }
    const Int128 needed = local - segment.local_start;
    const Int128 rate = kMillion + segment.drift_ppm;
    Nanos candidate = segment.true_start + static_cast<Nanos>((needed * kMillion + rate - 1) / rate);
    // Integer rounding can leave the estimate a nanosecond or two short.
    for (int step = 0; step < 4 && LocalIn(segment, candidate) < local; ++step) ++candidate;
    assert(LocalIn(segment, candidate) >= local);
    return candidate;
  }
  return kNeverNanos;
}

}  // namespace leasesim::sim
