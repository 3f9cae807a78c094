#include "runner/recorder.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <utility>

#include "base/figures.h"

namespace leasesim::runner {
namespace {

// In place, not through a temporary: the holder's name is copied once.
void AssignValue(checker::LeaseValue& value, const core::LeaseRecord& record) {
  value.holder = record.holder;
  value.term = record.term;
  value.duration_ns = record.duration_ns;
}

}  // namespace

Recorder::Recorder(sim::World& world, std::vector<sim::HostId> node_hosts)
    : world_(world), node_hosts_(std::move(node_hosts)), open_beliefs_(node_hosts_.size()) {
  history_.node_count = static_cast<int>(node_hosts_.size());
}

checker::StoreOp& Recorder::NewStoreOp(int node, std::string_view process, const std::string& key) {
  // An op is a few hundred bytes of strings and values: it is built in
  // place (no temporary moved in), its names assigned over empty ones; the
  // rest take their defaults.
  const auto id = static_cast<std::int64_t>(history_.store_ops.size());
  checker::StoreOp& op = history_.store_ops.emplace_back();
  op.id = id;
  op.node = node;
  op.process.assign(process);
  op.key.assign(key);
  op.invoke_ns = world_.now();
  return op;
}

std::int64_t Recorder::StoreInvoked(int node, std::string_view process, backends::StoreOpKind kind,
                                    const std::string& key, std::int64_t expected_version,
                                    const core::LeaseRecord& value) {
  checker::StoreOp& op = NewStoreOp(node, process, key);
  switch (kind) {
    case backends::StoreOpKind::kRead: op.kind = checker::StoreOpKind::kRead; break;
    case backends::StoreOpKind::kCreate: op.kind = checker::StoreOpKind::kCreate; break;
    case backends::StoreOpKind::kCas: op.kind = checker::StoreOpKind::kCas; break;
  }
  op.expected_version = expected_version;
  if (kind != backends::StoreOpKind::kRead) AssignValue(op.value, value);
  return op.id;
}

void Recorder::StoreApplied(std::int64_t op, std::int64_t applied_seq) {
  assert(op >= 0);
  assert(op < static_cast<std::int64_t>(history_.store_ops.size()));
  history_.store_ops[static_cast<std::size_t>(op)].applied_seq = applied_seq;
  history_.store_ops[static_cast<std::size_t>(op)].applied_ns = world_.now();
}

std::int64_t Recorder::WatchAnswered(int node, const std::string& process, const std::string& key,
                                     std::int64_t applied_seq) {
  checker::StoreOp& op = NewStoreOp(node, process, key);
  op.kind = checker::StoreOpKind::kRead;
  op.watch_answer = true;
  op.applied_seq = applied_seq;
  op.applied_ns = op.invoke_ns;
  return op.id;
}

void Recorder::StoreCompleted(std::int64_t id, const core::StoreResult& result) {
  assert(id >= 0);
  assert(id < static_cast<std::int64_t>(history_.store_ops.size()));
  checker::StoreOp& op = history_.store_ops[static_cast<std::size_t>(id)];
  switch (result.status) {
    case core::StoreStatus::kOk:
      op.outcome = checker::Outcome::kOk;
      op.complete_ns = world_.now();
      op.found = result.current.found;
      op.version = result.current.version;
      if (op.kind == checker::StoreOpKind::kRead) AssignValue(op.read_value, result.current.record);
      break;
    case core::StoreStatus::kConflict:
    case core::StoreStatus::kUnavailable:
      op.outcome = checker::Outcome::kFail;
      op.complete_ns = world_.now();
      op.found = result.current.found;
      op.version = result.current.version;
      AssignValue(op.read_value, result.current.record);
      break;
    case core::StoreStatus::kTimeout:
      op.outcome = checker::Outcome::kUnknown;
      op.complete_ns = checker::kNeverNs;
      break;
  }
}

std::int64_t Recorder::LedgerSent(int node, const std::string& holder, const core::SettlementBatch& batch,
                                  const backends::LedgerSendFacts& facts) {
  checker::LedgerWrite& write = history_.ledger_writes.emplace_back();
  write.id = static_cast<std::int64_t>(history_.ledger_writes.size()) - 1;
  write.node = node;
  write.holder = holder;
  write.token = batch.token;
  write.idempotency_key = batch.idempotency_key;
  write.window = batch.window;
  write.sent_ns = world_.now();
  write.lease_valid_at_send = facts.late_ns == 0;
  write.late_ns = facts.late_ns;
  write.stalled_ns = facts.stalled_ns;
  write.wall_seen_ns = facts.wall_seen_ns;
  return write.id;
}

void Recorder::LedgerArrived(std::int64_t id, core::LedgerStatus status) {
  assert(id >= 0);
  assert(id < static_cast<std::int64_t>(history_.ledger_writes.size()));
  checker::LedgerWrite& write = history_.ledger_writes[static_cast<std::size_t>(id)];
  write.arrived_ns = world_.now();
  switch (status) {
    case core::LedgerStatus::kApplied: write.result = checker::LedgerResult::kApplied; break;
    case core::LedgerStatus::kRejectedStale: write.result = checker::LedgerResult::kRejectedStale; break;
    case core::LedgerStatus::kDuplicate: write.result = checker::LedgerResult::kDuplicate; break;
    case core::LedgerStatus::kUnavailable:
    case core::LedgerStatus::kTimeout: write.result = checker::LedgerResult::kLost; break;
  }
}

sim::Nanos Recorder::DeadlineInTrueTime(int node, sim::Nanos local_deadline) const {
  const sim::HostId host = node_hosts_.at(static_cast<std::size_t>(node - 1));
  // Deadlines are on the node's boot clock (core counts validity there).
  return world_.clock(host).TrueTimeAtBoot(local_deadline);
}

sim::Nanos Recorder::ClaimEndsInTrueTime(int node, const OpenBelief& open) const {
  if (open.local_deadline <= 0) return std::numeric_limits<sim::Nanos>::max();
  return DeadlineInTrueTime(node, open.local_deadline);
}

const std::optional<Recorder::OpenBelief>& Recorder::OpenBeliefOf(int node) const {
  assert(node >= 1);
  assert(node <= static_cast<int>(open_beliefs_.size()));
  return open_beliefs_[static_cast<std::size_t>(node - 1)];
}

std::optional<Recorder::OpenBelief>& Recorder::OpenBeliefOf(int node) {
  return const_cast<std::optional<OpenBelief>&>(std::as_const(*this).OpenBeliefOf(node));
}

void Recorder::CloseBelief(int node, const std::string& reason) {
  std::optional<OpenBelief>& open = OpenBeliefOf(node);
  if (!open.has_value()) return;
  checker::LeadershipBelief& belief = history_.beliefs.emplace_back(std::move(open->belief));
  belief.until_ns = std::min(world_.now(), ClaimEndsInTrueTime(node, *open));
  belief.until_ns = std::max(belief.until_ns, belief.from_ns);
  belief.end_reason = reason;
  open.reset();
}

void Recorder::RecordClaim(int node, const core::LeaseEvent& event) {
  checker::ValidityClaim& claim = history_.claims.emplace_back();
  claim.node = node;
  claim.holder = event.holder;
  claim.term = event.term;
  claim.at_ns = world_.now();
  claim.boot_ns = event.boot_ns;
  claim.until_boot_ns = event.valid_until_ns;
}

void Recorder::ProtocolEvent(int node, const core::LeaseEvent& event) {
  switch (event.kind) {
    case core::EventKind::kAcquired: {
      CloseBelief(node, "reacquired");
      OpenBelief& open = OpenBeliefOf(node).emplace();
      open.belief.node = node;
      open.belief.holder = event.holder;
      open.belief.term = event.term;
      open.belief.from_ns = world_.now();
      open.local_deadline = event.valid_until_ns;
      if (event.valid_until_ns > 0) RecordClaim(node, event);
      break;
    }
    case core::EventKind::kRenewed: {
      renewals_ok_ += 1;
      std::optional<OpenBelief>& open = OpenBeliefOf(node);
      if (!open.has_value()) break;
      open->local_deadline = event.valid_until_ns;
      if (event.valid_until_ns > 0) RecordClaim(node, event);
      break;
    }
    case core::EventKind::kRenewFailed:
      rare_counts_["renew_failed_" + event.reason] += 1;
      break;
    case core::EventKind::kDemoted:
      CloseBelief(node, event.reason);
      break;
    case core::EventKind::kReleased:
      CloseBelief(node, "released");
      break;
    case core::EventKind::kLeadingStarted:
    case core::EventKind::kLeadingStopped:
    case core::EventKind::kJobStep:
    case core::EventKind::kNewLeaderReported:
    case core::EventKind::kMetric:
      RecordObservation(node, event);
      break;
    default:
      break;
  }
}

void Recorder::RecordObservation(int node, const core::LeaseEvent& event) {
  if (event.kind == core::EventKind::kMetric) {
    history_.metrics.push_back(checker::MetricSample{
        .node = node, .process = event.holder, .name = event.metric, .value = event.value, .at_ns = world_.now()});
    return;
  }
  checker::CallbackRecord& c = history_.callbacks.emplace_back(
      checker::CallbackRecord{.node = node, .process = event.holder, .term = event.term, .at_ns = world_.now()});
  switch (event.kind) {
    case core::EventKind::kLeadingStarted: c.kind = checker::CallbackKind::kStarted; break;
    case core::EventKind::kLeadingStopped:
      c.kind = checker::CallbackKind::kStopped;
      c.reason = event.reason;
      break;
    case core::EventKind::kJobStep:
      c.kind = checker::CallbackKind::kJobStep;
      c.lease_valid = event.value != 0;
      break;
    default:
      c.kind = checker::CallbackKind::kNewLeader;
      c.leader = event.other;
      break;
  }
}

bool Recorder::FaultPointReached(int node, core::FaultPoint point) {
  const auto index = static_cast<std::size_t>(point);
  assert(index < fault_point_counts_.size());
  fault_point_counts_[index] += 1;
  return fault_point_action_ && fault_point_action_(node, point);
}

std::map<std::string, std::int64_t> Recorder::event_counts() const {
  std::map<std::string, std::int64_t> counts = rare_counts_;
  if (renewals_ok_ > 0) counts["renewals_ok"] = renewals_ok_;
  for (std::size_t i = 0; i < fault_point_counts_.size(); ++i) {
    if (fault_point_counts_[i] > 0) counts[std::string(base::kFaultPointFigurePrefix) + std::string(core::kFaultPointNames[i])] += fault_point_counts_[i];
  }
  return counts;
}

void Recorder::ProbeReached(int node, core::Probe probe) {
  (void)node;
  probe_counts_[static_cast<std::size_t>(probe)] += 1;
}

void Recorder::NodeCrashed(int node) { CloseBelief(node, "crash"); }

void Recorder::AddFault(checker::FaultRecord fault) { history_.faults.push_back(std::move(fault)); }

std::optional<int> Recorder::CurrentLeader() const {
  std::optional<int> leader;
  std::int64_t best_term = -1;
  for (std::size_t i = 0; i < open_beliefs_.size(); ++i) {
    const std::optional<OpenBelief>& open = open_beliefs_[i];
    const int node = static_cast<int>(i) + 1;
    if (!open.has_value()) continue;
    if (ClaimEndsInTrueTime(node, *open) <= world_.now()) continue;
    if (open->belief.term > best_term) {
      best_term = open->belief.term;
      leader = node;
    }
  }
  return leader;
}

std::optional<sim::Nanos> Recorder::RemainingLease(int node) const {
  const std::optional<OpenBelief>& open = OpenBeliefOf(node);
  if (!open.has_value() || open->local_deadline <= 0) return std::nullopt;
  const sim::HostId host = node_hosts_.at(static_cast<std::size_t>(node - 1));
  return open->local_deadline - world_.clock(host).Boot(world_.now());
}

checker::History Recorder::Finish(checker::Assumptions assumptions, std::vector<std::int64_t> due_windows) {
  for (int node = 1; node <= static_cast<int>(open_beliefs_.size()); ++node) CloseBelief(node, "end_of_run");
  std::stable_sort(history_.beliefs.begin(), history_.beliefs.end(),
                   [](const checker::LeadershipBelief& a, const checker::LeadershipBelief& b) {
                     return a.from_ns < b.from_ns;
                   });
  history_.assumptions = assumptions;
  history_.end_ns = world_.now();
  history_.due_windows = std::move(due_windows);
  return std::move(history_);
}

}  // namespace leasesim::runner
