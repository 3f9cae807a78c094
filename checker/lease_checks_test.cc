// A hand-made violating history for every check over a History, and its
// non-violating twin, run through CheckHistory (the runner's entry point).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "base/units.h"
#include "checker/checker.h"

namespace leasesim::checker {
namespace {

using base::Seconds;
using base::kNanosPerSecond;

// A quiet 3-node run: node 1 leads in term 1 from 1 s to 30 s, node 2 in
// term 2 from 30.25 s to the end at 60 s; windows 0..9 (5 s period) applied.
History Baseline() {
  History h;
  h.node_count = 3;
  h.end_ns = Seconds(60);
  h.assumptions.drift_bound_ppm = 1000;
  h.assumptions.lease_duration_ns = Seconds(10);
  h.assumptions.settlement_period_ns = Seconds(5);
  h.assumptions.recovery_bound_ns = Seconds(15);
  h.beliefs = {{1, "n1.1", 1, Seconds(1), Seconds(30), "released"}, {2, "n2.1", 2, Seconds(30) + kNanosPerSecond / 4, Seconds(60), "end_of_run"}};
  for (std::int64_t w = 0; w < 10; ++w) {
    h.due_windows.push_back(w);
    const TimeNs sent = (w + 1) * 5 * kNanosPerSecond + kNanosPerSecond / 2;
    const bool first = sent < Seconds(30);
    LedgerWrite write;
    write.id = w;
    write.node = first ? 1 : 2;
    write.holder = first ? "n1.1" : "n2.1";
    write.token = first ? 1 : 2;
    write.idempotency_key = "w" + std::to_string(w);
    write.window = w;
    write.sent_ns = sent;
    write.arrived_ns = sent + 1'000'000;
    write.result = LedgerResult::kApplied;
    h.ledger_writes.push_back(write);
  }
  return h;
}

std::vector<std::string> Kinds(const Verdict& verdict) {
  std::vector<std::string> kinds;
  for (const Violation& v : verdict.violations) kinds.push_back(v.kind);
  return kinds;
}

bool Has(const Verdict& verdict, const std::string& kind) {
  EXPECT_TRUE(kViolationKindNames.Parse(kind).has_value()) << kind;
  for (const Violation& v : verdict.violations) {
    // Every kind the checks produce is one of the vocabulary's.
    EXPECT_TRUE(kViolationKindNames.Parse(v.kind).has_value()) << v.kind;
  }
  const auto kinds = Kinds(verdict);
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

TEST(HistoryChecks, BaselineIsClean) {
  const Verdict verdict = CheckHistory(Baseline());
  EXPECT_TRUE(verdict.ok()) << verdict.violations[0].message;
}

TEST(HistoryChecks, TermReuse) {
  History bad = Baseline();
  bad.beliefs[1].term = 1;  // node 2 took over without bumping the term
  bad.beliefs[1].holder = "n2.1";
  const Verdict verdict = CheckHistory(bad);
  ASSERT_TRUE(Has(verdict, "term_reuse"));
  const Violation& v = verdict.violations[0].kind == "term_reuse" ? verdict.violations[0] : verdict.violations.back();
  EXPECT_NE(v.message.find("Term 1"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("n2.1"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("30.250s"), std::string::npos) << v.message;

  History twin = Baseline();
  twin.beliefs.push_back({1, "n1.1", 1, Seconds(40), Seconds(41), "deadline"});  // same holder again: fine
  twin.beliefs.pop_back();
  EXPECT_FALSE(Has(CheckHistory(twin), "term_reuse"));
}

TEST(HistoryChecks, TermReuseInStoreRecords) {
  History bad = Baseline();
  StoreOp a;
  a.node = 1;
  a.process = "n1.1";
  a.key = "lease";
  a.kind = StoreOpKind::kCreate;
  a.value = {"n1.1", 1, Seconds(10)};
  a.outcome = Outcome::kOk;
  a.version = 1;
  a.invoke_ns = Seconds(1);
  a.complete_ns = Seconds(1) + 1000;
  StoreOp b = a;
  b.node = 2;
  b.process = "n2.1";
  b.kind = StoreOpKind::kCas;
  b.expected_version = 1;
  b.version = 2;
  b.value = {"n2.1", 1, Seconds(10)};  // blind takeover keeping term 1
  b.invoke_ns = Seconds(31);
  b.complete_ns = Seconds(31) + 1000;
  bad.store_ops = {a, b};
  EXPECT_TRUE(Has(CheckHistory(bad), "term_reuse"));
  bad.store_ops[1].value.term = 2;
  EXPECT_TRUE(CheckHistory(bad).ok());
}

TEST(HistoryChecks, LeaseOverlapWithinAssumptionsIsAViolation) {
  History bad = Baseline();
  bad.beliefs[1].from_ns = Seconds(28);  // node 2 believes it leads while node 1 still does
  bad.faults.push_back({"pause", {1}, Seconds(20), Seconds(21), true, "short GC pause"});
  const Verdict verdict = CheckHistory(bad);
  ASSERT_TRUE(Has(verdict, "lease_overlap"));
  const Violation& v = verdict.violations.front();
  EXPECT_EQ(v.kind, "lease_overlap");
  EXPECT_NE(v.message.find("node 1"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("node 2"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("28.000s"), std::string::npos) << v.message;
  EXPECT_EQ(v.at_ns, Seconds(28));

  // The same overlap after a pause beyond the stated budget: expected, and
  // noted as fenced rather than flagged.
  History excused = bad;
  excused.faults[0].within_assumptions = false;
  const Verdict twin = CheckHistory(excused);
  EXPECT_FALSE(Has(twin, "lease_overlap"));
  ASSERT_FALSE(twin.notes.empty());
  EXPECT_NE(twin.notes[0].find("expected-and-fenced"), std::string::npos) << twin.notes[0];

  // Touching intervals are not an overlap.
  History touching = Baseline();
  touching.beliefs[1].from_ns = Seconds(30);
  EXPECT_FALSE(Has(CheckHistory(touching), "lease_overlap"));
}

TEST(HistoryChecks, AWriteLateByNoMoreThanThePauseBudgetIsAllowed) {
  History within = Baseline();
  within.assumptions.pause_budget_ns = Seconds(2);
  within.assumptions.last_point_before_write = "before_ledger_write";
  LedgerWrite& write = within.ledger_writes[2];
  write.lease_valid_at_send = false;
  write.late_ns = Seconds(1);  // paused 1.5 s between its lease check and the send
  within.faults.push_back(FaultRecord{.kind = "pause", .nodes = {write.node},
                                      .start_ns = write.sent_ns - Seconds(1) - kNanosPerSecond / 2, .end_ns = write.sent_ns,
                                      .at_point = "before_ledger_write"});
  EXPECT_FALSE(Has(CheckHistory(within), "write_outside_lease"));

  History beyond = within;
  beyond.ledger_writes[2].late_ns = Seconds(3);
  EXPECT_TRUE(Has(CheckHistory(beyond), "write_outside_lease"));

  // The budget is true time, the lateness the writer's clock: one fast by
  // the 1% drift bound reads a pause of the whole 2 s budget as 2.02 s.
  History fast_clock = within;
  fast_clock.assumptions.drift_bound_ppm = 10'000;
  fast_clock.faults[0].start_ns = fast_clock.ledger_writes[2].sent_ns - Seconds(3);  // a pause of the whole budget
  fast_clock.ledger_writes[2].late_ns = Seconds(2) + base::Millis(20);
  EXPECT_FALSE(Has(CheckHistory(fast_clock), "write_outside_lease"));
  fast_clock.ledger_writes[2].late_ns += 1;
  EXPECT_TRUE(Has(CheckHistory(fast_clock), "write_outside_lease"));

  // Late by as little, but with no pause to explain it: the protocol wrote
  // without checking its lease.
  History unchecked = within;
  unchecked.faults.clear();
  EXPECT_TRUE(Has(CheckHistory(unchecked), "write_outside_lease"));

  // A pause between batch items, after which the writer never checked again.
  History between_items = within;
  between_items.faults[0].at_point = "between_batch_items";
  EXPECT_TRUE(Has(CheckHistory(between_items), "write_outside_lease"));

  // The point is the history's assumption, not a name the checker knows: a
  // protocol whose last point is another one gets the same allowance there.
  History other_protocol = between_items;
  other_protocol.assumptions.last_point_before_write = "between_batch_items";
  EXPECT_FALSE(Has(CheckHistory(other_protocol), "write_outside_lease"));
  // A history that names no last point excuses no pause at a named point;
  // a timed pause (at no point) still explains the late write.
  History unnamed = within;
  unnamed.assumptions.last_point_before_write.clear();
  EXPECT_TRUE(Has(CheckHistory(unnamed), "write_outside_lease"));
  unnamed.faults[0].at_point.clear();
  EXPECT_FALSE(Has(CheckHistory(unnamed), "write_outside_lease"));
}

TEST(HistoryChecks, WriteOutsideLease) {
  History bad = Baseline();
  bad.ledger_writes[2].lease_valid_at_send = false;
  bad.ledger_writes[2].result = LedgerResult::kRejectedStale;
  Verdict verdict = CheckHistory(bad);
  ASSERT_TRUE(Has(verdict, "write_outside_lease"));

  History late = Baseline();
  late.ledger_writes[4].sent_ns = Seconds(30) + kNanosPerSecond / 2;  // node 1 after its lease ended at 30 s
  late.ledger_writes[4].arrived_ns = Seconds(30) + Seconds(1);
  late.ledger_writes[4].result = LedgerResult::kLost;
  verdict = CheckHistory(late);
  ASSERT_TRUE(Has(verdict, "write_outside_lease"));
  const Violation& v = verdict.violations.front();
  EXPECT_NE(v.message.find("node 1 (n1.1, term 1)"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("30.500s"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("30.000s"), std::string::npos) << v.message;

  History twin = Baseline();
  twin.ledger_writes[4].sent_ns = Seconds(30);  // at the very end of the lease: inside
  EXPECT_FALSE(Has(CheckHistory(twin), "write_outside_lease"));
}

TEST(HistoryChecks, MissedSettlementAfterFaultsHealed) {
  History bad = Baseline();
  bad.faults.push_back({"partition", {1}, Seconds(5), Seconds(10), true, ""});
  bad.ledger_writes[3].result = LedgerResult::kLost;  // window 3 never applied
  Verdict verdict = CheckHistory(bad);
  ASSERT_TRUE(Has(verdict, "missed_settlement"));
  EXPECT_NE(verdict.violations.front().message.find("window 3"), std::string::npos);
  EXPECT_NE(verdict.violations.front().message.find("20.000s"), std::string::npos)
      << verdict.violations.front().message;

  // Twins: a retry applied it; or the fault lasted until too close to the
  // end to judge; or the window fell due too late to judge.
  History retried = bad;
  LedgerWrite retry = bad.ledger_writes[3];
  retry.id = 99;
  retry.result = LedgerResult::kApplied;
  retry.sent_ns += Seconds(1);
  retry.arrived_ns += Seconds(1);
  retried.ledger_writes.push_back(retry);
  EXPECT_FALSE(Has(CheckHistory(retried), "missed_settlement"));
  History unhealed = bad;
  unhealed.faults[0].end_ns = Seconds(40);
  EXPECT_FALSE(Has(CheckHistory(unhealed), "missed_settlement"));
  History late = Baseline();
  late.ledger_writes[9].result = LedgerResult::kLost;  // due at 50 s of a 60 s run
  EXPECT_FALSE(Has(CheckHistory(late), "missed_settlement"));
}

// The schedule runs on the settler's wall clock, which may lag true time by
// the drift bound times the time run so far: a window due at 35 s of a run
// judged until 40 s may fall due at 42 s for a node 20% slow.
TEST(HistoryChecks, AMissedWindowAllowsForTheWallClocksLagWithinTheDriftBound) {
  History bad = Baseline();
  bad.faults.push_back({"partition", {1}, Seconds(5), Seconds(10), true, ""});
  bad.ledger_writes[6].result = LedgerResult::kLost;  // due at 35 s
  EXPECT_TRUE(Has(CheckHistory(bad), "missed_settlement"));
  History lagging = bad;
  lagging.assumptions.drift_bound_ppm = 200'000;
  EXPECT_FALSE(Has(CheckHistory(lagging), "missed_settlement"));
}

TEST(HistoryChecks, SlowRecovery) {
  History bad = Baseline();
  bad.faults.push_back({"crash", {1}, Seconds(20), Seconds(22), true, "leader crashed"});
  bad.beliefs[0].until_ns = Seconds(20);
  bad.beliefs[1].from_ns = Seconds(40);  // 18 s after the fault ended; bound is 15 s
  for (LedgerWrite& w : bad.ledger_writes) {
    if (w.sent_ns > Seconds(20) && w.sent_ns < Seconds(40)) w.result = LedgerResult::kLost;
  }
  Verdict verdict = CheckHistory(bad);
  ASSERT_TRUE(Has(verdict, "slow_recovery"));
  const Violation& v = *std::find_if(verdict.violations.begin(), verdict.violations.end(),
                                     [](const Violation& x) { return x.kind == "slow_recovery"; });
  EXPECT_NE(v.message.find("22.000s"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("37.000s"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("40.000s"), std::string::npos) << v.message;

  History twin = bad;
  twin.beliefs[1].from_ns = Seconds(36);
  EXPECT_FALSE(Has(CheckHistory(twin), "slow_recovery"));
  History no_room = bad;
  no_room.faults[0].end_ns = Seconds(50);  // fault ended 10 s before the end: no room
  EXPECT_FALSE(Has(CheckHistory(no_room), "slow_recovery"));
}

// Two nodes' store operations on one key, with the store's order recorded.
std::vector<StoreOp> TwoNodeStoreOps() {
  auto make = [](std::int64_t id, int node, StoreOpKind kind, TimeNs at) {
    StoreOp op;
    op.id = id;
    op.node = node;
    op.process = "n" + std::to_string(node) + ".1";
    op.key = "lease/settle";
    op.kind = kind;
    op.outcome = Outcome::kOk;
    op.invoke_ns = at;
    op.complete_ns = at + 2'000'000;
    op.applied_seq = id;
    return op;
  };
  StoreOp create = make(0, 1, StoreOpKind::kCreate, Seconds(1));
  create.value = {"n1.1", 1, Seconds(10)};
  create.version = 1;
  StoreOp read = make(1, 2, StoreOpKind::kRead, Seconds(2));
  read.found = true;
  read.version = 1;
  read.read_value = create.value;
  StoreOp renew = make(2, 1, StoreOpKind::kCas, Seconds(3));
  renew.expected_version = 1;
  renew.value = create.value;
  renew.version = 2;
  StoreOp read2 = make(3, 2, StoreOpKind::kRead, Seconds(4));
  read2.found = true;
  read2.version = 2;
  read2.read_value = create.value;
  return {create, read, renew, read2};
}

TEST(HistoryChecks, NotLinearizable) {
  History good = Baseline();
  good.store_ops = TwoNodeStoreOps();
  EXPECT_TRUE(CheckHistory(good).ok());
  CheckOptions cross;
  cross.store.cross_check = true;
  EXPECT_TRUE(CheckHistory(good, cross).ok());

  History bad = good;
  bad.store_ops[3].version = 1;  // a stale read after the renewal completed
  bad.store_ops[3].applied_seq = 3;
  const Verdict verdict = CheckHistory(bad);
  ASSERT_TRUE(Has(verdict, "not_linearizable"));
  const Violation& v = verdict.violations.front();
  EXPECT_NE(v.message.find("lease/settle"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("node 2 (n2.1) read of lease/settle -> v1"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("4.000s"), std::string::npos) << v.message;
  EXPECT_NE(v.message.find("3 of 4"), std::string::npos) << v.message;

  // Without a recorded order the search alone decides, the same way.
  for (StoreOp& op : bad.store_ops) op.applied_seq = -1;
  EXPECT_TRUE(Has(CheckHistory(bad), "not_linearizable"));
  for (StoreOp& op : good.store_ops) op.applied_seq = -1;
  EXPECT_TRUE(CheckHistory(good).ok());
}

TEST(HistoryChecks, StoreOrderWrongButAnotherOrderWorksIsOnlyANote) {
  History h = Baseline();
  h.store_ops = TwoNodeStoreOps();
  h.store_ops[1].invoke_ns = Seconds(1);  // read concurrent with the create...
  h.store_ops[1].found = false;       // ...and saw nothing
  h.store_ops[1].version = 0;
  const Verdict verdict = CheckHistory(h);  // store says create first: inconsistent
  EXPECT_TRUE(verdict.ok());
  ASSERT_FALSE(verdict.notes.empty());
  EXPECT_NE(verdict.notes.back().find("another order"), std::string::npos);
}

TEST(HistoryChecks, BudgetExhaustionIsUnknown) {
  History h = Baseline();
  h.store_ops = TwoNodeStoreOps();
  for (StoreOp& op : h.store_ops) op.applied_seq = -1;
  CheckOptions options;
  options.store.lin.budget = 1;
  const Verdict verdict = CheckHistory(h, options);
  EXPECT_TRUE(verdict.ok());
  EXPECT_TRUE(verdict.linearizability_unknown);
}

}  // namespace
}  // namespace leasesim::checker
