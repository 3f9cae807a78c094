#include "checker/history_figures.h"

#include "base/units.h"

#include <gtest/gtest.h>

namespace leasesim::checker {
namespace {

using base::Millis;

TEST(HistoryFigures, LeaderlessTimeRecoveryAndOutcomes) {
  History history;
  history.end_ns = Millis(100);
  history.beliefs = {{.node = 1, .holder = "a", .term = 1, .from_ns = Millis(10), .until_ns = Millis(40), .end_reason = "crash"},
                     {.node = 2, .holder = "b", .term = 2, .from_ns = Millis(55), .until_ns = Millis(100), .end_reason = "end_of_run"}};
  history.faults = {{.kind = "crash", .nodes = {1}, .start_ns = Millis(40), .end_ns = Millis(40)}};
  LedgerWrite applied;
  applied.result = LedgerResult::kApplied;
  LedgerWrite fenced;
  fenced.result = LedgerResult::kRejectedStale;
  history.ledger_writes = {applied, applied, fenced};
  const auto figures = HistoryFigures(history);
  EXPECT_EQ(figures.at("leaderless_ms"), 10 + 15);
  EXPECT_EQ(figures.at("recovery_ms"), 15);
  EXPECT_EQ(figures.at("leader_terms"), 2);
  EXPECT_EQ(figures.at("demotions_crash"), 1);
  EXPECT_EQ(figures.at("settlements_applied"), 2);
  EXPECT_EQ(figures.at("fenced_writes_rejected"), 1);
}

TEST(HistoryFigures, OverlapCountsTimeTwoNodesBelievedTheyLedAndLateWritesAreCounted) {
  History history;
  history.end_ns = Millis(100);
  history.beliefs = {{.node = 1, .holder = "a", .term = 1, .from_ns = 0, .until_ns = Millis(50), .end_reason = "deadline"},
                     {.node = 2, .holder = "b", .term = 2, .from_ns = Millis(30), .until_ns = Millis(60), .end_reason = "crash"},
                     {.node = 3, .holder = "c", .term = 3, .from_ns = Millis(40), .until_ns = Millis(45), .end_reason = "crash"}};
  LedgerWrite late;
  late.lease_valid_at_send = false;
  late.sent_ns = Millis(42);  // while a and b (and c) led
  history.ledger_writes = {late, LedgerWrite{}};
  history.store_ops = {{.invoke_ns = 0, .complete_ns = Millis(7)}, {.invoke_ns = Millis(10), .complete_ns = kNeverNs}};
  const auto figures = HistoryFigures(history);
  EXPECT_EQ(figures.at("writes_during_overlap"), 1);
  EXPECT_EQ(figures.at("store_call_max_ms"), 7);
  EXPECT_EQ(figures.at("overlap_ms"), 20);  // 30..50, three at once from 40 to 45 counts once
  EXPECT_EQ(figures.at("writes_after_lease"), 1);
}

TEST(HistoryFigures, TheHandoverGapIsTheClosestCallAfterABeliefEndedOnItsOwn) {
  History history;
  history.end_ns = Millis(200);
  history.beliefs = {{.node = 1, .holder = "a", .term = 1, .from_ns = 0, .until_ns = Millis(50), .end_reason = "deadline"},
                     {.node = 2, .holder = "b", .term = 2, .from_ns = Millis(57), .until_ns = Millis(90), .end_reason = "released"},
                     // a release hands over at once: not a close call of the lease's arithmetic
                     {.node = 3, .holder = "c", .term = 3, .from_ns = Millis(90), .until_ns = Millis(150), .end_reason = "pause_detected"},
                     {.node = 1, .holder = "a2", .term = 4, .from_ns = Millis(170), .until_ns = Millis(200), .end_reason = "end_of_run"}};
  EXPECT_EQ(HistoryFigures(history).at("handover_gap_min_ms"), 7 + 1);
  history.beliefs.erase(history.beliefs.begin());
  EXPECT_EQ(HistoryFigures(history).at("handover_gap_min_ms"), 20 + 1);
  history.beliefs.pop_back();
  EXPECT_EQ(HistoryFigures(history).at("handover_gap_min_ms"), 0) << "no handover after a belief ended on its own";
}

TEST(HistoryFigures, StaleArrivalsCountWhatTheFenceStoppedAndHowCloseItCameToWinning) {
  History history;
  history.end_ns = Millis(100);
  const auto write = [](std::int64_t token, std::int64_t window, TimeNs arrived, LedgerResult result) {
    LedgerWrite w;
    w.token = token;
    w.window = window;
    w.idempotency_key = "settlement/window-" + std::to_string(window);
    w.arrived_ns = arrived;
    w.result = result;
    return w;
  };
  history.ledger_writes = {
      write(1, 0, Millis(10), LedgerResult::kApplied),
      write(2, 1, Millis(20), LedgerResult::kApplied),
      write(1, 1, Millis(23), LedgerResult::kRejectedStale),  // lost window 1's race by 3 ms
      write(1, 2, Millis(30), LedgerResult::kRejectedStale),  // window 2 was not settled yet
      write(1, 1, Millis(60), LedgerResult::kRejectedStale),  // lost by 40 ms
      write(3, 2, Millis(70), LedgerResult::kApplied),
      write(2, 3, kNeverNs, LedgerResult::kLost),           // never arrived
  };
  auto figures = HistoryFigures(history);
  EXPECT_EQ(figures.at("stale_arrivals"), 3);
  EXPECT_EQ(figures.at("stale_arrivals_unsettled"), 1);
  EXPECT_EQ(figures.at("stale_arrival_lost_by_min_ms"), 3 + 1);
  history.ledger_writes.resize(2);
  figures = HistoryFigures(history);
  EXPECT_EQ(figures.at("stale_arrivals"), 0);
  EXPECT_EQ(figures.at("stale_arrival_lost_by_min_ms"), 0) << "nothing stale arrived";
}

TEST(HistoryFigures, RecoveryIsMinusOneWhenNobodyLeadsAgain) {
  History history;
  history.end_ns = Millis(100);
  history.beliefs = {{.node = 1, .holder = "a", .term = 1, .from_ns = 0, .until_ns = Millis(40), .end_reason = "crash"}};
  history.faults = {{.kind = "crash", .nodes = {1}, .start_ns = Millis(40), .end_ns = Millis(40)}};
  EXPECT_EQ(RecoveryMs(history), -1);
}

}  // namespace
}  // namespace leasesim::checker
