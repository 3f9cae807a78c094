#include "timing/derive.h"

#include <algorithm>
#include <cassert>

#include "base/units.h"

namespace leasesim::timing {
namespace {

using base::kNanosPerMilli;
using base::Millis;
using base::Nanos;

constexpr int kSearchStepsMax = 64;  // bisection over int64 milliseconds ends well within this

std::int64_t CeilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The longest renew deadline, in whole ms, with deadline + pause budget <
// duration*(1 - drift) - margin (core::ShrunkLease, ValidateTiming's rule).
// Nothing when the lease cannot even hold the pause budget and the margin.
std::optional<std::int64_t> LongestDeadline(const Targets& t, std::int64_t duration_ms, std::int64_t margin_ms) {
  const Nanos duration = Millis(duration_ms);
  const Nanos shrunk = core::ShrunkLease(duration, t.drift_bound_ppm, Millis(margin_ms));
  const Nanos room = shrunk - Millis(t.pause_budget_ms);
  if (room <= kNanosPerMilli) return std::nullopt;
  return (room - 1) / kNanosPerMilli;  // strictly below room
}

// Interval and retry inside `deadline`, for a given request timeout.
struct Inner {
  std::int64_t interval = 0;
  std::int64_t retry = 0;
  bool within = false;  // interval >= 2 x timeout and retry >= its floor
};

Inner PlaceInside(std::int64_t duration, std::int64_t deadline, std::int64_t timeout, std::int64_t retry_floor) {
  Inner inner;
  inner.interval = deadline / kCyclesInDeadline;
  if (NiceDown(inner.interval) >= kIntervalOverTimeout * timeout) inner.interval = NiceDown(inner.interval);
  // Attempts at interval, then after a timeout and a retry, then after a
  // timeout and two retries (the backoff doubles) must end before the deadline.
  const std::int64_t retry_cap = (deadline - inner.interval) / kAttemptsInWindow - timeout;
  inner.retry = std::min(retry_cap, std::max(retry_floor, duration / kRetryShareOfLease));
  if (inner.retry >= 100 && inner.retry - inner.retry % 10 >= retry_floor) inner.retry -= inner.retry % 10;
  inner.within = inner.interval >= kIntervalOverTimeout * timeout && inner.retry >= retry_floor && inner.retry >= 1;
  return inner;
}

core::TimingConfig Assemble(const Targets& t, std::int64_t duration, std::int64_t deadline, const Inner& inner,
                            std::int64_t timeout, std::int64_t margin) {
  core::TimingConfig timing;
  timing.lease_duration = Millis(duration);
  timing.renew_deadline = Millis(deadline);
  timing.renew_interval = Millis(inner.interval);
  timing.retry = Millis(inner.retry);
  timing.request_timeout = Millis(timeout);
  timing.safety_margin = Millis(margin);
  timing.pause_budget = Millis(t.pause_budget_ms);
  timing.drift_bound_ppm = t.drift_bound_ppm;
  return timing;
}

// The relaxed plan: the request timeout shrinks to half the interval (and
// below the store's tail), which is what a too-short lease costs.
std::optional<Plan> RelaxedPlan(const Targets& t, std::int64_t duration, std::int64_t deadline,
                                const LatencyParts& parts) {
  const std::int64_t interval = deadline / kCyclesInDeadline;
  const std::int64_t timeout = std::max<std::int64_t>(1, std::min(parts.request_timeout_ms, interval / 2));
  const Inner inner = PlaceInside(duration, deadline, timeout, std::max<std::int64_t>(1, CeilDiv(timeout, 2)));
  if (inner.retry < 1 || inner.interval <= timeout) return std::nullopt;
  Plan plan{Assemble(t, duration, deadline, inner, timeout, parts.safety_margin_ms), false, {}};
  if (!core::ValidateTiming(plan.timing).empty()) return std::nullopt;
  plan.below_margins = timeout < parts.request_timeout_ms
                           ? "request timeout " + std::to_string(timeout) + " ms < " +
                                 std::to_string(parts.request_timeout_ms) + " ms the latency asks for"
                           : "retry window shorter than " + std::to_string(kAttemptsInWindow) + " attempts";
  return plan;
}

}  // namespace

std::int64_t NiceDown(std::int64_t ms) {
  const std::int64_t step = ms >= 10'000 ? 100 : ms >= 1'000 ? 10 : 1;
  return ms - ms % step;
}

LatencyParts LatencyPartsOf(const Targets& t) {
  LatencyParts parts;
  parts.request_timeout_ms = kTimeoutOverP99 * t.EffectiveP99();
  if (t.store_p999_ms > 0) {
    parts.request_timeout_ms =
        std::max(parts.request_timeout_ms, CeilDiv(kTimeoutOverP999Num * t.EffectiveP999(), kTimeoutOverP999Den));
  }
  parts.safety_margin_ms = std::max<std::int64_t>(1, t.EffectiveP99());
  parts.retry_floor_ms = std::max<std::int64_t>(1, CeilDiv(parts.request_timeout_ms, 2));
  return parts;
}

std::optional<Plan> PlanForDuration(const Targets& t, std::int64_t duration_ms, bool relaxed) {
  if (duration_ms < 1 || duration_ms > kLeaseMsMax) return std::nullopt;
  const LatencyParts parts = LatencyPartsOf(t);
  const std::optional<std::int64_t> longest = LongestDeadline(t, duration_ms, parts.safety_margin_ms);
  if (!longest) return std::nullopt;
  // A readable deadline when it keeps the margins, else the longest one.
  for (const std::int64_t deadline : {NiceDown(*longest), *longest}) {
    const Inner inner = PlaceInside(duration_ms, deadline, parts.request_timeout_ms, parts.retry_floor_ms);
    if (!inner.within) continue;
    Plan plan{Assemble(t, duration_ms, deadline, inner, parts.request_timeout_ms, parts.safety_margin_ms), true, {}};
    assert(core::ValidateTiming(plan.timing).empty());
    return plan;
  }
  if (!relaxed) return std::nullopt;
  return RelaxedPlan(t, duration_ms, *longest, parts);
}

std::int64_t FailoverBoundMs(const core::TimingConfig& timing) {
  return CeilDiv(core::RecoveryBound(timing), kNanosPerMilli);
}

std::variant<Derivation, Unreachable> Derive(const Targets& t) {
  auto keeps = [&](std::int64_t d) { return PlanForDuration(t, d).has_value(); };
  auto bound = [&](std::int64_t d) { return FailoverBoundMs(PlanForDuration(t, d)->timing); };
  // Keeping the margins is monotone in the duration: find one that does by
  // doubling, then the shortest by bisection.
  std::int64_t high = std::max<std::int64_t>(1, std::min(t.failover_target_ms, kLeaseMsMax));
  for (int i = 0; i < kSearchStepsMax && !keeps(high) && high < kLeaseMsMax; ++i) high = std::min(2 * high, kLeaseMsMax);
  if (!keeps(high)) return Unreachable{0, 0};  // not even a day-long lease holds these latencies and pauses
  std::int64_t low = 0;  // does not keep them
  for (int i = 0; i < kSearchStepsMax && high - low > 1; ++i) {
    const std::int64_t mid = low + (high - low) / 2;
    (keeps(mid) ? high : low) = mid;
  }
  const std::int64_t shortest = high;
  const std::int64_t smallest_target = bound(shortest);
  if (smallest_target > t.failover_target_ms) return Unreachable{smallest_target, shortest};
  // The failover bound grows with the duration: the longest that meets the target.
  std::int64_t fits = shortest;
  std::int64_t over = t.failover_target_ms + 1;
  for (int i = 0; i < kSearchStepsMax && over - fits > 1; ++i) {
    const std::int64_t mid = fits + (over - fits) / 2;
    (bound(mid) <= t.failover_target_ms ? fits : over) = mid;
  }
  const std::int64_t duration = NiceDown(fits) >= shortest ? NiceDown(fits) : fits;
  Derivation derivation;
  derivation.timing = PlanForDuration(t, duration)->timing;
  derivation.failover_bound_ms = FailoverBoundMs(derivation.timing);
  derivation.shortest_lease_ms = shortest;
  derivation.smallest_target_ms = smallest_target;
  assert(derivation.failover_bound_ms <= t.failover_target_ms);
  return derivation;
}

}  // namespace leasesim::timing
