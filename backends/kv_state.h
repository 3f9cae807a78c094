#pragma once
// The KV store's state machine (core/kv_store.h's semantics): keys under one
// store-wide revision, transactions, ranges, a bounded watch history and TTL
// leases. Deterministic and clock-free: whoever hosts it passes in its own
// clock reading, and which clock that is (monotonic or wall) is the store
// model's choice (KvTtlClock). Every change it makes on its own (a lease
// that ran out) is handed back as a KvExpiry so a history can record it.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/kv_store.h"

namespace leasesim::backends {

using Nanos = std::int64_t;

// Which of the store host's clocks judges a TTL.
//  kMonotonic: etcd (server/lease/lessor.go computes expiry with Go's
//    time.Now(), whose comparisons use the monotonic reading) and ZooKeeper
//    (server/ExpiryQueue.java: deadlines on Time.currentElapsedTime(), an
//    elapsed-time clock, not the calendar).
//  kWall: Redis (keys' expiry is an absolute Unix time in ms: redis.io
//    EXPIRE, "Expires and persistence": setting the clock 2000 s ahead
//    expires a 1000 s key at once).
enum class KvTtlClock { kMonotonic, kWall };

// How the state machine behaves where stores differ.
struct KvStateConfig {
  // The compaction window: the watch history keeps the events of the last
  // this many revisions (etcd --auto-compaction-mode=revision, done at
  // every write here rather than every few minutes).
  std::int64_t history_revisions = 1000;
};

// A lease the store ended because its TTL ran out: the keys it deleted, at
// one new revision (0 when it had none, and the revision did not move).
struct KvExpiry {
  core::KvLeaseId lease = core::kNoLease;
  std::int64_t revision = 0;
  std::vector<std::string> deleted;  // sorted, as etcd's Revoke deletes them
};

// The watch history: events oldest first in a ring of slots that are
// reused, so an event recorded where a compacted one was reuses its key's
// and value's buffers (a store that keeps a bounded window writes one event
// per revision and would otherwise allocate and free two strings each).
class KvEventRing {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // The i-th oldest event.
  const core::KvWatchEvent& operator[](std::size_t i) const { return slots_[(head_ + i) % slots_.size()]; }
  const core::KvWatchEvent& front() const { return (*this)[0]; }
  const core::KvWatchEvent& back() const { return (*this)[size_ - 1]; }
  void PopFront();
  // A slot after the newest event, holding whatever a popped event left
  // there (the caller assigns every field).
  core::KvWatchEvent& PushBack();

 private:
  std::vector<core::KvWatchEvent> slots_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

// The store's state: keys, revision, watch history, leases with their
// expiry index. The hosts (SimKvServer, tests) serialise calls to it.
class KvState {
 public:
  explicit KvState(KvStateConfig config = {});

  core::KvTxnResult Txn(const core::KvTxn& txn);
  // Txn(core::KvGuardedPutTxn(put)) in its own shape: the key looked up
  // once, compared, then put or read (a renewal of the lease record is one).
  core::KvGuardedPutResult GuardedPut(const core::KvGuardedPut& put);
  // `now`: the judging clock's reading; the deadline is now + ttl.
  core::KvLeaseResult LeaseGrant(Nanos ttl, Nanos now);
  // A lease past its deadline is not renewed: etcd's Renew waits for the
  // expired lease's revocation and answers not found. Call ExpireIfDue first.
  core::KvLeaseResult LeaseKeepAlive(core::KvLeaseId lease, Nanos now);
  core::KvLeaseResult LeaseRevoke(core::KvLeaseId lease);
  // Ends every lease whose deadline is <= now, earliest deadline first.
  // O(log leases) per lease ended, O(1) when none is due.
  std::vector<KvExpiry> ExpireDue(Nanos now);
  // Ends this lease if it is due (before a keep-alive of it).
  std::optional<KvExpiry> ExpireIfDue(core::KvLeaseId lease, Nanos now);
  // Ends this lease whatever its deadline (a replicated store's log says
  // its leader found it due); nullopt when it is gone already.
  std::optional<KvExpiry> Expire(core::KvLeaseId lease);
  // The leases whose deadline is <= now, earliest first, at most `limit`,
  // without ending them (a replicated leader proposes their ends instead).
  std::vector<core::KvLeaseId> DueLeases(Nanos now, std::size_t limit) const;
  // The lease's deadline on the judging clock; kNeverNanos when it has none.
  Nanos DeadlineOf(core::KvLeaseId lease) const;
  // Every lease's deadline becomes now + its TTL: a store that restarted
  // (etcd's lessor Promote, server/lease/lessor.go, when a member becomes
  // leader: the time left before is not trusted).
  void RestartDeadlines(Nanos now);
  // The earliest lease deadline; kNeverNanos without leases.
  Nanos NextDeadline() const;
  // The watch's answer now: kCompacted, or kOk with the events on `keys`
  // from start_revision on (empty when there are none yet; start_revision 0
  // = from the next revision).
  core::KvWatchResult EventsFrom(const core::KvKeys& keys, std::int64_t start_revision) const;
  // EventsFrom into `out` (all of it replaced), reusing its storage: the
  // events' vector and strings are assigned, not allocated, where `out`
  // already has room.
  void EventsInto(const core::KvKeys& keys, std::int64_t start_revision, core::KvWatchResult& out) const;

