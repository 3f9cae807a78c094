#include "checker/lease_contract_checks.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "base/units.h"
#include "checker/breach_report.h"
#include "checker/format.h"
#include "checker/history_index.h"
#include "checker/store_writes.h"
#include "checker/violation_kind.h"

namespace leasesim::checker {
namespace {

TimeNs LeaseEnd(const StoreOp& write) { return write.applied_ns + write.value.duration_ns; }

std::string Describe(const LeadershipBelief& belief, const History& history) {
  return "node " + std::to_string(belief.node) + " (" + belief.holder + ", term " + std::to_string(belief.term) +
         ", leader from " + FormatTime(belief.from_ns) + " to " + FormatTime(BeliefEnd(belief, history)) + ")";
}

// The write that made the belief's holder leader in its term (its first
// applied record of that term), and the record it replaced (the write just
// before it, if to the same key); nulls when either is unknown.
std::pair<const StoreOp*, const StoreOp*> Takeover(const HistoryIndex& index, const LeadershipBelief& belief) {
  const std::size_t took = index.FirstRecordOf(belief.holder, belief.term);
  if (took == HistoryIndex::kNone) return {nullptr, nullptr};
  const StoreOp* write = index.writes()[took];
  const StoreOp* before = took == 0 ? nullptr : index.writes()[took - 1];
  if (before == nullptr || before->key != write->key) return {write, nullptr};
  return {write, before};
}

// The lease contract's breaches, reported alike for both sides.
using Judge = BreachReport;

// The record whose lease a belief's end is judged against; null when none.
const StoreOp* HolderRecord(const HistoryIndex& index, const LeadershipBelief& belief) {
  return index.LastRecordBy(belief.holder, belief.term, BeliefEnd(belief, index.history()));
}

void CheckHolder(const HistoryIndex& index, const LeadershipBelief& belief, Judge& judge) {
  const History& history = index.history();
  const TimeNs end = BeliefEnd(belief, history);
  const StoreOp* last = HolderRecord(index, belief);
  if (last == nullptr || end <= LeaseEnd(*last)) return;
  judge.Breach(ViolationKind::kLeaseOutlived, LeaseEnd(*last), {belief.node},
               Describe(belief, history) + " still led " + FormatDuration(end - LeaseEnd(*last)) +
                   " after the lease its last record granted ran out (applied at " + FormatTime(last->applied_ns) +
                   ", for " + FormatDuration(last->value.duration_ns) + ")");
}

// The record of another holder a belief took over; null when it took none
// (a release, its own record, or unknown).
const StoreOp* TakenRecord(const HistoryIndex& index, const LeadershipBelief& belief) {
  const auto [took, replaced] = Takeover(index, belief);
  if (took == nullptr || replaced == nullptr) return nullptr;
  if (replaced->value.holder.empty() || replaced->value.holder == belief.holder) return nullptr;
  return replaced;
}

void CheckCandidate(const HistoryIndex& index, const LeadershipBelief& belief, Judge& judge) {
  const History& history = index.history();
  const StoreOp* replaced = TakenRecord(index, belief);
  if (replaced == nullptr) return;
  if (belief.from_ns >= LeaseEnd(*replaced)) return;
  judge.Breach(ViolationKind::kEarlyTakeover, belief.from_ns, {replaced->node, belief.node},
               Describe(belief, history) + " took over " + replaced->value.holder + "'s record (term " +
                   std::to_string(replaced->value.term) + ", applied at " + FormatTime(replaced->applied_ns) +
                   " for " + FormatDuration(replaced->value.duration_ns) + ") " +
                   FormatDuration(LeaseEnd(*replaced) - belief.from_ns) + " before its lease ran out");
}

// The latest true instant a claim can mean: its boot-clock deadline reached
// at the slowest rate the drift bound allows, ceil(span / (1 - bound)).
TimeNs LatestTrueEnd(const ValidityClaim& claim, std::int64_t drift_bound_ppm) {
  return claim.at_ns + base::TrueSpanAtSlowest(claim.until_boot_ns - claim.boot_ns, drift_bound_ppm);
}

// The record whose lease a claim is judged against; null when none.
const StoreOp* ClaimRecord(const HistoryIndex& index, std::size_t i) {
  const ValidityClaim& claim = index.history().claims[i];
  if (claim.until_boot_ns <= claim.boot_ns) return nullptr;
  return index.claim_records()[i];
}

void CheckClaim(const HistoryIndex& index, std::size_t i, Judge& judge) {
  const History& history = index.history();
  const ValidityClaim& claim = history.claims[i];
  const StoreOp* last = ClaimRecord(index, i);
  if (last == nullptr) return;
  const TimeNs end = LatestTrueEnd(claim, history.assumptions.drift_bound_ppm);
  if (end <= LeaseEnd(*last)) return;
  judge.Breach(ViolationKind::kLeaseOutlived, claim.at_ns, {claim.node},
               "node " + std::to_string(claim.node) + " (" + claim.holder + ", term " + std::to_string(claim.term) +
                   ") claimed at " + FormatTime(claim.at_ns) + " a lease that, on a clock as slow as the drift " +
                   "bound allows, lasts " + FormatDuration(end - LeaseEnd(*last)) +
                   " past the lease its last record granted (applied at " + FormatTime(last->applied_ns) +
                   ", for " + FormatDuration(last->value.duration_ns) + ")");
}

// The record whose lease a ledger write is judged against: its holder's
// last record of the write's term the store applied by the send; null when
// none (a writer the store never granted that term).
const StoreOp* WriteRecord(const HistoryIndex& index, const LedgerWrite& write) {
  return index.LastRecordBy(write.holder, write.token, write.sent_ns);
}

// A write is the holder acting on its belief: sent after the lease ran out,
// it is what the timing rules exist to prevent (a pause within the budget
// between the last lease check and the send must still end inside the
// lease: renew_deadline + pause_budget < lease_duration*(1 - drift) -
// safety_margin). Fencing may make such a write harmless; the contract is
// broken all the same.
void CheckWrite(const HistoryIndex& index, const LedgerWrite& write, Judge& judge) {
  const StoreOp* last = WriteRecord(index, write);
  if (last == nullptr || write.sent_ns <= LeaseEnd(*last)) return;
  judge.Breach(ViolationKind::kLeaseOutlived, write.sent_ns, {write.node},
               "node " + std::to_string(write.node) + " (" + write.holder + ", term " + std::to_string(write.token) +
                   ") sent the write for window " + std::to_string(write.window) + " at " +
                   FormatTime(write.sent_ns) + ", " + FormatDuration(write.sent_ns - LeaseEnd(*last)) +
                   " after the lease its last record granted ran out (applied at " + FormatTime(last->applied_ns) +
                   ", for " + FormatDuration(last->value.duration_ns) + ")");
}

// Whether the history says what the contract is judged by: writes that
// took effect and when the store applied each.
bool Judgeable(const HistoryIndex& index) { return index.knows_apply_instants() && !index.writes().empty(); }

}  // namespace

void CheckLeaseContract(const History& history, Verdict& verdict) { CheckLeaseContract(HistoryIndex(history), verdict); }

void CheckLeaseContract(const HistoryIndex& index, Verdict& verdict) {
  if (!Judgeable(index)) return;
  const History& history = index.history();
  Judge judge(history, verdict, "lease contract");
  for (const LeadershipBelief& belief : history.beliefs) {
    if (belief.holder.empty() || BeliefEnd(belief, history) <= belief.from_ns) continue;
    CheckHolder(index, belief, judge);
    CheckCandidate(index, belief, judge);
  }
  for (std::size_t i = 0; i < history.claims.size(); ++i) CheckClaim(index, i, judge);
  for (const LedgerWrite& write : history.ledger_writes) CheckWrite(index, write, judge);
}

LeaseContractMargins ContractMargins(const History& history) { return ContractMargins(HistoryIndex(history)); }

LeaseContractMargins ContractMargins(const HistoryIndex& index) {
  LeaseContractMargins margins;
  if (!Judgeable(index)) return margins;
  const History& history = index.history();
  for (const LeadershipBelief& belief : history.beliefs) {
    if (belief.holder.empty() || BeliefEnd(belief, history) <= belief.from_ns) continue;
    if (const StoreOp* last = HolderRecord(index, belief); last != nullptr) {
      margins.holder_ns = std::min(margins.holder_ns, LeaseEnd(*last) - BeliefEnd(belief, history));
    }
    if (const StoreOp* replaced = TakenRecord(index, belief); replaced != nullptr) {
      margins.candidate_ns = std::min(margins.candidate_ns, belief.from_ns - LeaseEnd(*replaced));
    }
  }
  for (std::size_t i = 0; i < history.claims.size(); ++i) {
    if (const StoreOp* last = ClaimRecord(index, i); last != nullptr) {
      const TimeNs end = LatestTrueEnd(history.claims[i], history.assumptions.drift_bound_ppm);
      margins.holder_ns = std::min(margins.holder_ns, LeaseEnd(*last) - end);
    }
  }
  for (const LedgerWrite& write : history.ledger_writes) {
    if (const StoreOp* last = WriteRecord(index, write); last != nullptr) {
      margins.write_ns = std::min(margins.write_ns, LeaseEnd(*last) - write.sent_ns);
    }
  }
  return margins;
}

}  // namespace leasesim::checker
