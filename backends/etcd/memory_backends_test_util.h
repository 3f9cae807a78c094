#pragma once
// Test doubles for the real Env without etcd: the in-memory store and
// ledger of backends/, made thread-safe, with a little latency so calls
// really block; and a per-process view of the shared store that can be cut
// off (every call "unavailable"), made to hang, and that notes when the
// record is released. Defined in memory_backends_test.cc (tests may use
// backends/; this header only the core).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "core/env.h"

namespace leasesim::etcd {

// The in-memory lease store, thread-safe and a little slow, shared by the
// processes of one test.
class MemoryStore final : public core::StoreClient {
 public:
  MemoryStore();
  ~MemoryStore() override;
  core::StoreResult Read(std::string_view key, core::Nanos timeout) override;
  core::StoreResult Create(std::string_view key, const core::LeaseRecord& record, core::Nanos timeout) override;
  core::StoreResult CompareAndSet(std::string_view key, std::int64_t expected, const core::LeaseRecord& record,
                                  core::Nanos timeout) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One process's connection to a shared MemoryStore.
class StoreView final : public core::StoreClient {
 public:
  explicit StoreView(MemoryStore& shared) : shared_(shared) {}
  core::StoreResult Read(std::string_view key, core::Nanos timeout) override;
  core::StoreResult Create(std::string_view key, const core::LeaseRecord& record, core::Nanos timeout) override;
  core::StoreResult CompareAndSet(std::string_view key, std::int64_t expected, const core::LeaseRecord& record,
                                  core::Nanos timeout) override;
  std::atomic<bool> down{false};
  std::atomic<int> hang_ms{0};  // > 0: every CAS hangs this long, then times out
  std::atomic<std::int64_t> released_at{0};  // steady_clock ticks of the release CAS; 0: none

 private:
  MemoryStore& shared_;
};

// The in-memory fenced ledger, thread-safe, shared by the processes of one test.
class MemoryLedger final : public core::LedgerClient {
 public:
  MemoryLedger();
  ~MemoryLedger() override;
  core::LedgerResult Commit(const core::SettlementBatch& batch, core::Nanos timeout) override;
  core::LedgerResult LastAppliedWindow(core::Nanos timeout) override;
  std::size_t entries();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace leasesim::etcd
