#include "checker/lease_checks.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/units.h"
#include "checker/fault_kind.h"
#include "checker/format.h"
#include "checker/history_index.h"
#include "checker/store_writes.h"

namespace leasesim::checker {
namespace {

constexpr int kMaxOverlapsSpelledOut = 5;

std::string DescribeBelief(const LeadershipBelief& belief, const History& history) {
  return "node " + std::to_string(belief.node) + " (" + belief.holder + ", term " +
         std::to_string(belief.term) + ", leader from " + FormatTime(belief.from_ns) + " to " +
         FormatTime(BeliefEnd(belief, history)) + ")";
}

// One claim of a term by a holder, and where it was seen.
struct Claim {
  const std::string* holder;
  int node;
  TimeNs at_ns;
};

// Per term: its first claim, and the first claim of another holder (null
// holder when none), which is all a report needs.
class TermClaims {
 public:
  void Add(std::int64_t term, const Claim& claim) {
    assert(claim.holder != nullptr);
    // Claims come in runs of one term: its entry is looked up once a run.
    if (last_ == terms_.end() || last_->first != term) {
      bool inserted = false;
      std::tie(last_, inserted) = terms_.try_emplace(term, claim, Claim{nullptr, 0, 0});
      if (inserted) return;
    }
    auto& [first, other] = last_->second;
    if (other.holder == nullptr && *claim.holder != *first.holder) other = claim;
  }

  void Report(const char* source, Verdict& verdict) const {
    for (const auto& [term, claims] : terms_) {
      const auto& [first, claim] = claims;
      if (claim.holder == nullptr) continue;  // one report per term
      assert(first.holder != nullptr);
      assert(*claim.holder != *first.holder);  // what makes it a reuse
      verdict.violations.push_back(Violation{
          .kind = KindName(ViolationKind::kTermReuse),
          .message = "Term " + std::to_string(term) + " has two holders in the " + source + ": " +
                     *first.holder + " on node " + std::to_string(first.node) + " at " +
                     FormatTime(first.at_ns) + ", then " + *claim.holder + " on node " +
                     std::to_string(claim.node) + " at " + FormatTime(claim.at_ns) + ".",
          .at_ns = claim.at_ns,
          .nodes = {first.node, claim.node},
      });
    }
  }

