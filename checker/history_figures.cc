#include "checker/history_figures.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "checker/lease_contract_checks.h"

namespace leasesim::checker {

using base::kNanosPerMilli;

std::int64_t RecoveryMs(const History& history) {
  TimeNs healed = -1;
  for (const FaultRecord& fault : history.faults) healed = std::max(healed, fault.end_ns);
  if (healed < 0) return 0;
  TimeNs first = kNeverNs;
  for (const LeadershipBelief& belief : history.beliefs) {
    if (belief.until_ns <= healed) continue;
    first = std::min(first, std::max(belief.from_ns, healed));
  }
  if (first == kNeverNs) return -1;
  return (first - healed) / kNanosPerMilli;
}

// True time during which two or more nodes believed they led at once: the
// near miss every split-brain bug passes through (zero unless something
// went beyond the protocol's assumptions, or the protocol is wrong).
std::vector<std::pair<TimeNs, TimeNs>> OverlapSpans(const History& history) {
  std::vector<std::pair<TimeNs, int>> edges;
  for (const LeadershipBelief& belief : history.beliefs) {
    if (belief.until_ns <= belief.from_ns) continue;
    edges.emplace_back(belief.from_ns, +1);
    edges.emplace_back(belief.until_ns, -1);
  }
  std::sort(edges.begin(), edges.end());
  std::vector<std::pair<TimeNs, TimeNs>> spans;
  int leading = 0;
  TimeNs since = 0;
  for (const auto& [at, change] : edges) {
    if (leading >= 2 && at > since) spans.emplace_back(since, at);
    leading += change;
    since = at;
  }
  return spans;
}

// Ledger writes sent while two or more nodes believed they led: the writes
// that race at the resource, the ones fencing exists for.
std::int64_t WritesDuringOverlap(const History& history, const std::vector<std::pair<TimeNs, TimeNs>>& spans) {
  std::int64_t racing = 0;
  for (const LedgerWrite& write : history.ledger_writes) {
    for (const auto& [from, until] : spans) {
      if (from <= write.sent_ns && write.sent_ns < until) {
        ++racing;
        break;
      }
    }
  }
  return racing;
}

// The store's operations, those of unknown outcome, and the slowest call
// that completed, invoke to reply (a reply late enough to matter is the
// near miss of every deadline counted wrongly): one pass.
void AddStoreFigures(const History& history, std::map<std::string, std::int64_t>& figures) {
  TimeNs slowest = 0;
  std::int64_t unknown = 0;
  for (const StoreOp& op : history.store_ops) {
    if (op.complete_ns != kNeverNs) slowest = std::max(slowest, op.complete_ns - op.invoke_ns);
    if (op.outcome == Outcome::kUnknown) ++unknown;
  }
  figures["store_call_max_ms"] = slowest / kNanosPerMilli;
  figures["store_ops"] = static_cast<std::int64_t>(history.store_ops.size());
  figures["store_ops_unknown"] = unknown;
}

// The closest call of a handover: the least time from a leader's belief
// ending on its own (its deadline, a detected pause or store refusal) to
// another node's belief starting, plus one so that touching still counts.
// Zero when no such handover happened. As overlap_ms is the miss, this is
// the near miss: a search that keeps cases with ever smaller gaps is drawn
// toward an overlap without knowing what makes one (a release, a crash or
// a fenced demotion ends a belief early, so only self-ended beliefs count).
std::int64_t HandoverGapMinMs(const History& history) {
  TimeNs least = kNeverNs;
  for (const LeadershipBelief& ended : history.beliefs) {
    const std::string& why = ended.end_reason;
    if (why == "released" || why == "crash" || why == "end_of_run" || why == "reacquired" || why == "fenced") continue;
    for (const LeadershipBelief& next : history.beliefs) {
      if (next.node == ended.node || next.from_ns < ended.until_ns || next.from_ns <= ended.from_ns) continue;
      least = std::min(least, next.from_ns - ended.until_ns);
    }
  }
  if (least == kNeverNs) return 0;
  return least / kNanosPerMilli + 1;
}

// Writes that reached the ledger with a token older than one it had
// already applied: the writes fencing exists for. How close such a write
// came to doing harm is how late it was for its window: a key the ledger
// had not yet applied would have been settled by the stale writer, had
// the fence not stood in the way (unsettled); otherwise it lost the race
// for its window by the time since the key was applied (lost_by, the least
// of them plus one, so that a tie still counts). Zero when nothing stale
// arrived. As handover_gap_min_ms draws the search toward two leaders,
// this draws it toward a stale write that wins, knowing nothing of why.
struct StaleArrivals {
  std::int64_t count = 0;
  std::int64_t unsettled = 0;
  std::int64_t lost_by_min_ms = 0;
};

// The first applied arrival of each idempotency key, as (key, position in
// the arrival order, arrived_ns), by key: looked up only when something
// stale arrived, so a clean run never compares a key.
std::vector<std::tuple<std::string_view, std::size_t, TimeNs>> FirstApplied(
    const std::vector<const LedgerWrite*>& arrivals) {
  std::vector<std::tuple<std::string_view, std::size_t, TimeNs>> first;
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    if (arrivals[i]->result == LedgerResult::kApplied) first.emplace_back(arrivals[i]->idempotency_key, i, arrivals[i]->arrived_ns);
  }
  std::sort(first.begin(), first.end());
  const auto same_key = [](const auto& a, const auto& b) { return std::get<0>(a) == std::get<0>(b); };
  first.erase(std::unique(first.begin(), first.end(), same_key), first.end());
  return first;
}

