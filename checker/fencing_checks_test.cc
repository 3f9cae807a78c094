#include "checker/fencing_checks.h"

#include <gtest/gtest.h>

#include "checker/checker.h"

namespace leasesim::checker {
namespace {

LedgerWrite Applied(std::int64_t id, int node, std::string holder, std::int64_t token,
                    std::int64_t window, TimeNs arrived_ns) {
  LedgerWrite write;
  write.id = id;
  write.node = node;
  write.holder = std::move(holder);
  write.token = token;
  write.window = window;
  write.idempotency_key = "window-" + std::to_string(window);
  write.sent_ns = arrived_ns - 1'000'000;
  write.arrived_ns = arrived_ns;
  write.result = LedgerResult::kApplied;
  return write;
}

TEST(FencingChecks, CleanHandoverPasses) {
  History history;
  history.ledger_writes = {Applied(1, 1, "n1.1", 1, 0, 1'000), Applied(2, 1, "n1.1", 1, 1, 2'000),
                           Applied(3, 2, "n2.1", 2, 2, 3'000)};
  EXPECT_TRUE(CheckHistory(history).ok());
}

TEST(FencingChecks, StaleTokenWriteIsFlagged) {
  History history;
  history.ledger_writes = {Applied(1, 2, "n2.1", 2, 0, 1'000), Applied(2, 1, "n1.1", 1, 1, 2'000)};
  Verdict verdict;
  CheckStaleTokenWrites(history, verdict);
  ASSERT_EQ(verdict.violations.size(), 1u);
  EXPECT_EQ(verdict.violations[0].kind, "stale_token_write");
  EXPECT_NE(verdict.violations[0].message.find("node 1"), std::string::npos);
  EXPECT_NE(verdict.violations[0].message.find("token 2"), std::string::npos);
}

TEST(FencingChecks, RejectedStaleWriteIsNotAViolation) {
  History history;
  history.ledger_writes = {Applied(1, 2, "n2.1", 2, 0, 1'000), Applied(2, 1, "n1.1", 1, 1, 2'000)};
  history.ledger_writes[1].result = LedgerResult::kRejectedStale;
  EXPECT_TRUE(CheckHistory(history).ok());
}

TEST(FencingChecks, InterleavedHoldersAreDualWriters) {
  History history;
  // Same token reused by two holders keeps fencing quiet but is a dual writer.
  history.ledger_writes = {Applied(1, 1, "n1.1", 3, 0, 1'000), Applied(2, 2, "n2.1", 3, 1, 2'000),
                           Applied(3, 1, "n1.1", 3, 2, 3'000)};
  Verdict verdict;
  CheckDualWriters(history, verdict);
  ASSERT_FALSE(verdict.violations.empty());
  for (const Violation& v : verdict.violations) EXPECT_EQ(v.kind, "dual_writer");
}

TEST(FencingChecks, AHolderReturningUnderANewerTermIsNotADualWriter) {
  History history;
  // n1 leads in term 1, n2 in term 2, then n1 (same incarnation) wins term 3.
  history.ledger_writes = {Applied(1, 1, "n1.1", 1, 0, 1'000), Applied(2, 2, "n2.1", 2, 1, 2'000),
                           Applied(3, 1, "n1.1", 3, 2, 3'000)};
  Verdict verdict;
  CheckDualWriters(history, verdict);
  EXPECT_TRUE(verdict.ok()) << verdict.violations[0].message;
  // ... but returning under its old term is.
  history.ledger_writes.push_back(Applied(4, 2, "n2.1", 2, 3, 4'000));
  CheckDualWriters(history, verdict);
  EXPECT_FALSE(verdict.ok());
}

TEST(FencingChecks, DuplicateSettlementIsFlaggedAndSuppressedRepeatIsNot) {
  History history;
  history.ledger_writes = {Applied(1, 1, "n1.1", 1, 7, 1'000), Applied(2, 2, "n2.1", 2, 7, 2'000)};
  Verdict verdict;
  CheckDuplicateSettlements(history, verdict);
  ASSERT_EQ(verdict.violations.size(), 1u);
  EXPECT_EQ(verdict.violations[0].kind, "duplicate_settlement");

  history.ledger_writes[1].result = LedgerResult::kDuplicate;
  Verdict twin;
  CheckDuplicateSettlements(history, twin);
  EXPECT_TRUE(twin.ok());
}

LedgerWrite Answered(std::int64_t id, std::int64_t token, std::int64_t window, TimeNs arrived_ns,
                     LedgerResult result) {
  LedgerWrite write = Applied(id, static_cast<int>(token), "n" + std::to_string(token) + ".1", token, window, arrived_ns);
  write.result = result;
  return write;
}

TEST(FencingChecks, AStaleTokenAnsweredAsADuplicateIsAcceptedNotRejected) {
  History history;
  history.ledger_writes = {Answered(1, 2, 4, 1'000, LedgerResult::kApplied),
                           Answered(2, 1, 4, 2'000, LedgerResult::kDuplicate)};
  const Verdict verdict = CheckHistory(history);
  ASSERT_EQ(verdict.violations.size(), 1u);
  EXPECT_EQ(verdict.violations[0].kind, "stale_token_accepted");
  EXPECT_EQ(verdict.violations[0].nodes, (std::vector<int>{1, 2}));
  EXPECT_NE(verdict.violations[0].message.find("token 1"), std::string::npos) << verdict.violations[0].message;
}

TEST(FencingChecks, TheFenceMayAnswerADuplicateOfItsOwnOrANewerToken) {
  History history;
  // Token 1's retry of its own window, then token 2's duplicate of it, and a
  // stale write the ledger rejected: all as a fenced ledger answers.
  history.ledger_writes = {Answered(1, 1, 4, 1'000, LedgerResult::kApplied),
                           Answered(2, 1, 4, 2'000, LedgerResult::kDuplicate),
                           Answered(3, 2, 4, 3'000, LedgerResult::kDuplicate),
                           Answered(4, 2, 5, 4'000, LedgerResult::kApplied),
                           Answered(5, 1, 5, 5'000, LedgerResult::kRejectedStale)};
  EXPECT_TRUE(CheckHistory(history).ok());
}

TEST(FencingChecks, ADuplicateArrivingWithTheNewerTokenIsNotJudged) {
  History history;
  // One instant: the history does not say which the ledger took first.
  history.ledger_writes = {Answered(1, 2, 4, 1'000, LedgerResult::kApplied),
                           Answered(2, 1, 4, 1'000, LedgerResult::kDuplicate)};
  Verdict verdict;
  CheckStaleTokensAccepted(history, verdict);
  EXPECT_TRUE(verdict.violations.empty());
}

}  // namespace
}  // namespace leasesim::checker