 private:
  std::map<std::int64_t, std::pair<Claim, Claim>> terms_;
  std::map<std::int64_t, std::pair<Claim, Claim>>::iterator last_ = terms_.end();
};

// The lease records written to the store with a result, in the store's
// order: the applied order when each has an applied_seq (they are then
// among the writes that took effect; the index knows when every result
// has one), else by completion where either lacks one.
std::vector<const StoreOp*> RecordsWritten(const HistoryIndex& index) {
  const auto written = [](const StoreOp& op) {
    return op.kind != StoreOpKind::kRead && op.outcome == Outcome::kOk && !op.value.holder.empty();
  };
  const History& history = index.history();
  std::vector<const StoreOp*> writes;
  if (index.every_result_applied()) {
    for (const StoreOp* op : index.writes()) {
      if (written(*op)) writes.push_back(op);
    }
    return writes;
  }
  for (const StoreOp& op : history.store_ops) {
    if (written(op)) writes.push_back(&op);
  }
  std::stable_sort(writes.begin(), writes.end(), [](const StoreOp* a, const StoreOp* b) {
    if (a->applied_seq >= 0 && b->applied_seq >= 0) return a->applied_seq < b->applied_seq;
    return a->complete_ns < b->complete_ns;
  });
  return writes;
}

// Whether the verdict already holds a write fencing should have stopped.
bool FencingDidNotHold(const Verdict& verdict) {
  return std::any_of(verdict.violations.begin(), verdict.violations.end(), [](const Violation& v) {
    return v.kind == KindName(ViolationKind::kStaleTokenWrite) || v.kind == KindName(ViolationKind::kDualWriter);
  });
}

}  // namespace

void CheckTermReuse(const History& history, Verdict& verdict) { CheckTermReuse(HistoryIndex(history), verdict); }

void CheckTermReuse(const HistoryIndex& index, Verdict& verdict) {
  const History& history = index.history();
  TermClaims from_beliefs;
  std::vector<const LeadershipBelief*> beliefs;
  for (const LeadershipBelief& belief : history.beliefs) beliefs.push_back(&belief);
  std::stable_sort(beliefs.begin(), beliefs.end(), [](const auto* a, const auto* b) {
    return a->from_ns < b->from_ns;
  });
  for (const LeadershipBelief* belief : beliefs) {
    if (belief->holder.empty()) continue;
    from_beliefs.Add(belief->term, {&belief->holder, belief->node, belief->from_ns});
  }
  from_beliefs.Report("leadership beliefs", verdict);

  TermClaims from_store;
  for (const StoreOp* op : RecordsWritten(index)) {
    from_store.Add(op->value.term, {&op->value.holder, op->node, op->complete_ns});
  }
  from_store.Report("lease records written to the store", verdict);
}

void CheckLeaseOverlap(const History& history, Verdict& verdict) {
  std::vector<const LeadershipBelief*> beliefs;
  for (const LeadershipBelief& belief : history.beliefs) {
    if (BeliefEnd(belief, history) > belief.from_ns) beliefs.push_back(&belief);
  }
  std::stable_sort(beliefs.begin(), beliefs.end(), [](const auto* a, const auto* b) {
    return a->from_ns < b->from_ns;
  });
  const bool fencing_failed = FencingDidNotHold(verdict);
  int violations = 0, excused = 0;
  // Sweep in start order; `active` holds beliefs that may still be running.
  std::vector<const LeadershipBelief*> active;
  for (const LeadershipBelief* belief : beliefs) {
    std::erase_if(active, [&](const LeadershipBelief* other) {
      return BeliefEnd(*other, history) <= belief->from_ns;
    });
    for (const LeadershipBelief* other : active) {
      if (other->holder == belief->holder) continue;
      const TimeNs overlap_from = belief->from_ns;
      const TimeNs overlap_until = std::min(BeliefEnd(*belief, history), BeliefEnd(*other, history));
      // The sweep's invariant: `other` began no later and is still running,
      // and `belief` has a positive length, so they share a real interval.
      assert(other->from_ns <= overlap_from);
      assert(overlap_from < overlap_until);
      // Faults that could explain it: outside the assumptions and begun by
      // the time the overlap ended.
      const FaultRecord* cause = nullptr;
      for (const FaultRecord& fault : history.faults) {
        if (!fault.within_assumptions && fault.start_ns <= overlap_until) {
          cause = &fault;
          break;
        }
      }
      const std::string what = DescribeBelief(*other, history) + " and " +
                               DescribeBelief(*belief, history) + " both believed they led from " +
                               FormatTime(overlap_from) + " to " + FormatTime(overlap_until);
      if (cause == nullptr) {
        if (++violations <= kMaxOverlapsSpelledOut) {
          verdict.violations.push_back(Violation{
              .kind = KindName(ViolationKind::kLeaseOverlap),
              .message = what + ", although every fault stayed within the stated assumptions.",
              .at_ns = overlap_from,
              .nodes = {other->node, belief->node},
          });
        }
      } else if (++excused <= kMaxOverlapsSpelledOut) {
        verdict.notes.push_back(
            std::string(fencing_failed ? "lease overlap outside the assumptions, NOT fenced: "
                                       : "lease overlap, expected-and-fenced: ") +
            what + "; the " + cause->kind + " fault at " + FormatTime(cause->start_ns) +
            " exceeded the stated assumptions" +
            (fencing_failed ? ", and fencing did not hold." : ", and fencing held."));
      }
    }
    active.push_back(belief);
  }
  if (violations > kMaxOverlapsSpelledOut) {
    verdict.notes.push_back(std::to_string(violations - kMaxOverlapsSpelledOut) +
                            " further lease overlaps within the assumptions not listed.");
  }
  if (excused > kMaxOverlapsSpelledOut) {
    verdict.notes.push_back(std::to_string(excused - kMaxOverlapsSpelledOut) +
                            " further expected lease overlaps not listed.");
  }
}

namespace {

// A buggy node usually writes outside its lease many times; the first few
// are spelled out and the rest counted, so the report stays readable.
constexpr int kMaxWritesSpelledOut = 10;

// Whether a pause was in progress when `write`'s deadline passed, at the
// protocol's last point before a write (or at no point: a timed pause). The
// correct protocol checks its lease again after every other point, so only
// a pause at the last one can leave its write late.
bool PausedWhenDeadlinePassed(const History& history, const LedgerWrite& write) {
  // The writer itself says it stood still after its last lease check for at
  // least as long as it is late: whatever paused the host (another task's
  // point, a hiccup), the deadline passed after the check.
  if (write.stalled_ns > 0 && write.late_ns <= write.stalled_ns) return true;
  const TimeNs deadline_passed = write.sent_ns - write.late_ns;
  for (const FaultRecord& fault : history.faults) {
    if (!IsFaultKind(fault.kind, FaultKind::kPause) && !IsFaultKind(fault.kind, FaultKind::kSuspend)) continue;
    if (!fault.at_point.empty() && fault.at_point != history.assumptions.last_point_before_write) continue;
    if (std::find(fault.nodes.begin(), fault.nodes.end(), write.node) == fault.nodes.end()) continue;
    if (fault.start_ns <= deadline_passed && deadline_passed <= fault.end_ns) return true;
  }
  return false;
}

// Late by no more than the pause budget because a pause was in progress
// when its deadline passed (between its lease check and the send): what the
// timing rule renew_deadline + pause_budget < duration*(1-drift) - margin
// allows for. Late without such a pause is the protocol's doing.
// The budget is true time, the lateness the writer's own clock: a clock fast
// by the drift bound reads a pause of the whole budget as that much longer
// (found by the generic search: a pause of exactly the 9,704 ms budget read
// as 9,756 ms on a clock 0.53% fast).
bool LateWithinPauseBudget(const History& history, const LedgerWrite& write) {
  if (write.lease_valid_at_send || write.late_ns <= 0) return false;
  const TimeNs budget = base::LocalSpanAtFastest(history.assumptions.pause_budget_ns, history.assumptions.drift_bound_ppm);
  return write.late_ns <= budget && PausedWhenDeadlinePassed(history, write);
}

// A fault beyond the stated assumptions (a pause longer than the budget,
// between its lease check and its write) that hit the writer before it sent:
// such a write is expected to be late; that is what fencing is for.
const FaultRecord* ExcusingFault(const History& history, const LedgerWrite& write) {
  for (const FaultRecord& fault : history.faults) {
    if (fault.within_assumptions || fault.start_ns > write.sent_ns) continue;
    if (fault.nodes.empty() || std::find(fault.nodes.begin(), fault.nodes.end(), write.node) != fault.nodes.end()) {
      return &fault;
    }
  }
  return nullptr;
}

std::string WriterName(const LedgerWrite& write) {
  return "node " + std::to_string(write.node) + " (" + write.holder + ", term " + std::to_string(write.token) + ")";
}

std::string OutcomeWords(LedgerResult result) {
  switch (result) {
    case LedgerResult::kApplied: return "the ledger applied it";
    case LedgerResult::kRejectedStale: return "the ledger fenced it";
    case LedgerResult::kDuplicate: return "the ledger returned an earlier result";
    case LedgerResult::kLost: return "it never reached the ledger";
  }
  return "it never reached the ledger";
}

std::string ExpectedLateNote(const LedgerWrite& write, const FaultRecord& cause) {
  return "write outside lease, expected: " + WriterName(write) + " sent window " + std::to_string(write.window) +
         " at " + FormatTime(write.sent_ns) + " after the " + cause.kind + " fault at " + FormatTime(cause.start_ns) +
         " exceeded the stated assumptions" +
         (write.result == LedgerResult::kApplied ? "; the ledger APPLIED it." : "; the ledger did not apply it.");
}

// The writers' own beliefs, to judge writes their writer believed valid.
class BeliefIndex {
 public:
  explicit BeliefIndex(const History& history) : history_(history) {
    for (const LeadershipBelief& belief : history.beliefs) {
      by_lease_[{belief.term, belief.holder}].push_back(&belief);
      holders_.insert(belief.holder);
    }
  }

