#include "runner/sweep_timeline.h"

#include <algorithm>

#include "checker/store_writes.h"
#include "reports/html_report.h"
#include "reports/summary_json.h"
#include "runner/sweep.h"

namespace leasesim::runner {
namespace {

const char* ResultName(checker::LedgerResult result) {
  switch (result) {
    case checker::LedgerResult::kApplied: return "applied";
    case checker::LedgerResult::kRejectedStale: return "rejected_stale";
    case checker::LedgerResult::kDuplicate: return "duplicate";
    case checker::LedgerResult::kLost: return "lost";
  }
  return "unknown";
}

std::vector<reports::TimelineHolder> StoreHolders(const checker::History& history) {
  std::vector<reports::TimelineHolder> holders;
  const std::vector<const checker::StoreOp*> writes = checker::WritesThatTookEffect(history);
  if (writes.empty()) return holders;
  const std::string& key = writes.front()->key;  // the lease record's key
  checker::TimeNs previous = 0;
  for (const checker::StoreOp* op : writes) {
    if (op->key != key) continue;
    checker::TimeNs at = op->outcome == checker::Outcome::kOk && op->complete_ns != checker::kNeverNs
                             ? op->complete_ns
                             : op->invoke_ns;
    at = std::max(at, previous);
    previous = at;
    if (!holders.empty()) {
      reports::TimelineHolder& last = holders.back();
      if (last.holder == op->value.holder && last.term == op->value.term) continue;  // a renewal
      last.until_ns = at;
    }
    holders.push_back({op->node, op->value.holder, op->value.term, at, history.end_ns});
  }
  // Drop spans that a later write replaced at the same instant.
  std::erase_if(holders, [](const reports::TimelineHolder& h) { return h.until_ns <= h.from_ns; });
  return holders;
}

}  // namespace

reports::Timeline BuildTimeline(const RunResult& result, const std::string& file, const std::string& protocol) {
  const checker::History& history = result.history;
  reports::Timeline t;
  t.scenario = result.scenario;
  t.seed = result.seed;
  t.ok = result.ok();
  t.trace_hash = result.trace_hash;
  t.node_count = history.node_count;
  t.end_ns = history.end_ns;
  t.replay_command = ReplayCommand(file, result.scenario, result.seed, protocol);
  for (const checker::LeadershipBelief& b : history.beliefs) {
    t.beliefs.push_back({b.node, b.holder, b.term, b.from_ns, b.until_ns, b.end_reason});
  }
  t.holders = StoreHolders(history);
  for (const checker::FaultRecord& f : history.faults) {
    t.faults.push_back({f.kind, f.nodes, f.start_ns, f.end_ns, f.within_assumptions, f.description});
  }
  for (const checker::LedgerWrite& w : history.ledger_writes) {
    t.writes.push_back({w.node, w.holder, w.token, w.window, w.sent_ns,
                        w.arrived_ns == checker::kNeverNs ? -1 : w.arrived_ns, ResultName(w.result),
                        w.lease_valid_at_send});
  }
  for (const checker::Violation& v : result.verdict.violations) {
    bool expected = true;
    for (const checker::Violation& u : result.unexpected) {
      if (u.kind == v.kind && u.message == v.message) expected = false;
    }
    t.violations.push_back({v.kind, v.message, v.at_ns, v.nodes, expected});
  }
  t.notes = result.verdict.notes;
  return t;
}

std::string WriteTimelineHtml(const std::string& path, const RunResult& result, const std::string& file,
                              const std::string& protocol) {
  return reports::WriteFileAtomically(path, reports::TimelineHtml(BuildTimeline(result, file, protocol)));
}

}  // namespace leasesim::runner
