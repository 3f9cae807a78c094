// The lease contract on each side alone: hand-made histories whose holder
// outlives, or whose candidate jumps, the lease a record granted, each with
// a twin that keeps the contract by a hair.

#include "checker/lease_contract_checks.h"

#include <gtest/gtest.h>

#include "checker/history_io.h"
#include "checker/violation_kind.h"

namespace leasesim::checker {
namespace {

constexpr TimeNs kMs = base::kNanosPerMilli;
constexpr TimeNs kLease = 2000 * kMs;

StoreOp Write(std::int64_t id, int node, const std::string& holder, std::int64_t term, TimeNs invoke,
              TimeNs applied, TimeNs complete, std::int64_t expected_version) {
  StoreOp op;
  op.id = id;
  op.node = node;
  op.process = holder;
  op.key = "lease";
  op.kind = expected_version == 0 ? StoreOpKind::kCreate : StoreOpKind::kCas;
  op.expected_version = expected_version;
  op.value = LeaseValue{holder, term, kLease};
  op.outcome = Outcome::kOk;
  op.version = expected_version + 1;
  op.invoke_ns = invoke;
  op.applied_ns = applied;
  op.complete_ns = complete;
  op.applied_seq = id;
  return op;
}

// Node 1 creates the record (applied at 10 ms) and leads until 1.9 s; node
// 2 takes over at `takeover_ns` (applied 5 ms earlier).
History TwoTerms(TimeNs holder_until, TimeNs takeover_ns) {
  History h;
  h.node_count = 2;
  h.end_ns = 10'000 * kMs;
  h.assumptions.drift_bound_ppm = 0;
  h.store_ops = {Write(0, 1, "n1", 1, 0, 10 * kMs, 20 * kMs, 0),
                 Write(1, 2, "n2", 2, takeover_ns - 10 * kMs, takeover_ns - 5 * kMs, takeover_ns, 1)};
  h.beliefs = {{1, "n1", 1, 20 * kMs, holder_until, "deadline"}, {2, "n2", 2, takeover_ns, takeover_ns + kLease / 2, "deadline"}};
  return h;
}

bool Has(const Verdict& verdict, ViolationKind kind) {
  for (const Violation& v : verdict.violations) {
    if (v.kind == KindName(kind)) return true;
  }
  return false;
}

Verdict Check(const History& h) {
  Verdict verdict;
  CheckLeaseContract(h, verdict);
  return verdict;
}

TEST(LeaseContract, AHolderMustStopWhenTheLeaseItsRecordGrantedEnds) {
  // The record was applied at 10 ms: its lease ends at 2.010 s.
  EXPECT_FALSE(Has(Check(TwoTerms(2010 * kMs, 5000 * kMs)), ViolationKind::kLeaseOutlived));
  const Verdict late = Check(TwoTerms(2011 * kMs, 5000 * kMs));
  ASSERT_TRUE(Has(late, ViolationKind::kLeaseOutlived));
  EXPECT_NE(late.violations.front().message.find("1.000 ms"), std::string::npos) << late.violations.front().message;
}

TEST(LeaseContract, ACandidateMustNotTakeOverBeforeTheReplacedLeaseEnds) {
  EXPECT_FALSE(Has(Check(TwoTerms(1900 * kMs, 2010 * kMs)), ViolationKind::kEarlyTakeover));
  const Verdict early = Check(TwoTerms(1900 * kMs, 2009 * kMs));
  ASSERT_TRUE(Has(early, ViolationKind::kEarlyTakeover));
  EXPECT_EQ(early.violations.front().nodes, (std::vector<int>{1, 2}));
}

TEST(LeaseContract, AReleasedRecordMayBeTakenAtOnce) {
  History h = TwoTerms(500 * kMs, 700 * kMs);
  StoreOp release = Write(1, 1, "", 1, 500 * kMs, 505 * kMs, 510 * kMs, 1);
  h.store_ops[1] = Write(2, 2, "n2", 2, 690 * kMs, 695 * kMs, 700 * kMs, 2);
  h.store_ops.insert(h.store_ops.begin() + 1, release);
  EXPECT_TRUE(Check(h).ok());
}

// A claim made at a renewal's reply (boot clock = true time here) is judged
// at the slowest rate the bound allows: 2 s at 1000 ppm may mean 2.002 s.
TEST(LeaseContract, AClaimMayNotOutliveTheLeaseOnTheSlowestClockAllowed) {
  History h = TwoTerms(1900 * kMs, 5000 * kMs);
  h.assumptions.drift_bound_ppm = 1000;
  auto claim = [](TimeNs until_boot) { return ValidityClaim{1, "n1", 1, 20 * kMs, 20 * kMs, until_boot}; };
  h.claims = {claim(20 * kMs + 1988 * kMs)};  // 1.988 s may last 1.98999 s: ends by 2.010 s
  EXPECT_TRUE(Check(h).ok());
  h.claims = {claim(20 * kMs + 1990 * kMs)};  // 1.990 s may last 1.99199 s: past 2.010 s
  EXPECT_TRUE(Has(Check(h), ViolationKind::kLeaseOutlived));
}

// The search's gradient: how close each side came to the breach above.
TEST(LeaseContract, TheMarginsSayHowCloseEachSideCameToABreach) {
  // n1's lease ends at 2.010 s; it stops at 2.003 s; n2 takes over at 2.017 s.
  LeaseContractMargins margins = ContractMargins(TwoTerms(2003 * kMs, 2017 * kMs));
  EXPECT_EQ(margins.holder_ns, 7 * kMs);
  EXPECT_EQ(margins.candidate_ns, 7 * kMs);
  margins = ContractMargins(TwoTerms(2011 * kMs, 2009 * kMs));  // both broke it
  EXPECT_EQ(margins.holder_ns, -1 * kMs);
  EXPECT_EQ(margins.candidate_ns, -1 * kMs);
  History unjudged = TwoTerms(2003 * kMs, 2017 * kMs);
  unjudged.store_ops[0].applied_ns = kNeverNs;
  EXPECT_EQ(ContractMargins(unjudged).holder_ns, kNeverNs) << "a history that does not say when writes applied";
}

// n1's ledger write of term 1 sent at `sent`, its own clock saying it was
// late by the pause budget at most (what write_outside_lease excuses).
History WriteSentAt(TimeNs sent) {
  History h = TwoTerms(1900 * kMs, 5000 * kMs);
  LedgerWrite write;
  write.node = 1;
  write.holder = "n1";
  write.token = 1;
  write.window = 3;
  write.sent_ns = sent;
  write.lease_valid_at_send = false;
  write.late_ns = sent - 1900 * kMs;
  h.ledger_writes.push_back(write);
  return h;
}

TEST(LeaseContract, AWriteMustBeSentBeforeTheLeaseItsRecordGrantedEnds) {
  // The record was applied at 10 ms: its lease ends at 2.010 s.
  EXPECT_FALSE(Has(Check(WriteSentAt(2010 * kMs)), ViolationKind::kLeaseOutlived));
  EXPECT_EQ(ContractMargins(WriteSentAt(2003 * kMs)).write_ns, 7 * kMs);
  const Verdict late = Check(WriteSentAt(2012 * kMs));
  ASSERT_TRUE(Has(late, ViolationKind::kLeaseOutlived));
  EXPECT_NE(late.violations.front().message.find("window 3"), std::string::npos) << late.violations.front().message;
  EXPECT_EQ(ContractMargins(WriteSentAt(2012 * kMs)).write_ns, -2 * kMs);
  History other_term = WriteSentAt(2012 * kMs);
  other_term.ledger_writes.front().token = 7;
  EXPECT_TRUE(Check(other_term).ok()) << "no record of that term: nothing to judge the write by";
}

TEST(LeaseContract, ABreachAfterAFaultBeyondTheAssumptionsIsANote) {
  History h = TwoTerms(2500 * kMs, 5000 * kMs);
  h.faults.push_back(FaultRecord{.kind = "clock_drift", .nodes = {1}, .start_ns = 0, .end_ns = h.end_ns,
                                 .within_assumptions = false});
  const Verdict verdict = Check(h);
  EXPECT_TRUE(verdict.ok());
  ASSERT_EQ(verdict.notes.size(), 1u);
  EXPECT_NE(verdict.notes.front().find("expected"), std::string::npos);
}

TEST(LeaseContract, HistoriesThatDoNotSayWhenWritesAppliedAreNotJudged) {
  History h = TwoTerms(9000 * kMs, 2009 * kMs);
  for (StoreOp& op : h.store_ops) op.applied_ns = kNeverNs;
  EXPECT_TRUE(Check(h).ok());
}

TEST(LeaseContract, ApplyTimesAndClaimsSurviveTheHistoryFormat) {
  History h = TwoTerms(1900 * kMs, 5000 * kMs);
  h.claims = {ValidityClaim{1, "n1", 1, 20 * kMs, 21 * kMs, 1900 * kMs}};
  const HistoryReadResult read = ReadHistory(HistoryToJsonLines(h));
  ASSERT_TRUE(read.ok());
  const History& back = read.history;
  ASSERT_EQ(back.store_ops.size(), 2u);
  EXPECT_EQ(back.store_ops[1].applied_ns, 4995 * kMs);
  ASSERT_EQ(back.claims.size(), 1u);
  EXPECT_EQ(back.claims[0].until_boot_ns, 1900 * kMs);
  EXPECT_EQ(back.claims[0].boot_ns, 21 * kMs);
}

}  // namespace
}  // namespace leasesim::checker