  // A violation when `write` was sent outside every interval in which its
  // holder believed it led under its token; none when covered, or when the
  // history records no beliefs of that holder (nothing to judge by).
  std::optional<Violation> Uncovered(const LedgerWrite& write) const {
    TimeNs last_until = kNeverNs;
    if (auto it = by_lease_.find({write.token, write.holder}); it != by_lease_.end()) {
      for (const LeadershipBelief* belief : it->second) {
        const TimeNs until = BeliefEnd(*belief, history_);
        if (belief->from_ns <= write.sent_ns && write.sent_ns <= until) return std::nullopt;
        if (until < write.sent_ns) last_until = until;
      }
    }
    // Uncovered: judged only by a holder's own beliefs (a covered write,
    // the common case, needs no look at the holders).
    if (!holders_.contains(write.holder)) return std::nullopt;
    return Violation{
        .kind = KindName(ViolationKind::kWriteOutsideLease),
        .message = WriterName(write) + " sent the write for window " + std::to_string(write.window) + " at " +
                   FormatTime(write.sent_ns) + ", outside every interval in which it believed it led" +
                   (last_until != kNeverNs ? " (its lease in that term ended at " + FormatTime(last_until) + ")"
                                           : " under that term") +
                   "; " + OutcomeWords(write.result) + ".",
        .at_ns = write.sent_ns,
        .nodes = {write.node},
    };
  }

