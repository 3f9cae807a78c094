// The test doubles of memory_backends_test_util.h (no tests of their own).
#include "backends/etcd/memory_backends_test_util.h"

#include <chrono>
#include <mutex>
#include <thread>

#include "backends/fenced_ledger.h"
#include "backends/lease_store.h"

namespace leasesim::etcd {
namespace {

void Delay() { std::this_thread::sleep_for(std::chrono::microseconds(200)); }

}  // namespace

struct MemoryStore::Impl {
  std::mutex mu;
  backends::LeaseStore store;
};

MemoryStore::MemoryStore() : impl_(std::make_unique<Impl>()) {}
MemoryStore::~MemoryStore() = default;

core::StoreResult MemoryStore::Read(std::string_view key, core::Nanos) {
  Delay();
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->store.Read(std::string(key));
}

core::StoreResult MemoryStore::Create(std::string_view key, const core::LeaseRecord& record, core::Nanos) {
  Delay();
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->store.Create(std::string(key), record);
}

core::StoreResult MemoryStore::CompareAndSet(std::string_view key, std::int64_t expected,
                                             const core::LeaseRecord& record, core::Nanos) {
  Delay();
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->store.CompareAndSet(std::string(key), expected, record);
}

core::StoreResult StoreView::Read(std::string_view key, core::Nanos timeout) {
  if (down.load()) return {core::StoreStatus::kUnavailable, {}};
  return shared_.Read(key, timeout);
}

core::StoreResult StoreView::Create(std::string_view key, const core::LeaseRecord& record, core::Nanos timeout) {
  if (down.load()) return {core::StoreStatus::kUnavailable, {}};
  return shared_.Create(key, record, timeout);
}

core::StoreResult StoreView::CompareAndSet(std::string_view key, std::int64_t expected,
                                           const core::LeaseRecord& record, core::Nanos timeout) {
  if (down.load()) return {core::StoreStatus::kUnavailable, {}};
  if (const int hang = hang_ms.load(); hang > 0) {
    // A call stuck far beyond its timeout (a client without a deadline).
    std::this_thread::sleep_for(std::chrono::milliseconds(hang));
    return {core::StoreStatus::kTimeout, {}};
  }
  core::StoreResult result = shared_.CompareAndSet(key, expected, record, timeout);
  if (result.status == core::StoreStatus::kOk && record.holder.empty()) {
    released_at.store(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  return result;
}

struct MemoryLedger::Impl {
  std::mutex mu;
  backends::FencedLedger ledger;
};

MemoryLedger::MemoryLedger() : impl_(std::make_unique<Impl>()) {}
MemoryLedger::~MemoryLedger() = default;

core::LedgerResult MemoryLedger::Commit(const core::SettlementBatch& batch, core::Nanos) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->ledger.Commit(batch);
}

core::LedgerResult MemoryLedger::LastAppliedWindow(core::Nanos) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->ledger.LastAppliedWindow();
}

std::size_t MemoryLedger::entries() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->ledger.entries().size();
}

}  // namespace leasesim::etcd
