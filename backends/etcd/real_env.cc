#include "backends/etcd/real_env.h"

#include <cassert>
#include <ctime>
#include <chrono>

#include "base/units.h"
#include "base/write_all.h"

namespace leasesim::etcd {

void JsonLinesEventSink::Emit(const core::LeaseEvent& event) {
  const std::string line = core::ToJson(event) + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  // An event that cannot be written is dropped: events are for operators,
  // and the lease protocol must not stop because its log is full.
  (void)base::WriteAll(fd_, line);
}

RealEnv::RealEnv(core::StoreClient& store, core::LedgerClient& ledger, core::EventSink& events,
                 core::KvClient* kv)
    : store_(*this, store),
      ledger_(*this, ledger),
      gate_(*this),
      events_(events),
      random_(std::random_device{}()) {  // determinism-ok: live mode (jitter only)
  if (kv != nullptr) kv_.emplace(*this, *kv);
}

core::KvClient& RealEnv::kv(int server) {
  assert(kv_.has_value() && "kv(): this RealEnv was given no KV store (kv_servers() == 0)");
  assert(server == 0 && "kv(): a RealEnv offers one KV store, kv(0)");
  (void)server;
  return *kv_;
}

RealEnv::~RealEnv() { Stop(); }

core::Nanos RealEnv::SteadyNanos() {
  // determinism-ok: live mode — the real monotonic clock.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

core::Nanos RealEnv::MonotonicNow() { return SteadyNanos(); }

core::Nanos RealEnv::BootNow() { return BootClockNanos(); }

core::Nanos RealEnv::BootClockNanos() {
  // CLOCK_BOOTTIME: CLOCK_MONOTONIC plus the time the machine was suspended.
  timespec now{};
  const int rc = ::clock_gettime(CLOCK_BOOTTIME, &now);
  assert(rc == 0);
  (void)rc;
  return base::Seconds(now.tv_sec) + now.tv_nsec;
}

core::Nanos RealEnv::WallNow() {
  // determinism-ok: live mode — the real wall clock (may jump).
  const core::Nanos now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  // A clock stepped back does not lower the mark: a reading once taken
  // cannot be un-seen.
  core::Nanos seen = wall_seen_.load();
  while (now > seen && !wall_seen_.compare_exchange_weak(seen, now)) {
  }
  return now;
}

void RealEnv::SleepUntil(core::Nanos monotonic_deadline) {
  // The calling task holds core_mu_; waiting releases it.
  std::unique_lock<std::mutex> lock(core_mu_, std::adopt_lock);
  // determinism-ok: live mode — a real timed wait on the monotonic clock.
  const std::chrono::steady_clock::time_point until{std::chrono::nanoseconds(monotonic_deadline)};
  while (!stopping_.load() && std::chrono::steady_clock::now() < until) {
    wake_.wait_until(lock, until);
  }
  lock.release();  // the task keeps holding it
  if (stopping_.load()) throw TaskStopped{};
}

void RealEnv::Spawn(std::string_view name, std::function<void()> task) {
  (void)name;
  std::lock_guard<std::mutex> lock(threads_mu_);
  if (stopping_.load()) return;
  // determinism-ok: live mode — one real thread per task.
  threads_.emplace_back([this, task = std::move(task)] {
    std::unique_lock<std::mutex> core(core_mu_);
    try {
      if (!stopping_.load()) task();
    } catch (const TaskStopped&) {
      // Stop(): the task unwound at a blocking point; core_mu_ is held again.
    }
  });
}

std::uint64_t RealEnv::Random() { return random_(); }  // called under core_mu_

void RealEnv::AtFaultPoint(core::FaultPoint point) {
  if (fault_hook_) fault_hook_(core::FaultPointName(point));
}

void RealEnv::SetFaultHook(std::function<void(std::string_view)> hook) {
  std::lock_guard<std::mutex> lock(core_mu_);
  fault_hook_ = std::move(hook);
}

void RealEnv::WithCoreLock(const std::function<void()>& fn) {
  std::lock_guard<std::mutex> lock(core_mu_);
  fn();
}

void RealEnv::Stop() {
  {
    std::lock_guard<std::mutex> lock(core_mu_);
    stopping_.store(true);
  }
  wake_.notify_all();
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(threads_mu_);
    threads.swap(threads_);
  }
  for (std::thread& thread : threads) {
    if (thread.joinable()) thread.join();
  }
}

template <typename Fn>
auto RealEnv::Blocking(Fn&& fn) {
  core_mu_.unlock();
  auto result = fn();
  core_mu_.lock();
  if (stopping_.load()) throw TaskStopped{};
  return result;
}

void RealEnv::Gate::Outside(const std::function<void()>& callback) {
  // Entered from core code (the mutex held); left with it held again, also
  // when the callback unwinds with an exception.
  struct Relock {
    std::mutex& mu;
    ~Relock() { mu.lock(); }
  };
  env_.core_mu_.unlock();
  {
    Relock relock{env_.core_mu_};
    callback();
  }
  if (env_.stopping_.load()) throw TaskStopped{};
}

void RealEnv::Gate::Inside(const std::function<void()>& core_code) {
  // Entered from a callback (the mutex free); a TaskStopped thrown by the
  // core code leaves with the mutex free again.
  std::unique_lock<std::mutex> lock(env_.core_mu_);
  if (env_.stopping_.load()) throw TaskStopped{};
  core_code();
}

core::StoreResult RealEnv::UnlockedStore::Read(std::string_view key, core::Nanos timeout) {
  return env_.Blocking([&] { return inner_.Read(key, timeout); });
}

core::StoreResult RealEnv::UnlockedStore::Create(std::string_view key, const core::LeaseRecord& record,
                                                 core::Nanos timeout) {
  return env_.Blocking([&] { return inner_.Create(key, record, timeout); });
}

core::StoreResult RealEnv::UnlockedStore::CompareAndSet(std::string_view key, std::int64_t expected_version,
                                                        const core::LeaseRecord& record, core::Nanos timeout) {
  return env_.Blocking([&] { return inner_.CompareAndSet(key, expected_version, record, timeout); });
}

core::LedgerResult RealEnv::UnlockedLedger::Commit(const core::SettlementBatch& batch, core::Nanos timeout) {
  return env_.Blocking([&] { return inner_.Commit(batch, timeout); });
}

core::LedgerResult RealEnv::UnlockedLedger::LastAppliedWindow(core::Nanos timeout) {
  return env_.Blocking([&] { return inner_.LastAppliedWindow(timeout); });
}

}  // namespace leasesim::etcd

namespace leasesim::etcd {

core::KvTxnResult RealEnv::UnlockedKv::Txn(const core::KvTxn& txn, core::Nanos timeout) {
  return env_.Blocking([&] { return inner_.Txn(txn, timeout); });
}

core::KvWatchResult RealEnv::UnlockedKv::Watch(const core::KvKeys& keys, std::int64_t start_revision,
                                               core::Nanos timeout) {
  return env_.Blocking([&] { return inner_.Watch(keys, start_revision, timeout); });
}

core::KvLeaseResult RealEnv::UnlockedKv::LeaseGrant(core::Nanos ttl, core::Nanos timeout) {
  return env_.Blocking([&] { return inner_.LeaseGrant(ttl, timeout); });
}

core::KvLeaseResult RealEnv::UnlockedKv::LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) {
  return env_.Blocking([&] { return inner_.LeaseKeepAlive(lease, timeout); });
}

core::KvLeaseResult RealEnv::UnlockedKv::LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) {
  return env_.Blocking([&] { return inner_.LeaseRevoke(lease, timeout); });
}

}  // namespace leasesim::etcd
