#pragma once
// Test doubles for the real Env without etcd: the in-memory store and
// ledger of backends/, made thread-safe, with a little latency so calls
// really block; and a per-process view of the shared store that can be cut
// off (every call "unavailable"), made to hang, and that notes when the
// record is released.

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "backends/fenced_ledger.h"
#include "backends/lease_store.h"
#include "core/env.h"

namespace leasesim::etcd {

class MemoryStore final : public core::StoreClient {
 public:
  core::StoreResult Read(std::string_view key, core::Nanos) override {
    Delay();
    std::lock_guard<std::mutex> lock(mu_);
    return store_.Read(std::string(key));
  }
  core::StoreResult Create(std::string_view key, const core::LeaseRecord& record, core::Nanos) override {
    Delay();
    std::lock_guard<std::mutex> lock(mu_);
    return store_.Create(std::string(key), record);
  }
  core::StoreResult CompareAndSet(std::string_view key, std::int64_t expected, const core::LeaseRecord& record,
                                  core::Nanos) override {
    Delay();
    std::lock_guard<std::mutex> lock(mu_);
    return store_.CompareAndSet(std::string(key), expected, record);
  }

 private:
  static void Delay() { std::this_thread::sleep_for(std::chrono::microseconds(200)); }
  std::mutex mu_;
  backends::LeaseStore store_;
};

// One process's connection to a shared MemoryStore.
class StoreView final : public core::StoreClient {
 public:
  explicit StoreView(MemoryStore& shared) : shared_(shared) {}
  core::StoreResult Read(std::string_view key, core::Nanos timeout) override {
    if (down.load()) return {core::StoreStatus::kUnavailable, {}};
    return shared_.Read(key, timeout);
  }
  core::StoreResult Create(std::string_view key, const core::LeaseRecord& record, core::Nanos timeout) override {
    if (down.load()) return {core::StoreStatus::kUnavailable, {}};
    return shared_.Create(key, record, timeout);
  }
  core::StoreResult CompareAndSet(std::string_view key, std::int64_t expected, const core::LeaseRecord& record,
                                  core::Nanos timeout) override {
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
  std::atomic<bool> down{false};
  std::atomic<int> hang_ms{0};  // > 0: every CAS hangs this long, then times out
  std::atomic<std::int64_t> released_at{0};  // steady_clock ticks of the release CAS; 0: none

 private:
  MemoryStore& shared_;
};

class MemoryLedger final : public core::LedgerClient {
 public:
  core::LedgerResult Commit(const core::SettlementBatch& batch, core::Nanos) override {
    std::lock_guard<std::mutex> lock(mu_);
    return ledger_.Commit(batch);
  }
  core::LedgerResult LastAppliedWindow(core::Nanos) override {
    std::lock_guard<std::mutex> lock(mu_);
    return ledger_.LastAppliedWindow();
  }
  std::size_t entries() {
    std::lock_guard<std::mutex> lock(mu_);
    return ledger_.entries().size();
  }

 private:
  std::mutex mu_;
  backends::FencedLedger ledger_;
};

}  // namespace leasesim::etcd
