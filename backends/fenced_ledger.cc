#include "backends/fenced_ledger.h"

#include <algorithm>
#include <cassert>

namespace leasesim::backends {

core::LedgerResult FencedLedger::Commit(const core::SettlementBatch& batch) {
  // The fence is checked first: a deposed writer learns it is deposed even
  // when its window was already settled by its successor.
  if (options_.check_fence && batch.token < highest_token_) {
    return {core::LedgerStatus::kRejectedStale, highest_token_, last_window_};
  }
  if (options_.check_idempotency && !batch.idempotency_key.empty()) {
    auto it = applied_keys_.find(batch.idempotency_key);
    if (it != applied_keys_.end()) {
      core::LedgerResult repeat = it->second;
      repeat.status = core::LedgerStatus::kDuplicate;
      return repeat;
    }
  }
  // The whole batch or nothing: nothing below can fail half-way.
  assert(entries_.size() + batch.items.size() < kEntriesMax);
  highest_token_ = std::max(highest_token_, batch.token);
  for (const core::SettlementItem& item : batch.items) {
    entries_.push_back(LedgerEntry{batch.token, item.window, item.index, item.amount});
  }
  last_window_ = std::max(last_window_, batch.window);
  core::LedgerResult result{core::LedgerStatus::kApplied, highest_token_, last_window_};
  if (!batch.idempotency_key.empty()) applied_keys_[batch.idempotency_key] = result;
  return result;
}

core::LedgerResult FencedLedger::LastAppliedWindow() const {
  return {core::LedgerStatus::kApplied, highest_token_, last_window_};
}

}  // namespace leasesim::backends
