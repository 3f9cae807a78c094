#pragma once
// An NTP client on one host, as ntpd or chronyd runs on Linux: every poll it
// compares the host's wall clock (CLOCK_REALTIME) with the time servers'
// reference and corrects the OFFSET — stepping the wall clock
// (settimeofday) when the offset exceeds the step threshold (ntpd's default
// is 128 ms), slewing it otherwise (adjtime, at most 500 ppm, which moves
// CLOCK_MONOTONIC alike). It leaves the oscillator's rate error alone, as
// the kernel must when the error is beyond its 500 ppm frequency
// correction: a badly drifting node then keeps a wall clock near true time
// while its monotonic clock drifts on — the case a lease protocol must
// survive. A host that is not running (paused, suspended, crashed) skips
// its polls.

#include <cstdint>

#include "sim/time.h"
#include "sim/world.h"

namespace leasesim::sim {

struct TimeSyncConfig {
  Nanos poll = 0;                           // between polls, in true time; 0 = no NTP client
  Nanos step_threshold = Millis(128);       // a larger offset is stepped away at once
  bool slew_small_offsets = true;           // smaller ones are slewed at kSlewPpm
  static constexpr std::int64_t kSlewPpm = 500;
};

// The NTP client of one host: polls from Start() on, stepping or slewing the
// host's wall clock.
class TimeSync {
 public:
  // reference_wall_at_zero: the servers' wall time at true time 0.
  TimeSync(World& world, HostId host, Nanos reference_wall_at_zero, TimeSyncConfig config);
  TimeSync(const TimeSync&) = delete;
  TimeSync& operator=(const TimeSync&) = delete;

  // Schedules the first poll one interval from now; a no-op when poll is 0.
  void Start();

  std::int64_t steps() const { return steps_; }
  std::int64_t slews() const { return slews_; }

 private:
  void Poll();

  World& world_;
  HostId host_;
  Nanos reference_wall_at_zero_;
  TimeSyncConfig config_;
  std::int64_t steps_ = 0;
  std::int64_t slews_ = 0;
};

}  // namespace leasesim::sim
