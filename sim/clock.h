#pragma once
// A node's own clocks as functions of true time.
//
// The monotonic clock runs at (1 + drift_ppm / 10^6) times true speed, may
// change rate over time, and stands still while the node is suspended (as
// Linux CLOCK_MONOTONIC does across a VM or laptop suspend). Its history is
// kept as segments, so the true instant at which it read any value, past or
// future, is exact.
//
// The wall clock follows true time plus an offset that NTP-style steps move,
// forwards or backwards; it is the clock a careless protocol compares
// timestamps with.

#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace leasesim::sim {

class NodeClock {
 public:
  // monotonic_start: what the monotonic clock reads at true time 0 (nodes
  // boot at different times, so their monotonic readings are unrelated).
  NodeClock(Nanos monotonic_start, Nanos wall_start, std::int64_t drift_ppm);

  Nanos Monotonic(Nanos true_now) const;
  Nanos Wall(Nanos true_now) const;
  std::int64_t drift_ppm() const { return segments_.back().drift_ppm; }
  bool frozen() const { return segments_.back().frozen; }

  // Changes take effect at true_now, which must not precede earlier changes.
  void SetDriftPpm(Nanos true_now, std::int64_t drift_ppm);
  void Freeze(Nanos true_now);
  void Unfreeze(Nanos true_now);
  void StepWall(Nanos delta) { wall_offset_ += delta; }

  // The earliest true instant at which the monotonic clock reads >= local,
  // assuming no further changes; kNeverNanos while frozen and not yet there.
  Nanos TrueTimeAtMonotonic(Nanos local) const;

 private:
  struct Segment {
    Nanos true_start;
    Nanos local_start;
    std::int64_t drift_ppm;
    bool frozen;
  };
  static Nanos LocalIn(const Segment& segment, Nanos true_now);
  void Begin(Nanos true_now, std::int64_t drift_ppm, bool frozen);

  static constexpr int kSegmentsMax = 100'000;
  std::vector<Segment> segments_;
  Nanos wall_start_;
  Nanos wall_offset_ = 0;
};

}  // namespace leasesim::sim
