#pragma once
// The one seam between the lease protocol and the world it runs in. core/
// sees nothing else: the simulator and the real world (threads, clocks,
// etcd) each implement it in backends/. Calls block the calling task; in
// simulation a task is a fiber, so blocking is deterministic.

#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/fault_points.h"
#include "core/kv_store.h"
#include "core/lease_record.h"
#include "core/probes.h"

namespace leasesim::core {

enum class StoreStatus {
  kOk,
  kConflict,     // version mismatch (CAS) or key exists (create): not applied
  kUnavailable,  // definitely not applied
  kTimeout,      // outcome unknown: may or may not have been applied
};

struct StoreResult {
  StoreStatus status = StoreStatus::kTimeout;
  // kOk: the record now stored (Read: as read; Create/CAS: as written, with
  // its new version). kConflict: the store's current record, when it said.
  VersionedRecord current;
};

// The coordination store holding lease records. Reads are linearizable.
class StoreClient {
 public:
  virtual ~StoreClient() = default;
  virtual StoreResult Read(std::string_view key, Nanos timeout) = 0;
  virtual StoreResult Create(std::string_view key, const LeaseRecord& record, Nanos timeout) = 0;
  virtual StoreResult CompareAndSet(std::string_view key, std::int64_t expected_version,
                                    const LeaseRecord& record, Nanos timeout) = 0;

  // A watch on the record, as etcd has: whether WaitForChange works here.
  virtual bool CanWatch() const { return false; }
  // Blocks until the record under `key` is seen with a version above
  // known_version (kOk, with it: as a read would return it), or at most
  // `timeout` (kTimeout: no news, which proves nothing: a change may have
  // been missed). A store that cannot watch answers kUnavailable at once.
  virtual StoreResult WaitForChange(std::string_view key, std::int64_t known_version, Nanos timeout) {
    (void)key;
    (void)known_version;
    (void)timeout;
    return StoreResult{StoreStatus::kUnavailable, {}};
  }
  // WaitForChange(key, known_version, next_timeout()), again after each
  // timeout for as long as again() says the caller would only wait once
  // more; returns the first answer that is not a timeout, or the timeout
  // again() declined. `again` may only read memory (clocks included) and
  // next_timeout may only draw from Env::Random: a simulated store asks
  // them between the waits without resuming the task.
  virtual StoreResult WaitForChangeWhile(std::string_view key, std::int64_t known_version,
                                         const std::function<Nanos()>& next_timeout,
                                         const std::function<bool()>& again) {
    for (;;) {
      StoreResult result = WaitForChange(key, known_version, next_timeout());
      if (result.status != StoreStatus::kTimeout || !again()) return result;
    }
  }
};

struct SettlementItem {
  std::int64_t window = 0;
  std::int64_t index = 0;
  std::int64_t amount = 0;
};

// One settlement window's batch: applied as one transaction or not at all.
struct SettlementBatch {
  std::int64_t token = 0;          // fencing token: the lease term
  std::string idempotency_key;     // one per window; empty = none, and the ledger cannot deduplicate
  std::int64_t window = 0;
  std::vector<SettlementItem> items;
  Nanos lease_deadline = 0;        // the writer's own validity deadline (boot clock), for the record
};

enum class LedgerStatus {
  kApplied,
  kRejectedStale,  // fenced: a higher token was already accepted
  kDuplicate,      // the key was applied before; nothing changed
  kUnavailable,
  kTimeout,        // outcome unknown; a retry is safe thanks to the key
};

struct LedgerResult {
  LedgerStatus status = LedgerStatus::kTimeout;
  std::int64_t highest_token = 0;   // the ledger's fence after the call, when known
  std::int64_t last_window = -1;    // LastAppliedWindow: highest window applied, -1 if none
};

// The business resource: a fenced, idempotent ledger.
class LedgerClient {
 public:
  virtual ~LedgerClient() = default;
  virtual LedgerResult Commit(const SettlementBatch& batch, Nanos timeout) = 0;
  virtual LedgerResult LastAppliedWindow(Nanos timeout) = 0;
};

struct LeaseEvent;

// Structured events out of the protocol ("acquired", "renewed", ...).
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void Emit(const LeaseEvent& event) = 0;
};

// The world as the protocol sees it: clocks, sleeping, tasks, the store, the
// ledger, the KV seam and the event sink.
class Env {
 public:
  virtual ~Env() = default;
  // The node's own monotonic clock (CLOCK_MONOTONIC): only differences of it
  // mean anything; it stands still while the machine is suspended.
  virtual Nanos MonotonicNow() = 0;
  // The boot clock (CLOCK_BOOTTIME): the monotonic clock plus the time the
  // machine spent suspended. Never stepped, so boot minus monotonic grows
  // exactly by the suspended time. A leader's validity is counted on it: the
  // store's clock, which ends the lease for everyone else, keeps running
  // while this machine is suspended.
  virtual Nanos BootNow() = 0;
  // The node's wall clock: may jump, either way. Used for scheduling and for
  // informational timestamps, never for judging another node's lease.
  virtual Nanos WallNow() = 0;
  // Blocks the calling task until the monotonic clock reads >= deadline.
  virtual void SleepUntil(Nanos monotonic_deadline) = 0;
  // Sleeps `period` at a time, each step from the wake-up that ended the
  // last (as SleepUntil(MonotonicNow() + period) in a loop), until `done()`
  // is true at a wake-up. `done` may only read memory (no Env call, no
  // blocking): an Env may ask it between the task's steps without resuming
  // the task, which is the point (a poll that finds nothing new costs a
  // simulator no task switch).
  virtual void SleepInSteps(Nanos period, const std::function<bool()>& done) {
    do {
      SleepUntil(MonotonicNow() + period);
    } while (!done());
  }
  // Starts a concurrent task of the same process.
  virtual void Spawn(std::string_view name, std::function<void()> task) = 0;
  virtual StoreClient& store() = 0;
  virtual LedgerClient& ledger() = 0;
  virtual EventSink& events() = 0;
  // The KV stores the world offers (core/kv_store.h: etcd v3's data model),
  // each an independent single store, numbered 0..kv_servers()-1: etcd's
  // election needs one, Redlock N of them. A world that offers none (the
  // default) has 0, and kv() may not be called there.
  virtual int kv_servers() const { return 0; }
  virtual KvClient& kv(int server) {
    (void)server;
    assert(false && "kv(): this world offers no KV store (kv_servers() == 0)");
    std::abort();
  }
  // Randomness for jitter only (never for correctness).
  virtual std::uint64_t Random() = 0;
  // A named point where a test world may strike (pause, crash, ...).
  virtual void AtFaultPoint(FaultPoint point) { (void)point; }
  // A rare path of the protocol ran (a coverage probe; see core/probes.h).
  virtual void Sometimes(Probe probe) { (void)probe; }
};

}  // namespace leasesim::core
