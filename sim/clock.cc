#include "sim/clock.h"

#include <cassert>

#include "base/units.h"

namespace leasesim::sim {
namespace {

// 128-bit intermediates keep scaled time exact without overflow.
__extension__ using Int128 = __int128;

// base::kPpmOne, signed for the drift arithmetic below.
constexpr std::int64_t kMillion = base::kPpmOne;

Nanos Magnitude(Nanos value) { return value < 0 ? -value : value; }

}  // namespace

NodeClock::NodeClock(Nanos monotonic_start, Nanos wall_start, std::int64_t drift_ppm)
    : wall_base_(wall_start - monotonic_start), drift_ppm_(drift_ppm) {
  AssertRates();
  segments_.push_back(Segment{0, monotonic_start, 0, drift_ppm, false});
}

void NodeClock::AssertRates() const {
  assert(drift_ppm_ >= -kDriftPpmMax);
  assert(drift_ppm_ <= kDriftPpmMax);
  assert(slew_ppm_ >= -kSlewPpmMax);
  assert(slew_ppm_ <= kSlewPpmMax);
  assert(slew_left_ >= 0);
  // Either no slew runs, or it has time left to run.
  assert((slew_ppm_ == 0) == (slew_left_ == 0));
}

Nanos NodeClock::LocalIn(const Segment& segment, Nanos true_now) {
  assert(true_now >= segment.true_start);
  if (segment.frozen) return segment.local_start;
  const Nanos elapsed = true_now - segment.true_start;
  if (segment.rate_ppm == 0) return segment.local_start + elapsed;
  // Rounds down: a segment never reads ahead of its exact value.
  const Int128 scaled = Int128{elapsed} * (kMillion + segment.rate_ppm) / kMillion;
  return segment.local_start + static_cast<Nanos>(scaled);
}

const NodeClock::Segment& NodeClock::SegmentAt(Nanos true_now) const {
  // Queries are almost always about the present: search from the back.
  for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
    if (it->true_start <= true_now) return *it;
  }
  assert(false && "true_now precedes the clock's first segment");
  return segments_.front();
}

void NodeClock::Read(Nanos true_now) const {
  const Segment& segment = SegmentAt(true_now);
  reading_.local = LocalIn(segment, true_now);
  reading_.suspended = segment.suspended_before + (segment.frozen ? true_now - segment.true_start : 0);
  reading_at_ = true_now;
}

NodeClock::Reading NodeClock::Advance(Nanos true_now) {
  assert(true_now >= last_change_);
  const Segment& segment = SegmentAt(true_now);
  const Reading at{LocalIn(segment, true_now),
                   segment.suspended_before + (segment.frozen ? true_now - segment.true_start : 0)};
  if (!frozen_ && slew_ppm_ != 0) {
    const Nanos ran = true_now - last_change_;
    slew_left_ = ran >= slew_left_ ? 0 : slew_left_ - ran;
    if (slew_left_ == 0) slew_ppm_ = 0;
  }
  last_change_ = true_now;
  return at;
}

void NodeClock::Replan(Nanos true_now, Reading at) {
  AssertRates();
  ForgetReadings();
  // Segments from true_now on were either planned (a slew's end) or made by
  // an earlier change at this same instant: the new plan replaces them.
  while (!segments_.empty() && segments_.back().true_start >= true_now) segments_.pop_back();
  assert(segments_.size() + 2 <= kSegmentsMax);
  const std::int64_t rate = frozen_ ? 0 : drift_ppm_ + slew_ppm_;
  segments_.push_back(Segment{true_now, at.local, at.suspended, rate, frozen_});
  if (frozen_ || slew_ppm_ == 0) return;
  assert(slew_left_ <= kNeverNanos - true_now);
  const Nanos end = true_now + slew_left_;
  const Nanos local_at_end = LocalIn(segments_.back(), end);
  segments_.push_back(Segment{end, local_at_end, at.suspended, drift_ppm_, false});
}

void NodeClock::SetDriftPpm(Nanos true_now, std::int64_t drift_ppm) {
  const Reading at = Advance(true_now);
  drift_ppm_ = drift_ppm;
  Replan(true_now, at);
}

void NodeClock::Freeze(Nanos true_now) {
  assert(!frozen_);
  const Reading at = Advance(true_now);
  frozen_ = true;
  Replan(true_now, at);
}

void NodeClock::Unfreeze(Nanos true_now) {
  assert(frozen_);
  const Reading at = Advance(true_now);
  frozen_ = false;
  Replan(true_now, at);
}

void NodeClock::Slew(Nanos true_now, Nanos correction, std::int64_t rate_ppm) {
  assert(rate_ppm > 0);
  assert(rate_ppm <= kSlewPpmMax);
  assert(correction >= -kSlewCorrectionMax);
  assert(correction <= kSlewCorrectionMax);
  const Reading at = Advance(true_now);
  // The extra local time after T true ns at rate_ppm is T * rate_ppm / 10^6:
  // the slew lasts the least T that gains |correction|.
  const Int128 scaled = Int128{Magnitude(correction)} * kMillion;
  slew_left_ = static_cast<Nanos>((scaled + rate_ppm - 1) / rate_ppm);
  slew_ppm_ = correction == 0 ? 0 : (correction > 0 ? rate_ppm : -rate_ppm);
  Replan(true_now, at);
}

Nanos NodeClock::TrueTimeAtMonotonic(Nanos local) const {
  // The last segment starting below `local` is the one that reaches it
  // (local_start never decreases, and each segment ends where the next begins).
  for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
    const Segment& segment = *it;
    if (segment.local_start >= local) continue;
    if (segment.frozen) {
      // A frozen segment followed by another would start that one below local too.
      assert(it == segments_.rbegin());
      return kNeverNanos;
    }
    return TrueTimeInSegment(segment, local);
  }
  return segments_.front().true_start;
}

Nanos NodeClock::TrueTimeInSegment(const Segment& segment, Nanos local) {
  assert(!segment.frozen);
  assert(local > segment.local_start);
  if (segment.rate_ppm == 0) return segment.true_start + (local - segment.local_start);
  const Int128 needed = local - segment.local_start;
  const Int128 rate = kMillion + segment.rate_ppm;
  // LocalIn reads floor(T * rate / 10^6), which is >= needed exactly when
  // T * rate >= needed * 10^6: the least such T is the ceiling below.
  const Nanos when = segment.true_start + static_cast<Nanos>((needed * kMillion + rate - 1) / rate);
  assert(LocalIn(segment, when) >= local);
  assert(when == segment.true_start || LocalIn(segment, when - 1) < local);
  return when;
}

Nanos NodeClock::TrueTimeAtBoot(Nanos boot) const {
  // Boot is continuous and non-decreasing: the last segment starting below
  // `boot` reaches it. While frozen it advances at true speed.
  for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
    const Segment& segment = *it;
    const Nanos boot_start = segment.local_start + segment.suspended_before;
    if (boot_start >= boot) continue;
    if (segment.frozen) return segment.true_start + (boot - boot_start);
    // Unfrozen, Boot is Monotonic plus a constant within the segment.
    return TrueTimeInSegment(segment, boot - segment.suspended_before);
  }
  return segments_.front().true_start;
}

}  // namespace leasesim::sim
