#include "timing/explain.h"

#include <absl/strings/str_format.h>

#include "base/units.h"
#include "timing/measure.h"

namespace leasesim::timing {
namespace {

using base::kNanosPerMilli;
using base::Nanos;

std::string Ms(std::int64_t ms) { return std::to_string(ms) + " ms"; }
std::int64_t AsMs(Nanos ns) { return ns / kNanosPerMilli; }

Nanos Shrunk(const core::TimingConfig& t) { return core::ShrunkLease(t.lease_duration, t.drift_bound_ppm, t.safety_margin); }

// "the store's p99 (200 ms)", or with regions "(200 ms + 160 ms to reach it from ap)".
std::string P99Words(const Targets& t) {
  if (t.region_extra_rtt_ms == 0) return "store p99 (" + Ms(t.store_p99_ms) + ")";
  return "store p99 as the farthest node sees it (" + Ms(t.store_p99_ms) + " + " + Ms(t.region_extra_rtt_ms) + " " +
         t.region_extra_what + " = " + Ms(t.EffectiveP99()) + ")";
}

ValueReason TimeoutReason(const Targets& t, const core::TimingConfig& c) {
  std::string set_by = std::to_string(kTimeoutOverP99) + " x " + P99Words(t);
  if (t.store_p999_ms > 0) {
    set_by = "the larger of " + set_by + " and 5/4 x store p999 (" + Ms(t.EffectiveP999()) + ")";
  }
  return {"request_timeout_ms", AsMs(c.request_timeout), set_by + ": a call slower than that is given up, so at most "
          "a small share of healthy calls time out",
          "rule request_timeout < renew_interval (" + FormatMs(c.request_timeout) + " < " + FormatMs(c.renew_interval) +
              "); kept at most half the interval"};
}

ValueReason DurationReason(const Targets& t, const Derivation& d) {
  const core::TimingConfig& c = d.timing;
  return {"duration_ms", AsMs(c.lease_duration),
          "failover target (" + Ms(t.failover_target_ms) + "): the longest lease, rounded down, whose worst-case "
          "failover (duration*(1 + drift) + 2 x retry + 2 x request_timeout)/(1 - drift) (core::RecoveryBound) = " +
              Ms(d.failover_bound_ms) + " stays within it",
          "failover bound <= target; at least " + Ms(d.shortest_lease_ms) +
              " for the margins below to fit (smallest reachable target " + Ms(d.smallest_target_ms) + ")"};
}

ValueReason DeadlineReason(const Targets& t, const core::TimingConfig& c) {
  const Nanos room = Shrunk(c) - c.pause_budget;
  return {"renew_deadline_ms", AsMs(c.renew_deadline),
          "pause budget (" + Ms(t.pause_budget_ms) + ") and drift bound (" + std::to_string(t.drift_bound_ppm) +
              " ppm): duration*(1 - drift) - safety_margin - pause_budget = " + FormatMs(room) +
              ", rounded down: the leader stops before a candidate's wait ends even if it stalls for the whole budget "
              "right after its last lease check",
          "rule renew_deadline + pause_budget < duration*(1 - drift_bound) - safety_margin"};
}

ValueReason IntervalReason(const core::TimingConfig& c) {
  return {"renew_interval_ms", AsMs(c.renew_interval),
          "renew_deadline / " + std::to_string(kCyclesInDeadline) + ", rounded down: " +
              std::to_string(kCyclesInDeadline) + " renewal cycles inside the deadline, so two whole intervals of "
              "failed renewals pass before the leader demotes",
          "rule renew_interval < renew_deadline; margin renew_interval >= " + std::to_string(kIntervalOverTimeout) +
              " x request_timeout (" + FormatMs(c.renew_interval) + " >= " +
              FormatMs(kIntervalOverTimeout * c.request_timeout) + ")"};
}

ValueReason RetryReason(const core::TimingConfig& c) {
  const Nanos window = c.renew_deadline - c.renew_interval;
  const Nanos needed = kAttemptsInWindow * (c.request_timeout + c.retry);
  return {"retry_ms", AsMs(c.retry),
          "lease duration / " + std::to_string(kRetryShareOfLease) + ", rounded down, at least half a request "
          "timeout: followers notice a dead leader within a sixteenth of the lease",
          "margin: " + std::to_string(kAttemptsInWindow) + " renewal attempts that each time out, with core's backoff "
              "(retry, then 2 x retry), fit between interval and deadline (" + FormatMs(needed) + " <= " +
              FormatMs(window) + "); rule retry < renew_deadline - renew_interval"};
}

}  // namespace

std::string FormatMs(std::int64_t ns) {
  const bool negative = ns < 0;
  const std::int64_t magnitude = negative ? -ns : ns;
  std::string text = std::to_string(magnitude / kNanosPerMilli);
  std::int64_t micros = (magnitude % kNanosPerMilli) / 1000;
  if (micros != 0) {
    std::string fraction = std::to_string(micros);
    fraction.insert(0, 3 - fraction.size(), '0');
    while (fraction.back() == '0') fraction.pop_back();
    text += "." + fraction;
  }
  return (negative ? "-" : "") + text + " ms";
}

std::string FormatSeconds(std::int64_t ms) {
  const std::int64_t magnitude = ms < 0 ? -ms : ms;
  return (ms < 0 ? "-" : "") + FormatHundredths((magnitude + 5) / 10) + " s";
}

std::vector<ValueReason> Reasons(const Targets& t, const Derivation& d) {
  const core::TimingConfig& c = d.timing;
  std::vector<ValueReason> reasons;
  reasons.push_back(TimeoutReason(t, c));
  reasons.push_back({"safety_margin_ms", AsMs(c.safety_margin),
                     P99Words(t) + ": one store round trip, so a renewal or write sent at the last valid instant "
                     "still lands inside the window a successor waits out",
                     "subtracted from the lease in the deadline rule; pause detection fires above "
                     "max(safety_margin, pause_budget) = " + FormatMs(std::max(c.safety_margin, c.pause_budget))});
  reasons.push_back(DurationReason(t, d));
  reasons.push_back(DeadlineReason(t, c));
  reasons.push_back(IntervalReason(c));
  reasons.push_back(RetryReason(c));
  reasons.push_back({"pause_budget_ms", AsMs(c.pause_budget), "--pause-budget as given",
                     "rule pause_budget < duration*(1 - drift_bound) - safety_margin - renew_deadline"});
  reasons.push_back({"drift_bound_ppm", c.drift_bound_ppm, "--drift-bound as given",
                     "the deadline gives up duration x drift (" +
                         FormatMs(c.lease_duration * c.drift_bound_ppm / base::kPpmOne) +
                         "); a candidate waits duration*(1 + drift) on its own clock"});
  return reasons;
}

std::vector<std::string> RuleLines(const core::TimingConfig& c) {
  const Nanos shrunk = Shrunk(c);
  auto line = [](const std::string& rule, Nanos left, Nanos right) {
    return rule + ": " + FormatMs(left) + " < " + FormatMs(right) + (left < right ? "  ok" : "  BROKEN") +
           " (slack " + FormatMs(right - left) + ")";
  };
  std::vector<std::string> lines;
  lines.push_back(line("renew_interval < renew_deadline", c.renew_interval, c.renew_deadline));
  lines.push_back(line("renew_deadline < duration*(1 - drift_bound) - safety_margin", c.renew_deadline, shrunk));
  lines.push_back(line("request_timeout < renew_interval", c.request_timeout, c.renew_interval));
  lines.push_back(line("retry < renew_deadline - renew_interval", c.retry, c.renew_deadline - c.renew_interval));
  lines.push_back(line("pause_budget < duration*(1 - drift_bound) - safety_margin - renew_deadline", c.pause_budget,
                       shrunk - c.renew_deadline));
  return lines;
}

std::string DerivationText(const Targets& t, const Derivation& d) {
  std::string text = "timing for failover <= " + Ms(t.failover_target_ms) + ", store p99 " + Ms(t.store_p99_ms) +
                     (t.store_p999_ms > 0 ? ", p999 " + Ms(t.store_p999_ms) : std::string()) + ", pause budget " +
                     Ms(t.pause_budget_ms) + ", drift bound " + std::to_string(t.drift_bound_ppm) + " ppm" +
                     (t.region_extra_rtt_ms > 0 ? ", regions: +" + Ms(t.region_extra_rtt_ms) + " " + t.region_extra_what
                                                : std::string()) + "\n";
  for (const ValueReason& reason : Reasons(t, d)) {
    absl::StrAppendFormat(&text, "  %-19s %8d\n", reason.field, reason.value);
    text += "      set by:  " + reason.set_by + "\n";
    text += "      bounded: " + reason.bound_by + "\n";
  }
  text += "worst-case failover " + Ms(d.failover_bound_ms) + " <= target " + Ms(t.failover_target_ms) +
          " (smallest reachable target with these inputs: " + Ms(d.smallest_target_ms) + ")\n";
  const std::vector<core::TimingError> errors = core::ValidateTiming(d.timing);
  text += "core::ValidateTiming: " + (errors.empty() ? std::string("every rule holds") : errors.front().rule) + "\n";
  for (const std::string& rule : RuleLines(d.timing)) text += "  " + rule + "\n";
  return text;
}

std::string UnreachableText(const Targets& t, const Unreachable& u) {
  const LatencyParts parts = LatencyPartsOf(t);
  if (u.smallest_target_ms == 0) {
    return "--failover-target: " + Ms(t.failover_target_ms) + " cannot be met: no lease of up to a day holds " +
           std::to_string(kCyclesInDeadline) + " renewal cycles of " + std::to_string(kIntervalOverTimeout) +
           " request timeouts (" + Ms(parts.request_timeout_ms) + ") with the pause budget (" +
           Ms(t.pause_budget_ms) + ") and these inputs\n";
  }
  return "--failover-target: " + Ms(t.failover_target_ms) + " cannot be met: the smallest achievable failover "
         "target with these inputs is " + Ms(u.smallest_target_ms) + ". Its lease, " + Ms(u.shortest_lease_ms) +
         ", is the shortest that holds " + std::to_string(kCyclesInDeadline) + " renewal cycles of at least " +
         std::to_string(kIntervalOverTimeout) + " request timeouts (" + Ms(parts.request_timeout_ms) +
         ", from the store's latency) with room for " + std::to_string(kAttemptsInWindow) +
         " renewal attempts, plus the pause budget (" + Ms(t.pause_budget_ms) + "), the safety margin (" +
         Ms(parts.safety_margin_ms) + ") and the drift; a failover then takes up to that lease, two retries and "
         "two request timeouts.\n";
}

nlohmann::ordered_json LeaseJson(const core::TimingConfig& c) {
  nlohmann::ordered_json lease;
  lease["duration_ms"] = AsMs(c.lease_duration);
  lease["renew_interval_ms"] = AsMs(c.renew_interval);
  lease["renew_deadline_ms"] = AsMs(c.renew_deadline);
  lease["retry_ms"] = AsMs(c.retry);
  lease["request_timeout_ms"] = AsMs(c.request_timeout);
  lease["drift_bound_ppm"] = c.drift_bound_ppm;
  lease["safety_margin_ms"] = AsMs(c.safety_margin);
  lease["pause_budget_ms"] = AsMs(c.pause_budget);
  return lease;
}

}  // namespace leasesim::timing
