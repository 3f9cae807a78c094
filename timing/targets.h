#pragma once
// What a user asks `leasesim timing` for: the failover target and the bounds
// of the environment the lease runs in (store latency, scheduler pauses,
// clock drift, and the extra round trip regions add). Everything else in
// timing/ is derived from these numbers, in whole milliseconds.

#include <cstdint>
#include <optional>
#include <string>

#include "base/input_error.h"

namespace leasesim::timing {

// The inputs, as the flags give them (regions filled in from --regions).
struct Targets {
  std::int64_t failover_target_ms = 0;  // a dead leader is replaced within this
  std::int64_t store_p99_ms = 0;        // a store call's round trip, 99th percentile, beside the store
  std::int64_t store_p999_ms = 0;       // its 99.9th percentile; 0 = not given
  std::int64_t pause_budget_ms = 0;     // the longest stop-the-world pause the deployment promises
  std::int64_t drift_bound_ppm = 0;     // the largest clock-rate error of any node
  // From --regions: the worst round trip a node pays on top of a call made
  // beside the store (0 without regions), and what it is, for the reasoning.
  std::int64_t region_extra_rtt_ms = 0;
  std::string region_extra_what;

  // The store's latency as the farthest node sees it.
  std::int64_t EffectiveP99() const { return store_p99_ms + region_extra_rtt_ms; }
  // p999 as given, or 1.5 x the p99 when not given (the verify worlds' shape).
  std::int64_t EffectiveP999() const;
};

// Input limits; a failover target longer than a day is not a lease.
inline constexpr std::int64_t kTargetMsMax = 24LL * 3600 * 1000;
inline constexpr std::int64_t kPauseMsMax = 3600LL * 1000;
inline constexpr std::int64_t kDriftPpmMax = 100'000;  // core/timing.cc's bound (exclusive)

// The first broken rule among the inputs, or nothing: its path is the flag
// ("--store-p99"), its rule what is wrong ("must be below --failover-target
// (got 20000 >= 15000)").
std::optional<base::InputError> CheckTargets(const Targets& targets);

}  // namespace leasesim::timing
