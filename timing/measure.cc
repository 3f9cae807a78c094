#include "timing/measure.h"

#include <algorithm>

#include <absl/strings/str_format.h>

#include "checker/fault_kind.h"
#include "runner/run.h"

namespace leasesim::timing {
namespace {

using checker::TimeNs;
using base::kNanosPerMilli;

constexpr std::int64_t kFailoversPerRunMax = 64;  // figures kept per run

bool HitsLeader(const std::string& kind) {
  for (const char* k : {"crash", "pause", "suspend", "isolate", "isolate_from_store", "partition_oneway"}) {
    if (kind == k) return true;
  }
  return false;
}

// The belief of `node` in force when the fault struck, or null.
const checker::LeadershipBelief* LeadingAt(const checker::History& history, int node, TimeNs at) {
  const checker::LeadershipBelief* found = nullptr;
  for (const checker::LeadershipBelief& belief : history.beliefs) {
    if (belief.node == node && belief.from_ns <= at && at <= belief.until_ns) found = &belief;
  }
  return found;
}

void MeasureFault(const checker::History& history, const checker::FaultRecord& fault, RunMeasure& measure) {
  if (!HitsLeader(fault.kind) || fault.nodes.size() != 1) return;
  const checker::LeadershipBelief* old = LeadingAt(history, fault.nodes.front(), fault.start_ns);
  if (old == nullptr) return;  // struck a follower, or nobody led
  if (old->until_ns > fault.end_ns + kNanosPerMilli) {
    measure.kept += 1;  // still leading after the fault healed
    return;
  }
  TimeNs next = checker::kNeverNs;
  for (const checker::LeadershipBelief& belief : history.beliefs) {
    if (&belief != old && belief.from_ns > fault.start_ns) next = std::min(next, belief.from_ns);
  }
  if (next == checker::kNeverNs) {
    measure.unrecovered += 1;
    return;
  }
  measure.failover_ms.push_back((next - fault.start_ns) / kNanosPerMilli);
}

// From the end of a store outage until some node leads.
std::int64_t RecoveryAfter(const checker::History& history, const checker::FaultRecord& fault) {
  TimeNs first = checker::kNeverNs;
  for (const checker::LeadershipBelief& belief : history.beliefs) {
    if (belief.until_ns > fault.end_ns) first = std::min(first, std::max(belief.from_ns, fault.end_ns));
  }
  return first == checker::kNeverNs ? -1 : (first - fault.end_ns) / kNanosPerMilli;
}

}  // namespace

RunMeasure MeasureHistory(const checker::History& history, const CallThresholds& thresholds) {
  RunMeasure measure;
  for (const checker::FaultRecord& fault : history.faults) {
    MeasureFault(history, fault, measure);
    if (checker::IsFaultKind(fault.kind, checker::FaultKind::kStoreOutage) && static_cast<std::int64_t>(measure.recovery_ms.size()) < kFailoversPerRunMax) {
      measure.recovery_ms.push_back(RecoveryAfter(history, fault));
    }
  }
  for (const checker::StoreOp& op : history.store_ops) {
    if (op.watch_answer) continue;  // not a call: a watch's wait is no latency
    if (op.outcome == checker::Outcome::kUnknown) {
      measure.unanswered += 1;
      continue;
    }
    if (op.complete_ns == checker::kNeverNs) continue;
    const std::int64_t ms_x1000 = (op.complete_ns - op.invoke_ns) / 1000;  // microseconds
    measure.calls += 1;
    if (ms_x1000 > thresholds.p99_ms * 1000) measure.over_p99 += 1;
    if (ms_x1000 > thresholds.p999_ms * 1000) measure.over_p999 += 1;
  }
  return measure;
}

void AddMeasureFigures(const RunMeasure& m, std::map<std::string, std::int64_t>& figures) {
  const std::size_t kept = std::min<std::size_t>(m.failover_ms.size(), kFailoversPerRunMax);
  figures["timing_failovers"] = static_cast<std::int64_t>(kept);
  for (std::size_t i = 0; i < kept; ++i) figures["timing_failover_" + std::to_string(i) + "_ms"] = m.failover_ms[i];
  figures["timing_recoveries"] = static_cast<std::int64_t>(m.recovery_ms.size());
  for (std::size_t i = 0; i < m.recovery_ms.size(); ++i) {
    figures["timing_recovery_" + std::to_string(i) + "_ms"] = m.recovery_ms[i];
  }
  figures["timing_kept"] = m.kept;
  figures["timing_unrecovered"] = m.unrecovered;
  figures["timing_calls"] = m.calls;
  figures["timing_calls_over_p99"] = m.over_p99;
  figures["timing_calls_over_p999"] = m.over_p999;
  figures["timing_calls_unanswered"] = m.unanswered;
}

RunMeasure MeasureFromFigures(const std::map<std::string, std::int64_t>& figures) {
  auto get = [&](const std::string& name) {
    const auto it = figures.find(name);
    return it == figures.end() ? 0 : it->second;
  };
  RunMeasure m;
  const std::int64_t count = std::min(get("timing_failovers"), kFailoversPerRunMax);
  for (std::int64_t i = 0; i < count; ++i) m.failover_ms.push_back(get("timing_failover_" + std::to_string(i) + "_ms"));
  const std::int64_t recoveries = std::min(get("timing_recoveries"), kFailoversPerRunMax);
  for (std::int64_t i = 0; i < recoveries; ++i) m.recovery_ms.push_back(get("timing_recovery_" + std::to_string(i) + "_ms"));
  m.kept = get("timing_kept");
  m.unrecovered = get("timing_unrecovered");
  m.calls = get("timing_calls");
  m.over_p99 = get("timing_calls_over_p99");
  m.over_p999 = get("timing_calls_over_p999");
  m.unanswered = get("timing_calls_unanswered");
  return m;
}

runner::RunFunction MeasuringRun(const CallThresholds& thresholds) {
  return [thresholds](const runner::Scenario& scenario, std::uint64_t seed, const runner::RunOptions& options) {
    runner::RunOptions with_history = options;
    with_history.keep_history = true;
    runner::RunResult result = runner::RunScenario(scenario, seed, with_history);
    AddMeasureFigures(MeasureHistory(result.history, thresholds), result.figures);
    if (!options.keep_history) result.history = {};
    return result;
  };
}

std::int64_t PerHourHundredths(std::int64_t count, std::int64_t span_ms) {
  if (span_ms <= 0) return 0;
  return count * 360'000'000 / span_ms;  // count * 3,600,000 ms/h * 100
}

std::string FormatHundredths(std::int64_t hundredths) {
  return absl::StrFormat("%d.%02d", hundredths / 100, hundredths % 100);
}

}  // namespace leasesim::timing
