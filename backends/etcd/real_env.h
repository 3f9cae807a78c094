#pragma once
// The core's Env in the real world: one std::thread per Spawn, the real
// monotonic (CLOCK_MONOTONIC via steady_clock) and wall clocks, and real
// sleeping. The same core runs here as in simulation.
//
// Mutex discipline. In simulation the core's tasks (elector, settlement job)
// are fibers on one thread, so they never run at once; the core relies on it
// (they share the elector's state). Here every task holds one process-wide
// mutex while it runs core code and releases it only while it is blocked:
// in SleepUntil and inside store, ledger and KV calls (store(), ledger()
// and kv() return wrappers that drop the mutex around the real call). So core code
// still runs one task at a time, and a task waiting on etcd or a timer never
// holds the others up. Anything outside the core that reads core state (the
// metrics endpoint) does so under the same mutex (WithCoreLock).
//
// A service's own leader callbacks (core/leader_callbacks.h) run outside
// the mutex through callback_gate(): their blocking I/O never holds up the
// elector, and each LeaderContext call takes the mutex for its core code.
//
// Stop() ends every task at its next blocking point (the task is unwound by
// an exception the wrapper catches; in a callback: at its next
// LeaderContext call or when it returns) and joins the threads; the
// destructor calls it.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/env.h"
#include "core/events.h"
#include "core/leader_callbacks.h"

namespace leasesim::etcd {

// Thrown inside a task's blocking calls once Stop() was called.
struct TaskStopped {};

// Writes each event as one JSON line to a file descriptor (default stderr).
class JsonLinesEventSink final : public core::EventSink {
 public:
  explicit JsonLinesEventSink(int fd = 2) : fd_(fd) {}
  void Emit(const core::LeaseEvent& event) override;

 private:
  int fd_;
  std::mutex mu_;
};

// core::Env on threads and real clocks, under the process-wide mutex below.
class RealEnv final : public core::Env {
 public:
  // `kv`, when given, is the world's one KV store (Env::kv(0)): the etcd
  // cluster itself through EtcdKvClient, for protocols written against the
  // KV seam.
  RealEnv(core::StoreClient& store, core::LedgerClient& ledger, core::EventSink& events,
          core::KvClient* kv = nullptr);
  ~RealEnv() override;
  RealEnv(const RealEnv&) = delete;
  RealEnv& operator=(const RealEnv&) = delete;

  core::Nanos MonotonicNow() override;
  core::Nanos BootNow() override;
  core::Nanos WallNow() override;
  // The latest reading of CLOCK_REALTIME this process has taken through
  // WallNow (its high-water mark), kNoWallReading before the first: what a
  // ledger write's journal line records, so the checker can tell a window
  // settled before the writer's own clock said it was due (settled_early).
  core::Nanos WallSeen() const { return wall_seen_.load(); }
  static constexpr core::Nanos kNoWallReading = std::numeric_limits<core::Nanos>::min();
  void SleepUntil(core::Nanos monotonic_deadline) override;
  void Spawn(std::string_view name, std::function<void()> task) override;
  core::StoreClient& store() override { return store_; }
  core::LedgerClient& ledger() override { return ledger_; }
  core::EventSink& events() override { return events_; }
  int kv_servers() const override { return kv_.has_value() ? 1 : 0; }
  core::KvClient& kv(int server) override;
  std::uint64_t Random() override;
  void AtFaultPoint(core::FaultPoint point) override;

  // Called at every named fault point of the core, under the core mutex
  // (live runs use it to stop the process at a chosen point).
  void SetFaultHook(std::function<void(std::string_view)> hook);

  // Runs fn while holding the core mutex (to read core state from outside).
  void WithCoreLock(const std::function<void()>& fn);

  // The gate for a service's leader callbacks: releases the core mutex
  // around callback code, takes it again for each call into the core.
  core::CallbackGate& callback_gate() { return gate_; }

  // Ends every task at its next blocking point and joins the threads.
  void Stop();

  // The real monotonic clock in nanoseconds (CLOCK_MONOTONIC on Linux: the
  // same clock in every process of the machine).
  static core::Nanos SteadyNanos();
  // CLOCK_BOOTTIME in nanoseconds (lease deadlines are on it).
  static core::Nanos BootClockNanos();

 private:
  friend class UnlockedStore;
  friend class UnlockedLedger;
  friend class UnlockedKv;

  // Releases the core mutex around a blocking call; rethrows TaskStopped
  // when the env stopped meanwhile.
  template <typename Fn>
  auto Blocking(Fn&& fn);

  // The store client a task calls: the process mutex is released while it blocks.
  class UnlockedStore final : public core::StoreClient {
   public:
    UnlockedStore(RealEnv& env, core::StoreClient& inner) : env_(env), inner_(inner) {}
    core::StoreResult Read(std::string_view key, core::Nanos timeout) override;
    core::StoreResult Create(std::string_view key, const core::LeaseRecord& record,
                             core::Nanos timeout) override;
    core::StoreResult CompareAndSet(std::string_view key, std::int64_t expected_version,
                                    const core::LeaseRecord& record, core::Nanos timeout) override;

   private:
    RealEnv& env_;
    core::StoreClient& inner_;
  };
  // The ledger client a task calls: the process mutex is released while it blocks.
  class UnlockedLedger final : public core::LedgerClient {
   public:
    UnlockedLedger(RealEnv& env, core::LedgerClient& inner) : env_(env), inner_(inner) {}
    core::LedgerResult Commit(const core::SettlementBatch& batch, core::Nanos timeout) override;
    core::LedgerResult LastAppliedWindow(core::Nanos timeout) override;

   private:
    RealEnv& env_;
    core::LedgerClient& inner_;
  };

  // The KV client a task calls: the process mutex is released while it blocks.
  class UnlockedKv final : public core::KvClient {
   public:
    UnlockedKv(RealEnv& env, core::KvClient& inner) : env_(env), inner_(inner) {}
    core::KvTxnResult Txn(const core::KvTxn& txn, core::Nanos timeout) override;
    core::KvWatchResult Watch(const core::KvKeys& keys, std::int64_t start_revision, core::Nanos timeout) override;
    core::KvLeaseResult LeaseGrant(core::Nanos ttl, core::Nanos timeout) override;
    core::KvLeaseResult LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) override;
    core::KvLeaseResult LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) override;

   private:
    RealEnv& env_;
    core::KvClient& inner_;
  };

  // The leader-callback gate: a service's callback runs with the process
  // mutex released (Outside); core code it calls takes the mutex (Inside).
  class Gate final : public core::CallbackGate {
   public:
    explicit Gate(RealEnv& env) : env_(env) {}
    void Outside(const std::function<void()>& callback) override;
    void Inside(const std::function<void()>& core_code) override;

   private:
    RealEnv& env_;
  };

  std::mutex core_mu_;                  // held by a task while it runs core code
  std::condition_variable wake_;        // sleepers wait on it (Stop wakes them)
  std::atomic<bool> stopping_{false};
  std::atomic<core::Nanos> wall_seen_{kNoWallReading};
  UnlockedStore store_;
  UnlockedLedger ledger_;
  std::optional<UnlockedKv> kv_;
  Gate gate_;
  core::EventSink& events_;
  std::mt19937_64 random_;
  std::function<void(std::string_view)> fault_hook_;
  std::mutex threads_mu_;
  std::vector<std::thread> threads_;
};

}  // namespace leasesim::etcd
