#include "backends/fenced_ledger.h"

#include <gtest/gtest.h>

namespace leasesim::backends {
namespace {

core::SettlementBatch Batch(std::int64_t token, std::int64_t window, int items = 2) {
  core::SettlementBatch batch;
  batch.token = token;
  batch.window = window;
  batch.idempotency_key = "w" + std::to_string(window);
  for (int i = 0; i < items; ++i) batch.items.push_back({window, i, 10 * window + i});
  return batch;
}

TEST(FencedLedger, AppliesEqualOrHigherTokensAndRejectsLowerOnes) {
  FencedLedger ledger;
  EXPECT_EQ(ledger.Commit(Batch(3, 0)).status, core::LedgerStatus::kApplied);
  EXPECT_EQ(ledger.Commit(Batch(3, 1)).status, core::LedgerStatus::kApplied);
  EXPECT_EQ(ledger.Commit(Batch(5, 2)).status, core::LedgerStatus::kApplied);
  const core::LedgerResult stale = ledger.Commit(Batch(4, 3));
  EXPECT_EQ(stale.status, core::LedgerStatus::kRejectedStale);
  EXPECT_EQ(stale.highest_token, 5);
  EXPECT_EQ(ledger.entries().size(), 6u);  // the stale batch left nothing behind
  EXPECT_EQ(ledger.LastAppliedWindow().last_window, 2);
}

TEST(FencedLedger, AnIdempotencyKeyAppliesAtMostOnce) {
  FencedLedger ledger;
  EXPECT_EQ(ledger.Commit(Batch(1, 7)).status, core::LedgerStatus::kApplied);
  EXPECT_EQ(ledger.Commit(Batch(1, 7)).status, core::LedgerStatus::kDuplicate);
  EXPECT_EQ(ledger.Commit(Batch(2, 7)).status, core::LedgerStatus::kDuplicate);
  EXPECT_EQ(ledger.entries().size(), 2u);
}

TEST(FencedLedger, AStaleRetryOfAnAppliedWindowIsFencedNotDuplicated) {
  FencedLedger ledger;
  ledger.Commit(Batch(1, 0));
  ledger.Commit(Batch(2, 1));
  EXPECT_EQ(ledger.Commit(Batch(1, 0)).status, core::LedgerStatus::kRejectedStale);
}

TEST(FencedLedger, BugVariantsDisableTheirCheck) {
  FencedLedger unfenced({.check_fence = false});
  unfenced.Commit(Batch(5, 0));
  EXPECT_EQ(unfenced.Commit(Batch(1, 1)).status, core::LedgerStatus::kApplied);
  FencedLedger forgetful({.check_idempotency = false});
  forgetful.Commit(Batch(1, 0));
  EXPECT_EQ(forgetful.Commit(Batch(1, 0)).status, core::LedgerStatus::kApplied);
}

}  // namespace
}  // namespace leasesim::backends
