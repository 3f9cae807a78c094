#include "live/fault_injector.h"

#include <algorithm>
#include <cassert>
#include <ostream>

namespace leasesim::live {
namespace {

// The point an armed stop strikes at (the node's fault hook, node_main.cc).
constexpr const char* kArmedPoint = "before_ledger_write";

std::string NodeName(const StruckTarget& target) {
  return "n" + std::to_string(target.number) + "#" + std::to_string(target.incarnation);
}

std::vector<int> NodesOf(const LiveFaultSpec& spec, const StruckTarget& target) {
  if (spec.target != TargetKind::kNode) return {};
  return {target.number};
}

}  // namespace

void ActionQueue::At(std::int64_t at, Action action) {
  assert(pending_.size() < kMaxPending);
  pending_.push_back(Entry{at, next_seq_++, std::move(action)});
}

void ActionQueue::RunDue(std::int64_t now) {
  for (std::size_t round = 0; round < kMaxPending; ++round) {
    auto due = std::min_element(pending_.begin(), pending_.end(), [](const Entry& a, const Entry& b) {
      return a.at != b.at ? a.at < b.at : a.seq < b.seq;
    });
    if (due == pending_.end() || due->at > now) return;
    Action action = std::move(due->run);
    pending_.erase(due);
    action(now);
  }
}

FaultInjector::FaultInjector(FaultMechanisms& mechanisms, InjectorSettings settings, std::ostream& out)
    : m_(mechanisms), settings_(settings), out_(out) {}

void FaultInjector::Schedule(const std::vector<LiveFault>& faults) {
  for (const LiveFault& fault : faults) {
    queue_.At(settings_.start_mono + fault.at_ms * kNanosPerMilli,
              [this, fault](std::int64_t now) { Inject(fault, now); });
  }
}

void FaultInjector::Tick(std::int64_t now) {
  queue_.RunDue(now);
  for (const Incarnation& stopped : m_.SelfStoppedNodes()) OnSelfStop(stopped, now);
  ExpireArmed(now);
}

bool FaultInjector::Resolve(const LiveFault& fault, const LiveFaultSpec& spec, StruckTarget& target) {
  if (spec.target == TargetKind::kEtcdMember) {
    target.number = fault.leader ? m_.EtcdLeaderMember() : fault.target;
    target.who = "etcd member m" + std::to_string(target.number) + (fault.leader ? " (the etcd leader)" : "");
    return target.number > 0;
  }
  target.number = fault.leader ? m_.LeaseHolderNode() : fault.target;
  target.incarnation = target.number > 0 ? m_.RunningIncarnation(target.number) : 0;
  target.who = NodeName(target) + (fault.leader ? " (the lease holder)" : "");
  return target.incarnation > 0;
}

void FaultInjector::Inject(const LiveFault& fault, std::int64_t now) {
  const LiveFaultSpec& spec = SpecOf(fault.kind);
  StruckTarget target;
  if (!Resolve(fault, spec, target)) {
    const char* reason = spec.target == TargetKind::kEtcdMember ? "no such running member"
                         : fault.leader                        ? "no node held the lease"
                                                               : "node not running";
    Skip(spec, fault, {}, reason, now);
    return;
  }
  // Whether this takes the lease holder out, judged before the strike.
  const bool holder = spec.measures_failover && (fault.leader || target.number == m_.LeaseHolderNode());
  std::string description;
  switch (spec.strike(m_, fault, target, description)) {
    case StrikeOutcome::kSkipped:
      Skip(spec, fault, NodesOf(spec, target), description, now);
      return;
    case StrikeOutcome::kArmed:
      armed_.push_back(Armed{fault, target, holder, now + settings_.arm_timeout_ns});
      out_ << "live: " << Seconds(Rel(now)) << " " << description << "\n";
      return;
    case StrikeOutcome::kStruck:
      Struck(spec, fault, target, description, holder, now);
      return;
  }
}

void FaultInjector::Struck(const LiveFaultSpec& spec, const LiveFault& fault, const StruckTarget& target,
                           const std::string& description, bool holder, std::int64_t now) {
  const std::int64_t heal_at = now + fault.duration_ms * kNanosPerMilli;
  checker::FaultRecord record;
  record.kind = checker::FaultKindName(spec.is);
  record.nodes = NodesOf(spec, target);
  record.start_ns = Rel(now);
  record.end_ns = spec.instantaneous ? record.start_ns : Rel(heal_at);
  record.within_assumptions = spec.within_assumptions(fault, settings_.pause_budget_ms);
  record.description = description;
  if (holder) takeouts_.push_back({record.start_ns, NodeName(target), spec.name});
  Record(std::move(record));
  ScheduleHeal(spec, fault, target, heal_at);
}

void FaultInjector::ScheduleHeal(const LiveFaultSpec& spec, const LiveFault& fault, const StruckTarget& target,
                                 std::int64_t at) {
  if (spec.duration == DurationRule::kOptional && fault.duration_ms == 0) return;  // never heals
  queue_.At(at, [this, &spec, fault, target](std::int64_t now) {
    const HealNote note = spec.heal(m_, fault, target);
    if (!note.recorded) {
      if (!note.line.empty()) out_ << "live: " << Seconds(Rel(now)) << " " << note.line << "\n";
      return;
    }
    checker::FaultRecord record;
    record.kind = checker::FaultKindName(*note.recorded);
    record.nodes = NodesOf(spec, target);
    record.start_ns = record.end_ns = Rel(now);
    record.description = note.line;
    Record(std::move(record));
  });
}

void FaultInjector::OnSelfStop(const Incarnation& stopped, std::int64_t now) {
  auto it = std::find_if(armed_.begin(), armed_.end(), [&](const Armed& a) {
    return a.target.number == stopped.node && a.target.incarnation == stopped.incarnation;
  });
  if (it == armed_.end()) return;
  const Armed armed = *it;
  armed_.erase(it);
  const LiveFaultSpec& spec = SpecOf(armed.fault.kind);
  const std::int64_t heal_at = now + armed.fault.duration_ms * kNanosPerMilli;
  checker::FaultRecord record;
  record.kind = checker::FaultKindName(spec.is);
  record.nodes = {stopped.node};
  record.start_ns = Rel(now);
  record.end_ns = Rel(heal_at);
  record.within_assumptions = spec.within_assumptions(armed.fault, settings_.pause_budget_ms);
  record.at_point = kArmedPoint;
  record.description = NodeName(armed.target) + " stopped itself before a ledger write; held for " +
                       Seconds(armed.fault.duration_ms * kNanosPerMilli);
  if (armed.holder) takeouts_.push_back({record.start_ns, NodeName(armed.target), spec.name});
  Record(std::move(record));
  ScheduleHeal(spec, armed.fault, armed.target, heal_at);
}

void FaultInjector::ExpireArmed(std::int64_t now) {
  for (auto it = armed_.begin(); it != armed_.end();) {
    if (now < it->deadline) {
      ++it;
      continue;
    }
    m_.DisarmStop(it->target.number, it->target.incarnation);
    Skip(SpecOf(it->fault.kind), it->fault, {it->target.number}, "no ledger write while armed", now);
    it = armed_.erase(it);
  }
}

void FaultInjector::Skip(const LiveFaultSpec& spec, const LiveFault& fault, std::vector<int> nodes,
                         const std::string& reason, std::int64_t now) {
  checker::FaultRecord record;
  record.kind = checker::FaultKindName(spec.is);
  record.nodes = std::move(nodes);
  record.start_ns = record.end_ns = Rel(now);
  record.description = "skipped: " + fault.text + " (" + reason + ")";
  Record(std::move(record));
}

void FaultInjector::Record(checker::FaultRecord record) {
  out_ << "live: " << Seconds(record.start_ns) << " " << record.description << "\n";
  log_.push_back(std::move(record));
}

}  // namespace leasesim::live
