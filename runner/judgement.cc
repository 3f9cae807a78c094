#include "runner/judgement.h"

#include <algorithm>
#include <set>

#include "base/figures.h"
#include "checker/checker.h"
#include "checker/history_figures.h"
#include "core/fault_points.h"
#include "core/probes.h"

namespace leasesim::runner {
namespace {

checker::Assumptions AssumptionsOf(const Scenario& scenario) {
  checker::Assumptions assumptions;
  assumptions.drift_bound_ppm = scenario.timing.drift_bound_ppm;
  assumptions.pause_budget_ns = scenario.timing.pause_budget;
  assumptions.lease_duration_ns = scenario.timing.lease_duration;
  assumptions.renew_interval_ns = scenario.timing.renew_interval;
  assumptions.retry_ns = scenario.timing.retry;
  assumptions.settlement_period_ns = scenario.settlement_period;
  assumptions.settlement_epoch_wall_ns = kWallClockBase;
  // The checker knows no protocol: it is told which point comes after the
  // job's last lease check (a pause there may excuse a late write).
  assumptions.last_point_before_write = std::string(core::fault_points::kBeforeLedgerWrite);
  // Nodes with a longer lease (lease.by_node) take longer to replace.
  Nanos derived_bound = core::RecoveryBound(scenario.timing);
  for (const NodeTiming& node : scenario.timing_by_node) {
    derived_bound = std::max(derived_bound, core::RecoveryBound(node.timing));
  }
  assumptions.recovery_bound_ns = scenario.recovery_bound > 0 ? scenario.recovery_bound : derived_bound;
  // The settlement job's runner looks every settlement poll, and the job
  // goes at most one ledger request between two lease checks
  // (SettlementJob::RunnerFor).
  Nanos request_timeout = scenario.timing.request_timeout;
  for (const NodeTiming& node : scenario.timing_by_node) {
    request_timeout = std::max(request_timeout, node.timing.request_timeout);
  }
  assumptions.callback_bound_ns = scenario.settlement_poll + request_timeout;
  return assumptions;
}

// The settlement windows due by the end of the run.
std::vector<std::int64_t> DueWindows(const Scenario& scenario) {
  std::vector<std::int64_t> due;
  for (std::int64_t k = 0; (k + 1) * scenario.settlement_period <= scenario.duration; ++k) due.push_back(k);
  return due;
}

// The history's own figures (shared with live runs), plus what only the
// simulator knows: protocol event counts, the number of events run, and
// the replicated store's figures.
std::map<std::string, std::int64_t> Figures(const checker::HistoryIndex& index, const RunWorld& world) {
  std::map<std::string, std::int64_t> figures = checker::HistoryFigures(index);
  for (const auto& [name, count] : world.recorder().event_counts()) figures[name] = count;
  figures["sim_events"] = static_cast<std::int64_t>(world.world().events_processed());
  // Coverage probes (core/probes.h) reached, as "probe_NAME" counts.
  const auto& probes = world.recorder().probe_counts();
  for (std::size_t i = 0; i < probes.size(); ++i) {
    if (probes[i] > 0) figures[std::string(base::kProbeFigurePrefix) + std::string(core::kProbeNames[i])] = probes[i];
  }
  if (world.replicated()) world.replicated()->AddFigures(figures);
  // Only worlds with KV stores have these (others' figures stay as they were).
  if (!index.history().kv_ops.empty()) {
    figures["kv_ops"] = static_cast<std::int64_t>(index.history().kv_ops.size());
    figures["kv_lease_expiries"] = std::count_if(
        index.history().kv_ops.begin(), index.history().kv_ops.end(),
        [](const checker::KvStoreOp& op) { return op.kind == checker::KvStoreOp::Kind::kLeaseExpire; });
  }
  return figures;
}

// A run that never reached a point the scenario expects fails: a fault
// aimed there could not have struck.
void CheckFaultPoints(const Scenario& scenario, const checker::History& history, RunResult& result,
                      const std::set<std::string>& expected) {
  for (const std::string& point : scenario.expect_fault_points) {
    if (result.figures.contains(std::string(base::kFaultPointFigurePrefix) + point)) continue;
    checker::Violation violation{
        .kind = "fault_point_not_reached",
        .message = "The scenario expects every run to reach the fault point " + point +
                   ", but this run never did: a fault aimed there could not have struck.",
        .at_ns = history.end_ns,
        .nodes = {},
    };
    result.verdict.violations.push_back(violation);
    if (!expected.contains(violation.kind)) result.unexpected.push_back(std::move(violation));
  }
}

}  // namespace

RunResult Judge(RunWorld& world, const RunOptions& options) {
  const Scenario& scenario = world.scenario();
  RunResult result;
  result.scenario = scenario.name;
  result.seed = world.world().master_seed();
  checker::History history = world.recorder().Finish(AssumptionsOf(scenario), DueWindows(scenario));
  history.kv_ops = world.TakeKvOps();
  // The checks and the figures look up the same things: indexed once.
  const checker::HistoryIndex index(history);
  result.verdict = checker::CheckHistory(index);
  const std::set<std::string> expected(scenario.expect_violations.begin(), scenario.expect_violations.end());
  for (const checker::Violation& violation : result.verdict.violations) {
    if (!expected.contains(violation.kind)) result.unexpected.push_back(violation);
  }
  result.figures = Figures(index, world);
  CheckFaultPoints(scenario, history, result, expected);
  result.trace_hash = world.world().trace().hash();
  result.trace_events = world.world().trace().count();
  if (options.retain_trace) result.trace = world.world().trace().events();
  if (options.keep_history) result.history = std::move(history);
  return result;
}

}  // namespace leasesim::runner
