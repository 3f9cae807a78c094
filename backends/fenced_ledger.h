#pragma once
// The business resource: a ledger that applies a settlement batch only if
// its fencing token is >= the highest token it has accepted, atomically with
// the write, and applies an idempotency key at most once (a repeat returns
// the earlier result). Pure and synchronous; servers wrap it.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/env.h"

namespace leasesim::backends {

struct LedgerEntry {
  std::int64_t token;
  std::int64_t window;
  std::int64_t index;
  std::int64_t amount;
};

struct LedgerOptions {
  bool check_fence = true;        // false only in the no-fencing bug variant
  bool check_idempotency = true;  // false only in the no-idempotency bug variant
};

// The ledger's state machine: fencing and idempotency checked with each write.
class FencedLedger {
 public:
  explicit FencedLedger(LedgerOptions options = {}) : options_(options) {}

  core::LedgerResult Commit(const core::SettlementBatch& batch);
  core::LedgerResult LastAppliedWindow() const;

  std::int64_t highest_token() const { return highest_token_; }
  const std::vector<LedgerEntry>& entries() const { return entries_; }

 private:
  static constexpr std::size_t kEntriesMax = 10'000'000;
  LedgerOptions options_;
  std::int64_t highest_token_ = 0;
  std::int64_t last_window_ = -1;
  std::map<std::string, core::LedgerResult> applied_keys_;
  std::vector<LedgerEntry> entries_;
};

}  // namespace leasesim::backends
