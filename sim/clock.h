#pragma once
// A node's own clocks as functions of true time, modelled on the physical
// machine: one oscillator with a rate error drives every clock the node has,
// so the node can never see its own drift by comparing two of them.
//
//   Monotonic (CLOCK_MONOTONIC): the oscillator's time, at (1 + rate/10^6)
//     of true speed, where rate = drift_ppm plus any running slew; it stands
//     still while the node is suspended.
//   Boot (CLOCK_BOOTTIME): Monotonic plus the true time spent suspended (the
//     kernel adds the sleep time its RTC measured on resume).
//   Wall (CLOCK_REALTIME): wall_start + everything Boot gained since true 0
//     (so it drifts and slews exactly like Monotonic and jumps forward by a
//     suspended span on resume) + the sum of every StepWall.
//
// While suspended, Boot and Wall are taken to advance at true speed: nothing
// on the node can read them then, and on resume they show what the kernel
// shows, the suspended span added at once.
//
// Slew (adjtime(2), NTP frequency correction): both Monotonic and Wall run at
// (drift ± rate_ppm) until the correction is absorbed, then at the drift
// again; wall - monotonic does not change. On Linux the NTP adjustment
// applies to CLOCK_MONOTONIC and CLOCK_REALTIME alike; only
// CLOCK_MONOTONIC_RAW is exempt, and it is not modelled.
//
// The rate history is kept as segments (including the planned end of a
// running slew), so Monotonic and Boot of any instant, past or future, and
// the true instant at which Monotonic reads any value, are exact under the
// changes made so far. Integer arithmetic throughout (128-bit intermediates).

#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace leasesim::sim {

// One node's clocks: piecewise-linear in true time, as described above.
class NodeClock {
 public:
  // |drift_ppm| is at most this: a clock 90% off is no longer a clock.
  static constexpr std::int64_t kDriftPpmMax = 900'000;
  // adjtime(2) on Linux slews at 500 ppm (0.5 ms per second) at most.
  static constexpr std::int64_t kSlewPpmMax = 500;
  // |correction| of one slew, about the range glibc's adjtime accepts.
  static constexpr Nanos kSlewCorrectionMax = Seconds(2145);

  // monotonic_start: what Monotonic (and Boot) read at true time 0 (nodes
  // boot at different times, so their readings are unrelated);
  // wall_start: what Wall reads at true time 0.
  NodeClock(Nanos monotonic_start, Nanos wall_start, std::int64_t drift_ppm);

  // Inline with the last reading kept: a process reads its clocks many
  // times within one event (one true instant), Monotonic and Boot (or Wall)
  // alike, and one reading serves them all.
  Nanos Monotonic(Nanos true_now) const {
    if (true_now != reading_at_) Read(true_now);
    return reading_.local;
  }
  Nanos Boot(Nanos true_now) const {
    if (true_now != reading_at_) Read(true_now);
    return reading_.local + reading_.suspended;
  }
  // Includes every step made so far (steps carry no time of their own).
  Nanos Wall(Nanos true_now) const { return wall_base_ + Boot(true_now) + steps_; }
  std::int64_t drift_ppm() const { return drift_ppm_; }
  bool frozen() const { return frozen_; }

  // Changes take effect at true_now, which must not precede earlier changes.
  // A new drift keeps a running slew going: what is left of it is absorbed
  // at the same rate_ppm on top of the new drift (so over the same true time).
  void SetDriftPpm(Nanos true_now, std::int64_t drift_ppm);
  // Suspend and resume. A running slew pauses while frozen and resumes after.
  void Freeze(Nanos true_now);
  void Unfreeze(Nanos true_now);
  // From true_now, Monotonic and Wall run rate_ppm (1..kSlewPpmMax) faster
  // (correction > 0) or slower (< 0) than the drift until |correction| local
  // nanoseconds have been gained or lost (exact to the nanosecond's rounding),
  // which takes |correction| * 10^6 / rate_ppm nanoseconds of unfrozen true
  // time. As adjtime does, a new Slew replaces what is left of a running
  // one (the remainder is dropped); a correction of 0 just cancels it.
  void Slew(Nanos true_now, Nanos correction, std::int64_t rate_ppm);
  // An NTP / settimeofday step, either way: moves Wall only, at once.
  void StepWall(Nanos delta) { steps_ += delta; }

  // The earliest true instant at which Monotonic reads >= local, assuming no
  // further changes; kNeverNanos while frozen and not yet there.
  Nanos TrueTimeAtMonotonic(Nanos local) const;
  // The earliest true instant at which Boot reads >= boot, assuming no
  // further changes. Never kNeverNanos: Boot runs on while frozen.
  Nanos TrueTimeAtBoot(Nanos boot) const;

 private:
  struct Segment {
    Nanos true_start;
    Nanos local_start;       // Monotonic at true_start
    Nanos suspended_before;  // true time spent frozen before true_start
    std::int64_t rate_ppm;   // drift plus slew while it lasts
    bool frozen;
  };
  struct Reading {
    Nanos local;
    Nanos suspended;
  };
  // Keeps Monotonic (and the suspended time Boot adds) at true_now.
  void Read(Nanos true_now) const;
  void ForgetReadings() const { reading_at_ = kForgotten; }
  static Nanos LocalIn(const Segment& segment, Nanos true_now);
  // The least true instant at which an unfrozen segment reads >= local.
  static Nanos TrueTimeInSegment(const Segment& segment, Nanos local);
  const Segment& SegmentAt(Nanos true_now) const;
  Reading Advance(Nanos true_now);
  void Replan(Nanos true_now, Reading at);
  void AssertRates() const;

  static constexpr std::size_t kSegmentsMax = 100'000;
  std::vector<Segment> segments_;  // true_start ascending; local_start non-decreasing
  Nanos wall_base_;                // wall_start - monotonic_start
  Nanos steps_ = 0;
  std::int64_t drift_ppm_;
  std::int64_t slew_ppm_ = 0;  // signed; 0 when no slew runs
  Nanos slew_left_ = 0;        // unfrozen true time the slew still runs, as of last_change_
  bool frozen_ = false;
  Nanos last_change_ = 0;
  // The last reading and the true instant it is of (a cache: every change
  // forgets it).
  static constexpr Nanos kForgotten = -1;  // true time never reads this
  mutable Nanos reading_at_ = kForgotten;
  mutable Reading reading_{0, 0};
};

}  // namespace leasesim::sim
