#include "checker/schedule_checks.h"

#include <gtest/gtest.h>

#include <limits>

#include "base/units.h"
#include "checker/checker.h"
#include "checker/history_io.h"

namespace leasesim::checker {
namespace {

using base::Millis;
constexpr TimeNs kEpoch = Millis(1'000'000);  // the schedule's wall-clock start

History Schedule(TimeNs period) {
  History history;
  history.assumptions.settlement_period_ns = period;
  history.assumptions.settlement_epoch_wall_ns = kEpoch;
  return history;
}

LedgerWrite Write(std::int64_t window, TimeNs wall_seen_ns) {
  LedgerWrite write;
  write.node = 2;
  write.holder = "n2#1";
  write.token = 3;
  write.window = window;
  write.sent_ns = Millis(5'000);
  write.arrived_ns = write.sent_ns + Millis(1);
  write.result = LedgerResult::kApplied;
  write.wall_seen_ns = wall_seen_ns;
  return write;
}

TEST(ScheduleChecks, AWindowWrittenOnceItsClockSaidItWasOverPasses) {
  History history = Schedule(Millis(100));
  // Window 4 covers [400, 500) ms past the epoch: due at 500 ms exactly.
  history.ledger_writes = {Write(4, kEpoch + Millis(500)), Write(4, kEpoch + Millis(900))};
  Verdict verdict;
  CheckEarlySettlements(history, verdict);
  EXPECT_TRUE(verdict.violations.empty());
}

TEST(ScheduleChecks, AWindowWrittenBeforeItsEndByEveryReadingIsSettledEarly) {
  History history = Schedule(Millis(100));
  history.ledger_writes = {Write(4, kEpoch + Millis(500) - 1), Write(5, kEpoch + Millis(420))};
  const Verdict verdict = CheckHistory(history);
  ASSERT_EQ(verdict.violations.size(), 2u);
  EXPECT_EQ(verdict.violations[0].kind, "settled_early");
  EXPECT_EQ(verdict.violations[0].nodes, std::vector<int>{2});
  EXPECT_NE(verdict.violations[1].message.find("window 5"), std::string::npos) << verdict.violations[1].message;
  EXPECT_NE(verdict.violations[1].message.find("0.180s before"), std::string::npos) << verdict.violations[1].message;
}

TEST(ScheduleChecks, WritesWithoutAWallReadingOrAScheduleAreNotJudged) {
  History unknown = Schedule(Millis(100));
  unknown.ledger_writes = {Write(4, kNeverNs)};
  History no_schedule = Schedule(0);
  no_schedule.ledger_writes = {Write(4, kEpoch)};
  Verdict verdict;
  CheckEarlySettlements(unknown, verdict);
  CheckEarlySettlements(no_schedule, verdict);
  EXPECT_TRUE(verdict.violations.empty());
}

TEST(ScheduleChecks, AWindowPastAnyClockIsEarlyWithoutOverflow) {
  History history = Schedule(Millis(100));
  history.ledger_writes = {Write(std::numeric_limits<std::int64_t>::max() / 2, kEpoch)};
  Verdict verdict;
  CheckEarlySettlements(history, verdict);
  ASSERT_EQ(verdict.violations.size(), 1u);
  EXPECT_NE(verdict.violations[0].message.find("never ends"), std::string::npos);
}

TEST(ScheduleChecks, TheWallReadingAndTheEpochSurviveAHistoryFile) {
  History history = Schedule(Millis(100));
  history.ledger_writes = {Write(4, kEpoch + Millis(420)), Write(5, kNeverNs)};
  const HistoryReadResult read = ReadHistory(HistoryToJsonLines(history));
  ASSERT_TRUE(read.ok());
  const History& back = read.history;
  EXPECT_EQ(back.assumptions.settlement_epoch_wall_ns, kEpoch);
  ASSERT_EQ(back.ledger_writes.size(), 2u);
  EXPECT_EQ(back.ledger_writes[0].wall_seen_ns, kEpoch + Millis(420));
  EXPECT_EQ(back.ledger_writes[1].wall_seen_ns, kNeverNs);
}

}  // namespace
}  // namespace leasesim::checker