  std::int64_t revision() const { return revision_; }
  std::int64_t compact_revision() const { return compact_revision_; }
  const std::map<std::string, core::KvEntry>& keys() const { return keys_; }
  std::size_t lease_count() const { return leases_.size(); }
  bool HasLease(core::KvLeaseId lease) const { return leases_.contains(lease); }

 private:
  // A granted lease: its TTL, its deadline on the judging clock, its keys.
  struct Lease {
    Nanos ttl;
    Nanos deadline;
    std::set<std::string> keys;
  };
  // A transaction's writes, gathered as they apply (one revision for all).
  struct Pending {
    std::int64_t revision;
    bool changed = false;
  };

  bool Holds(const core::KvCompare& compare) const;
  // A compare of a number field of `entry` (null: the key is absent).
  static bool NumberHolds(const core::KvEntry* entry, core::KvCompareTarget target, core::KvCompareResult result,
                          std::int64_t number);
  // Puts `value` under `key` at `revision` (`it`: the key's entry, or end()
  // when it has none), attached to `lease`, and records the event.
  void PutAt(std::map<std::string, core::KvEntry>::iterator it, const std::string& key, const std::string& value,
             core::KvLeaseId lease, std::int64_t revision);
  static bool WritesOverlap(const std::vector<core::KvRequestOp>& ops);
  bool LeasesExist(const std::vector<core::KvRequestOp>& ops) const;
  core::KvResponseOp ApplyRange(const core::KvRequestOp& op) const;
  core::KvResponseOp ApplyPut(const core::KvRequestOp& op, Pending& pending);
  core::KvResponseOp ApplyDelete(const core::KvRequestOp& op, Pending& pending);
  void DeleteKey(std::map<std::string, core::KvEntry>::iterator it, std::int64_t revision);
  void Detach(const core::KvEntry& entry);
  // Deletes the lease's keys at one new revision and forgets it.
  KvExpiry EndLease(core::KvLeaseId lease);
  // Appends a put of `entry` (as it is now) to the watch history.
  void RecordPut(const core::KvEntry& entry);
  // Appends the deletion of `key` at `revision`.
  void RecordDelete(const std::string& key, std::int64_t revision);
  void Compact();

  static constexpr std::size_t kKeysMax = 1'000'000;
  static constexpr std::size_t kLeasesMax = 1'000'000;

  KvStateConfig config_;
  std::map<std::string, core::KvEntry> keys_;
  // etcd's first revision is 1 (an empty store answers revision 1).
  std::int64_t revision_ = 1;
  std::int64_t compact_revision_ = 0;
  KvEventRing history_;  // revision order
  std::map<core::KvLeaseId, Lease> leases_;
  std::set<std::pair<Nanos, core::KvLeaseId>> deadlines_;  // the expiry index
  core::KvLeaseId next_lease_ = 1;
};

}  // namespace leasesim::backends