StaleArrivals StaleArrivalsOf(const History& history) {
  std::vector<const LedgerWrite*> arrivals;
  for (const LedgerWrite& write : history.ledger_writes) {
    if (write.arrived_ns != kNeverNs) arrivals.push_back(&write);
  }
  const auto before = [](const LedgerWrite* a, const LedgerWrite* b) { return a->arrived_ns < b->arrived_ns; };
  if (!std::is_sorted(arrivals.begin(), arrivals.end(), before)) std::stable_sort(arrivals.begin(), arrivals.end(), before);
  std::vector<std::size_t> stale_at;  // positions of the stale arrivals
  std::int64_t highest_applied = 0;
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    if (arrivals[i]->token < highest_applied) stale_at.push_back(i);
    if (arrivals[i]->result == LedgerResult::kApplied) highest_applied = std::max(highest_applied, arrivals[i]->token);
  }
  StaleArrivals stale;
  stale.count = static_cast<std::int64_t>(stale_at.size());
  if (stale_at.empty()) return stale;
  const auto first = FirstApplied(arrivals);
  TimeNs least = kNeverNs;
  for (std::size_t i : stale_at) {
    const LedgerWrite* write = arrivals[i];
    // Settled: its key was applied by an arrival before this one.
    const auto settled = std::lower_bound(first.begin(), first.end(), write->idempotency_key,
                                          [](const auto& entry, std::string_view key) { return std::get<0>(entry) < key; });
    if (write->idempotency_key.empty() || settled == first.end() || std::get<0>(*settled) != write->idempotency_key ||
        std::get<1>(*settled) >= i) {
      stale.unsettled += 1;
    } else {
      least = std::min(least, write->arrived_ns - std::get<2>(*settled));
    }
  }
  if (least != kNeverNs) stale.lost_by_min_ms = least / kNanosPerMilli + 1;
  return stale;
}

// A margin as a close-call figure: 1 ms plus the margin in whole ms, at
// least 1 (a breach is as close as it gets); 0 when nothing was judged.
std::int64_t MarginFigureMs(TimeNs margin) {
  if (margin == kNeverNs) return 0;
  return std::max<TimeNs>(0, margin) / kNanosPerMilli + 1;
}

// The ledger's outcomes, counted before they are named: a figure is there
// only when some write counts toward it.
void AddLedgerFigures(const History& history, std::map<std::string, std::int64_t>& figures) {
  std::int64_t after_lease = 0, applied = 0, rejected = 0, duplicate = 0, lost = 0;
  for (const LedgerWrite& write : history.ledger_writes) {
    if (!write.lease_valid_at_send) ++after_lease;
    switch (write.result) {
      case LedgerResult::kApplied: ++applied; break;
      case LedgerResult::kRejectedStale: ++rejected; break;
      case LedgerResult::kDuplicate: ++duplicate; break;
      case LedgerResult::kLost: ++lost; break;
    }
  }
  const auto add = [&figures](const char* name, std::int64_t count) {
    if (count > 0) figures[name] += count;
  };
  add("writes_after_lease", after_lease);
  add("settlements_applied", applied);
  add("fenced_writes_rejected", rejected);
  add("duplicate_settlements_suppressed", duplicate);
  add("ledger_writes_lost", lost);
}

std::map<std::string, std::int64_t> HistoryFigures(const History& history) {
  return HistoryFigures(HistoryIndex(history));
}

std::map<std::string, std::int64_t> HistoryFigures(const HistoryIndex& index) {
  const History& history = index.history();
  std::map<std::string, std::int64_t> figures;
  // Leaderless time: the part of the run no belief covers.
  std::vector<std::pair<TimeNs, TimeNs>> spans;
  for (const LeadershipBelief& belief : history.beliefs) spans.emplace_back(belief.from_ns, belief.until_ns);
  std::sort(spans.begin(), spans.end());
  TimeNs covered = 0;
  TimeNs reach = 0;
  for (const auto& [from, until] : spans) {
    const TimeNs start = std::max(from, reach);
    if (until > start) covered += until - start;
    reach = std::max(reach, until);
  }
  figures["leaderless_ms"] = (history.end_ns - covered) / kNanosPerMilli;
  std::set<std::pair<std::string, std::int64_t>> terms;
  for (const LeadershipBelief& belief : history.beliefs) {
    terms.emplace(belief.holder, belief.term);
    if (belief.end_reason != "end_of_run" && belief.end_reason != "reacquired") {
      figures["demotions_" + belief.end_reason] += 1;
    }
  }
  figures["leader_terms"] = static_cast<std::int64_t>(terms.size());
  const std::vector<std::pair<TimeNs, TimeNs>> overlaps = OverlapSpans(history);
  TimeNs overlap = 0;
  for (const auto& [from, until] : overlaps) overlap += until - from;
  figures["overlap_ms"] = overlap / kNanosPerMilli;
  figures["writes_during_overlap"] = WritesDuringOverlap(history, overlaps);
  figures["handover_gap_min_ms"] = HandoverGapMinMs(history);
  AddStoreFigures(history, figures);
  const StaleArrivals stale = StaleArrivalsOf(history);
  figures["stale_arrivals"] = stale.count;
  figures["stale_arrivals_unsettled"] = stale.unsettled;
  figures["stale_arrival_lost_by_min_ms"] = stale.lost_by_min_ms;
  // The lease contract's near misses (checker/lease_contract_checks.h).
  const LeaseContractMargins margins = ContractMargins(index);
  figures["lease_end_margin_min_ms"] = MarginFigureMs(margins.holder_ns);
  figures["takeover_margin_min_ms"] = MarginFigureMs(margins.candidate_ns);
  figures["write_lease_margin_min_ms"] = MarginFigureMs(margins.write_ns);
  AddLedgerFigures(history, figures);
  figures["recovery_ms"] = RecoveryMs(history);
  return figures;
}

}  // namespace leasesim::checker
