#pragma once
// From targets to a timing configuration: the request timeout and safety
// margin from the store's latency, then the longest lease whose worst-case
// failover (core::RecoveryBound) meets the target, with the renew deadline,
// renew interval and retry placed inside it so every core::ValidateTiming
// rule holds with the margins below. docs/TIMING.md walks through it.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "core/timing.h"
#include "timing/targets.h"

namespace leasesim::timing {

// The margins the derivation keeps beyond the bare rules.
inline constexpr std::int64_t kTimeoutOverP99 = 2;        // request_timeout >= 2 x p99
inline constexpr std::int64_t kTimeoutOverP999Num = 5;    // request_timeout >= 5/4 x p999 (when given)
inline constexpr std::int64_t kTimeoutOverP999Den = 4;
inline constexpr std::int64_t kIntervalOverTimeout = 2;   // renew_interval >= 2 x request_timeout
inline constexpr std::int64_t kCyclesInDeadline = 3;      // renew_interval = renew_deadline / 3
// After a failed renewal the leader retries after up to retry, then up to
// 2 x retry (core/lease_elector.cc's Backoff); this many attempts, each
// allowed a full request timeout, must fit between the renew interval and
// the deadline: 3 x request_timeout + 3 x retry <= deadline - interval.
inline constexpr std::int64_t kAttemptsInWindow = 3;
inline constexpr std::int64_t kRetryShareOfLease = 16;    // retry ~ duration / 16 (followers notice fast)

// One timing for a given lease duration, in whole milliseconds.
struct Plan {
  core::TimingConfig timing;
  bool within_margins = true;
  // When not (the sweep's short leases): which margin it gave up, in words.
  std::string below_margins;
};

// The values the latency fixes, whatever the lease: request timeout, safety
// margin, and the shortest retry (half a timeout: retrying sooner only
// piles attempts on a slow store).
struct LatencyParts {
  std::int64_t request_timeout_ms = 0;
  std::int64_t safety_margin_ms = 0;
  std::int64_t retry_floor_ms = 0;
};
LatencyParts LatencyPartsOf(const Targets& targets);

// The timing for lease `duration_ms` under the targets' latency, pause
// budget and drift: the longest renew deadline the rules allow, a third of
// it as the renew interval, retry ~ duration/16 within the window. Nothing
// when no valid timing keeps the margins (or the duration is outside
// [1, kLeaseMsMax]); with `relaxed`, margins are given
// up (a shorter request timeout) before a duration is refused, and nothing
// only when no valid timing exists at all.
std::optional<Plan> PlanForDuration(const Targets& targets, std::int64_t duration_ms, bool relaxed = false);

// A timing's worst-case failover, core::RecoveryBound, rounded up to ms.
std::int64_t FailoverBoundMs(const core::TimingConfig& timing);

// A derived timing and the bounds that explain it.
struct Derivation {
  core::TimingConfig timing;
  std::int64_t failover_bound_ms = 0;   // FailoverBoundMs(timing) <= the target
  std::int64_t shortest_lease_ms = 0;   // the shortest lease that keeps the margins
  std::int64_t smallest_target_ms = 0;  // its failover bound: the best these inputs allow
};

// A target the inputs cannot meet, and the smallest that they can (0: no
// lease up to kLeaseMsMax keeps the margins).
struct Unreachable {
  std::int64_t smallest_target_ms = 0;
  std::int64_t shortest_lease_ms = 0;
};

// The longest lease considered: a day. It also keeps duration x drift
// within 64 bits of nanoseconds (8.64e13 ns x 99,999 ppm < 2^63), as
// core::ValidateTiming and core::RecoveryBound compute it.
inline constexpr std::int64_t kLeaseMsMax = kTargetMsMax;

// Expects CheckTargets(targets) to have passed.
std::variant<Derivation, Unreachable> Derive(const Targets& targets);

// Rounds a value down to a readable step (100 ms from 10 s, 10 ms from 1 s).
std::int64_t NiceDown(std::int64_t ms);

}  // namespace leasesim::timing
