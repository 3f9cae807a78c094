// The lease contract on each side alone: hand-made histories whose holder
// outlives, or whose candidate jumps, the lease a record granted, each with
// a twin that keeps the contract by a hair.

#include "checker/lease_contract_checks.h"

#include <gtest/gtest.h>

#include "base/units.h"
#include "checker/history_io.h"
#include "checker/test_store_ops.h"
#include "checker/violation_kind.h"

namespace leasesim::checker {
namespace {

using base::Millis;
constexpr TimeNs kLease = Millis(2000);

StoreOp Write(std::int64_t id, int node, const std::string& holder, std::int64_t term, TimeNs invoke,
              TimeNs applied, TimeNs complete, std::int64_t expected_version) {
  return test_ops::AppliedLeaseWrite(id, node, holder, term, invoke, applied, complete, expected_version, kLease);
}

// Node 1 creates the record (applied at 10 ms) and leads until 1.9 s; node
// 2 takes over at `takeover_ns` (applied 5 ms earlier).
History TwoTerms(TimeNs holder_until, TimeNs takeover_ns) {
  History h;
  h.node_count = 2;
  h.end_ns = Millis(10'000);
  h.assumptions.drift_bound_ppm = 0;
  h.store_ops = {Write(0, 1, "n1", 1, 0, Millis(10), Millis(20), 0),
                 Write(1, 2, "n2", 2, takeover_ns - Millis(10), takeover_ns - Millis(5), takeover_ns, 1)};
  h.beliefs = {{1, "n1", 1, Millis(20), holder_until, "deadline"}, {2, "n2", 2, takeover_ns, takeover_ns + kLease / 2, "deadline"}};
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
  EXPECT_FALSE(Has(Check(TwoTerms(Millis(2010), Millis(5000))), ViolationKind::kLeaseOutlived));
  const Verdict late = Check(TwoTerms(Millis(2011), Millis(5000)));
  ASSERT_TRUE(Has(late, ViolationKind::kLeaseOutlived));
  EXPECT_NE(late.violations.front().message.find("1.000 ms"), std::string::npos) << late.violations.front().message;
}

TEST(LeaseContract, ACandidateMustNotTakeOverBeforeTheReplacedLeaseEnds) {
  EXPECT_FALSE(Has(Check(TwoTerms(Millis(1900), Millis(2010))), ViolationKind::kEarlyTakeover));
  const Verdict early = Check(TwoTerms(Millis(1900), Millis(2009)));
  ASSERT_TRUE(Has(early, ViolationKind::kEarlyTakeover));
  EXPECT_EQ(early.violations.front().nodes, (std::vector<int>{1, 2}));
}

TEST(LeaseContract, AReleasedRecordMayBeTakenAtOnce) {
  History h = TwoTerms(Millis(500), Millis(700));
  StoreOp release = Write(1, 1, "", 1, Millis(500), Millis(505), Millis(510), 1);
  h.store_ops[1] = Write(2, 2, "n2", 2, Millis(690), Millis(695), Millis(700), 2);
  h.store_ops.insert(h.store_ops.begin() + 1, release);
  EXPECT_TRUE(Check(h).ok());
}

// A claim made at a renewal's reply (boot clock = true time here) is judged
// at the slowest rate the bound allows: 2 s at 1000 ppm may mean 2.002 s.
TEST(LeaseContract, AClaimMayNotOutliveTheLeaseOnTheSlowestClockAllowed) {
  History h = TwoTerms(Millis(1900), Millis(5000));
  h.assumptions.drift_bound_ppm = 1000;
  auto claim = [](TimeNs until_boot) { return ValidityClaim{1, "n1", 1, Millis(20), Millis(20), until_boot}; };
  h.claims = {claim(Millis(20) + Millis(1988))};  // 1.988 s may last 1.98999 s: ends by 2.010 s
  EXPECT_TRUE(Check(h).ok());
  h.claims = {claim(Millis(20) + Millis(1990))};  // 1.990 s may last 1.99199 s: past 2.010 s
  EXPECT_TRUE(Has(Check(h), ViolationKind::kLeaseOutlived));
}

// The search's gradient: how close each side came to the breach above.
TEST(LeaseContract, TheMarginsSayHowCloseEachSideCameToABreach) {
  // n1's lease ends at 2.010 s; it stops at 2.003 s; n2 takes over at 2.017 s.
  LeaseContractMargins margins = ContractMargins(TwoTerms(Millis(2003), Millis(2017)));
  EXPECT_EQ(margins.holder_ns, Millis(7));
  EXPECT_EQ(margins.candidate_ns, Millis(7));
  margins = ContractMargins(TwoTerms(Millis(2011), Millis(2009)));  // both broke it
  EXPECT_EQ(margins.holder_ns, -Millis(1));
  EXPECT_EQ(margins.candidate_ns, -Millis(1));
  History unjudged = TwoTerms(Millis(2003), Millis(2017));
  unjudged.store_ops[0].applied_ns = kNeverNs;
  EXPECT_EQ(ContractMargins(unjudged).holder_ns, kNeverNs) << "a history that does not say when writes applied";
}

// n1's ledger write of term 1 sent at `sent`, its own clock saying it was
// late by the pause budget at most (what write_outside_lease excuses).
History WriteSentAt(TimeNs sent) {
  History h = TwoTerms(Millis(1900), Millis(5000));
  LedgerWrite write;
  write.node = 1;
  write.holder = "n1";
  write.token = 1;
  write.window = 3;
  write.sent_ns = sent;
  write.lease_valid_at_send = false;
  write.late_ns = sent - Millis(1900);
  h.ledger_writes.push_back(write);
  return h;
}

TEST(LeaseContract, AWriteMustBeSentBeforeTheLeaseItsRecordGrantedEnds) {
  // The record was applied at 10 ms: its lease ends at 2.010 s.
  EXPECT_FALSE(Has(Check(WriteSentAt(Millis(2010))), ViolationKind::kLeaseOutlived));
  EXPECT_EQ(ContractMargins(WriteSentAt(Millis(2003))).write_ns, Millis(7));
  const Verdict late = Check(WriteSentAt(Millis(2012)));
  ASSERT_TRUE(Has(late, ViolationKind::kLeaseOutlived));
  EXPECT_NE(late.violations.front().message.find("window 3"), std::string::npos) << late.violations.front().message;
  EXPECT_EQ(ContractMargins(WriteSentAt(Millis(2012))).write_ns, -Millis(2));
  History other_term = WriteSentAt(Millis(2012));
  other_term.ledger_writes.front().token = 7;
  EXPECT_TRUE(Check(other_term).ok()) << "no record of that term: nothing to judge the write by";
}

TEST(LeaseContract, ABreachAfterAFaultBeyondTheAssumptionsIsANote) {
  History h = TwoTerms(Millis(2500), Millis(5000));
  h.faults.push_back(FaultRecord{.kind = "clock_drift", .nodes = {1}, .start_ns = 0, .end_ns = h.end_ns,
                                 .within_assumptions = false});
  const Verdict verdict = Check(h);
  EXPECT_TRUE(verdict.ok());
  ASSERT_EQ(verdict.notes.size(), 1u);
  EXPECT_NE(verdict.notes.front().find("expected"), std::string::npos);
}

TEST(LeaseContract, HistoriesThatDoNotSayWhenWritesAppliedAreNotJudged) {
  History h = TwoTerms(Millis(9000), Millis(2009));
  for (StoreOp& op : h.store_ops) op.applied_ns = kNeverNs;
  EXPECT_TRUE(Check(h).ok());
}

TEST(LeaseContract, ApplyTimesAndClaimsSurviveTheHistoryFormat) {
  History h = TwoTerms(Millis(1900), Millis(5000));
  h.claims = {ValidityClaim{1, "n1", 1, Millis(20), Millis(21), Millis(1900)}};
  const HistoryReadResult read = ReadHistory(HistoryToJsonLines(h));
  ASSERT_TRUE(read.ok());
  const History& back = read.history;
  ASSERT_EQ(back.store_ops.size(), 2u);
  EXPECT_EQ(back.store_ops[1].applied_ns, Millis(4995));
  ASSERT_EQ(back.claims.size(), 1u);
  EXPECT_EQ(back.claims[0].until_boot_ns, Millis(1900));
  EXPECT_EQ(back.claims[0].boot_ns, Millis(21));
}

}  // namespace
}  // namespace leasesim::checker