 private:
  const History& history_;
  // Keyed (term, holder) by views: a lookup compares names only within a
  // term, and copies none.
  std::map<std::pair<std::int64_t, std::string_view>, std::vector<const LeadershipBelief*>> by_lease_;
  std::set<std::string_view> holders_;
};

Violation SentWithLapsedLease(const LedgerWrite& write) {
  return Violation{
      .kind = KindName(ViolationKind::kWriteOutsideLease),
      .message = WriterName(write) + " sent the write for window " + std::to_string(write.window) + " at " +
                 FormatTime(write.sent_ns) + " although by its own clock its lease was no longer valid; " +
                 OutcomeWords(write.result) + ".",
      .at_ns = write.sent_ns,
      .nodes = {write.node},
  };
}

}  // namespace

void CheckWriteOutsideLease(const History& history, Verdict& verdict) {
  const BeliefIndex beliefs(history);
  int found = 0;
  int excused = 0;
  for (const LedgerWrite& write : history.ledger_writes) {
    if (LateWithinPauseBudget(history, write)) continue;
    const bool late = !write.lease_valid_at_send;
    if (const FaultRecord* cause = late ? ExcusingFault(history, write) : nullptr; cause != nullptr) {
      if (++excused <= kMaxWritesSpelledOut) verdict.notes.push_back(ExpectedLateNote(write, *cause));
      continue;
    }
    std::optional<Violation> violation = late ? SentWithLapsedLease(write) : beliefs.Uncovered(write);
    if (violation && ++found <= kMaxWritesSpelledOut) verdict.violations.push_back(std::move(*violation));
  }
  if (found > kMaxWritesSpelledOut) {
    verdict.notes.push_back(std::to_string(found - kMaxWritesSpelledOut) +
                            " further writes outside a lease not listed.");
  }
}

}  // namespace leasesim::checker
