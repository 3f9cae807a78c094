#include "live/live_judge.h"

#include <algorithm>

#include "base/percentile.h"
#include "base/units.h"
#include "checker/checker.h"
#include "checker/history_figures.h"
#include "checker/history_index.h"
#include "core/fault_points.h"
#include "core/timing.h"
#include "live/live_config.h"

namespace leasesim::live {
namespace {

// etcd's own leader election (election timeout 1 s by default) comes on top
// of the protocol's recovery bound after an etcd member is stopped.
constexpr std::int64_t kEtcdElectionAllowanceNs = 3'000 * kNanosPerMilli;
// A window must have fallen due this long before the end to count as due.
constexpr std::int64_t kDueSlackNs = 2'000 * kNanosPerMilli;

checker::Assumptions AssumptionsOf(const LiveOptions& o) {
  const core::TimingConfig timing = TimingOf(o);
  checker::Assumptions a;
  a.drift_bound_ppm = o.drift_ppm;
  a.pause_budget_ns = timing.pause_budget;
  a.lease_duration_ns = timing.lease_duration;
  a.renew_interval_ns = timing.renew_interval;
  a.retry_ns = timing.retry;
  a.settlement_period_ns = o.period_ms * kNanosPerMilli;
  a.recovery_bound_ns = core::RecoveryBound(timing) + kEtcdElectionAllowanceNs;
  // The settlement job's runner polls every poll_ms; the job goes at most
  // one ledger request between two lease checks (SettlementJob::RunnerFor).
  a.callback_bound_ns = o.poll_ms * kNanosPerMilli + timing.request_timeout;
  a.last_point_before_write = std::string(core::fault_points::kBeforeLedgerWrite);
  return a;
}

// Windows due early enough that a healed system must have settled them:
// two periods and some slack before the end, and not after the last heal
// when recovery from it could not fit before that.
std::vector<std::int64_t> DueWindows(const FinishedRun& run, const checker::Assumptions& a) {
  const std::int64_t period = a.settlement_period_ns;
  std::int64_t last_heal = 0;
  for (const checker::FaultRecord& f : run.faults) last_heal = std::max(last_heal, f.end_ns);
  std::int64_t cutoff = (run.end_mono - run.start_mono) - 2 * period - kDueSlackNs;
  if (last_heal + a.recovery_bound_ns > cutoff) cutoff = std::min(cutoff, last_heal);
  std::vector<std::int64_t> due;
  // Window k falls due at (k+1)*period after the epoch; bounded by the cutoff.
  for (std::int64_t k = 0; run.epoch_wall_ns + (k + 1) * period - run.start_wall_ns <= cutoff; ++k) {
    due.push_back(k);
  }
  return due;
}

// The time from each takeout of the lease holder to another holder's
// acquisition, with a line saying so.
std::vector<std::int64_t> Failovers(const checker::History& history, const std::vector<Takeout>& takeouts,
                                    std::vector<std::string>& lines) {
  std::vector<std::int64_t> failovers;
  for (const Takeout& t : takeouts) {
    for (const checker::LeadershipBelief& b : history.beliefs) {
      if (b.from_ns <= t.at || b.holder == t.victim) continue;
      failovers.push_back(b.from_ns - t.at);
      lines.push_back("failover after " + t.kind + " of " + t.victim + ": " + b.holder + " acquired term " +
                      std::to_string(b.term) + " after " + Seconds(b.from_ns - t.at));
      break;
    }
  }
  return failovers;
}

void AddFigures(const FinishedRun& run, const checker::HistoryIndex& index, Judgement& j) {
  const checker::History& history = j.merged.history;
  const std::vector<std::int64_t>& renewals = j.merged.renewal_latencies_ns;
  auto& figures = j.figures;
  figures = checker::HistoryFigures(index);
  figures["due_windows"] = static_cast<std::int64_t>(history.due_windows.size());
  figures["renewals"] = static_cast<std::int64_t>(renewals.size());
  figures["renewal_latency_p50_us"] = base::NearestRank(renewals, 500) / base::kNanosPerMicro;
  figures["renewal_latency_p99_us"] = base::NearestRank(renewals, 990) / base::kNanosPerMicro;
  figures["renewal_latency_max_us"] = base::NearestRank(renewals, 1000) / base::kNanosPerMicro;
  figures["faults_injected"] = static_cast<std::int64_t>(run.faults.size());
  const std::vector<std::int64_t> failovers = Failovers(history, run.takeouts, j.failovers);
  if (!failovers.empty()) {
    figures["failovers"] = static_cast<std::int64_t>(failovers.size());
    figures["failover_ms_max"] = *std::max_element(failovers.begin(), failovers.end()) / kNanosPerMilli;
    figures["failover_ms_min"] = *std::min_element(failovers.begin(), failovers.end()) / kNanosPerMilli;
  }
}

}  // namespace

MergeInput BuildMergeInput(const LiveOptions& options, const FinishedRun& run) {
  MergeInput merge;
  merge.start_mono = run.start_mono;
  merge.end_mono = run.end_mono;
  merge.node_count = options.nodes;
  merge.journals = run.journals;
  merge.kills = run.kills;
  merge.faults = run.faults;
  merge.applied = run.applied;
  merge.assumptions = AssumptionsOf(options);
  merge.assumptions.settlement_epoch_wall_ns = run.epoch_wall_ns;
  merge.due_windows = DueWindows(run, merge.assumptions);
  return merge;
}

Judgement Judge(const LiveOptions& options, const FinishedRun& run) {
  Judgement j;
  j.merged = MergeJournals(BuildMergeInput(options, run));
  const checker::HistoryIndex index(j.merged.history);  // one index for the checks and the figures
  j.verdict = checker::CheckHistory(index);
  AddFigures(run, index, j);
  return j;
}

}  // namespace leasesim::live
