#pragma once
// The store seam the lease code people ship actually uses, shaped like etcd
// v3's KV, Watch and Lease services (etcd api/etcdserverpb/rpc.proto;
// etcd docs "Interacting with etcd", "KV API guarantees"): versioned keys
// under one store-wide revision, mini-transactions, ranges, watches from a
// revision, and TTL leases that keys are attached to. etcd's election, a
// Redlock key with a TTL, ZooKeeper's ephemeral sequential nodes and a
// Kubernetes Lease's resource-version CAS are all expressible on it (see
// docs/STORE_MODEL.md). core's own protocol uses it through KvRecordStore
// (core/kv_record_store.h), its StoreClient over one key.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/units.h"

namespace leasesim::core {

using base::Nanos;

// etcd's LeaseID; 0 is etcd's NoLease (a key attached to no lease).
using KvLeaseId = std::int64_t;
inline constexpr KvLeaseId kNoLease = 0;

// mvccpb.KeyValue: revisions are store-wide, version is per key (1 at
// creation, +1 per put, gone with the key: a re-created key starts at 1).
struct KvEntry {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  KvLeaseId lease = kNoLease;
  friend bool operator==(const KvEntry&, const KvEntry&) = default;
};

// Which keys a range or delete names, as etcd's (key, range_end): end empty
// = the key alone; otherwise every key in [key, end); end "\0" = every key
// >= key.
struct KvKeys {
  std::string key;
  std::string end;
  static KvKeys Single(std::string_view key) { return KvKeys{std::string(key), {}}; }
  // Every key starting with `prefix` (clientv3.WithPrefix: end = the
  // prefix with its last byte below 0xff incremented).
  static KvKeys Prefix(std::string_view prefix);
  bool Contains(std::string_view candidate) const;
  friend bool operator==(const KvKeys&, const KvKeys&) = default;
};

// Compare.CompareTarget (LEASE is not modelled) and Compare.CompareResult.
enum class KvCompareTarget { kValue, kVersion, kCreateRevision, kModRevision };
enum class KvCompareResult { kEqual, kNotEqual, kLess, kGreater };

// One guard of a transaction, on a single key. An absent key compares as
// create revision 0, mod revision 0, version 0; a value compare on an absent
// key is false whatever the operator (etcd's applyCompare).
struct KvCompare {
  std::string key;
  KvCompareTarget target = KvCompareTarget::kVersion;
  KvCompareResult result = KvCompareResult::kEqual;
  std::int64_t number = 0;  // version or revision compared against
  std::string value;        // kValue
};

enum class KvSortBy { kKey, kCreateRevision };  // ascending (SortOrder ASCEND)

// RequestOp: a range, a put or a delete.
struct KvRequestOp {
  enum class Kind { kRange, kPut, kDelete };
  Kind kind = Kind::kRange;
  KvKeys keys;                   // kPut: keys.key alone
  std::string value;             // kPut
  KvLeaseId lease = kNoLease;    // kPut: attach the key to this lease
  bool prev_kv = false;          // kPut, kDelete: return what was there before
  KvSortBy sort_by = KvSortBy::kKey;  // kRange
  std::int64_t limit = 0;        // kRange: at most this many entries; 0 = all
  // kRange: etcd's RangeRequest.serializable, a member-local read that
  // skips consensus and may be stale (rpc.proto: "in exchange for possible
  // stale reads, a serializable range request is served locally"). A txn
  // of nothing but such ranges is served so too (etcd v3_server.go
  // isTxnSerializable). A store that lags (the stale-read store) may answer
  // it from an older state; every other read is linearizable.
  bool serializable = false;

  static KvRequestOp Range(KvKeys keys, KvSortBy sort_by = KvSortBy::kKey, std::int64_t limit = 0);
  // The value by value: a caller's freshly encoded value moves in.
  static KvRequestOp Put(std::string_view key, std::string value, KvLeaseId lease = kNoLease);
  static KvRequestOp Delete(KvKeys keys);
};

// ResponseOp.
struct KvResponseOp {
  KvRequestOp::Kind kind = KvRequestOp::Kind::kRange;
  // kRange: the entries (sorted, at most limit); kPut/kDelete with prev_kv:
  // the entries as they were before.
  std::vector<KvEntry> kvs;
  std::int64_t count = 0;  // kRange: keys in the range (limit aside); kDelete: keys deleted
  bool more = false;       // kRange: the limit left some out
  friend bool operator==(const KvResponseOp&, const KvResponseOp&) = default;
};

// TxnRequest: if every compare holds, `success` runs, else `failure`; all
// of it at one revision (one more than before when it changed anything).
// A branch may not write a key twice (etcd: ErrDuplicateKey).
struct KvTxn {
  std::vector<KvCompare> compares;
  std::vector<KvRequestOp> success;
  std::vector<KvRequestOp> failure;
};

// The guarded update of one key: If(compare on key).Then(Put(key, value))
// .Else(Range(key)). It is the txn Kubernetes' apiserver issues for every
// object write (k8s.io/apiserver pkg/storage/etcd3/store.go,
// GuaranteedUpdate: If(ModRevision(key) == rev).Then(OpPut(key, data))
// .Else(OpGet(key)), retried with the range's entry on a conflict; its
// Create is If(ModRevision(key) == 0).Then(OpPut) without the else), and
// KvRecordStore's create (create_revision == 0: the key is absent) and
// CAS. The compare is on a number (not kValue); the put names no lease.
// Its meaning is exactly KvGuardedPutTxn's.
struct KvGuardedPut {
  std::string key;
  KvCompareTarget target = KvCompareTarget::kModRevision;  // kVersion, kCreateRevision or kModRevision
  KvCompareResult result = KvCompareResult::kEqual;
  std::int64_t number = 0;
  std::string value;
};

enum class KvStatus {
  kOk,
  kLeaseNotFound,  // a put named a lease the store does not have (nothing applied)
  kInvalid,        // etcd rejects it (a key written twice in a branch): nothing applied
  kCompacted,      // a watch from a revision the store no longer keeps: read again
  kUnavailable,    // definitely not applied
  kTimeout,        // outcome unknown: may or may not have been applied
};

// TxnResponse, with the call's outcome.
struct KvTxnResult {
  KvStatus status = KvStatus::kTimeout;
  bool succeeded = false;     // which branch ran
  std::int64_t revision = 0;  // the header revision: the store's, after the txn
  std::vector<KvResponseOp> responses;
};

// A guarded update's answer: the generic txn's (KvGuardedPutResultOf) without
// its lists. The then branch's put answers nothing (no prev_kv); the else
// branch's range answers the key's entry when it has one.
struct KvGuardedPutResult {
  KvStatus status = KvStatus::kTimeout;
  bool succeeded = false;     // the compare held: the put ran
  std::int64_t revision = 0;  // the header revision (the put's mod revision when it ran)
  // kOk, not succeeded: the key's entry, when it exists. Optional, not an
  // empty entry: the answer is moved several times on its way, and most
  // answers (a renewal's) carry none.
  std::optional<KvEntry> current;
  friend bool operator==(const KvGuardedPutResult&, const KvGuardedPutResult&) = default;
};

// The guarded update as the generic txn (the value moved in), and the
// txn's answer in the guarded update's shape and back: a client without a
// guarded update of its own sends the txn, and a history records it.
KvTxn KvGuardedPutTxn(KvGuardedPut put);
KvGuardedPutResult KvGuardedPutResultOf(const KvTxnResult& result);
KvTxnResult KvGuardedPutTxnResult(const KvGuardedPutResult& result);

// mvccpb.Event. A delete's kv carries the key and, as mod_revision, the
// revision of the deletion (the rest zero), as etcd reports it.
struct KvWatchEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  KvEntry kv;
  friend bool operator==(const KvWatchEvent&, const KvWatchEvent&) = default;
};

// One answer of a long-polled watch.
struct KvWatchResult {
  KvStatus status = KvStatus::kTimeout;  // kTimeout: no news, which proves nothing
  // kOk: every event on the keys from the start revision on, in revision
  // order, whole revisions only.
  std::vector<KvWatchEvent> events;
  std::int64_t revision = 0;          // the store's revision when it answered
  std::int64_t compact_revision = 0;  // kCompacted: the oldest revision still kept
};

// A watch's answer, immutable and possibly shared: a simulated store hands
// every client told of one change the same answer (one allocation per
// change, not a copy per watcher).
using KvWatchAnswer = std::shared_ptr<const KvWatchResult>;

// LeaseGrantResponse, LeaseKeepAliveResponse, LeaseRevokeResponse.
struct KvLeaseResult {
  KvStatus status = KvStatus::kTimeout;
  KvLeaseId id = kNoLease;
  Nanos ttl = 0;              // grant / keep-alive: the TTL now running (0: not found)
  std::int64_t revision = 0;  // the header revision (a revoke that deleted keys: new)
};

// What protocols call. Calls block the calling task for at most `timeout`
// (then kTimeout: the outcome is unknown). Every call but Watch is
// linearizable.
class KvClient {
 public:
  virtual ~KvClient() = default;
  virtual KvTxnResult Txn(const KvTxn& txn, Nanos timeout) = 0;
  // Txn of a txn the caller gives away: a client that keeps the request
  // (a simulated one, until the store applies it) takes it without a copy.
  virtual KvTxnResult TxnOwned(KvTxn txn, Nanos timeout) { return Txn(txn, timeout); }
  // The guarded update: by default its generic txn (KvGuardedPutTxn) sent
  // with TxnOwned; a client with a cheaper way to send that one shape (a
  // simulated one) overrides it, and must answer exactly as the txn would.
  virtual KvGuardedPutResult GuardedPut(KvGuardedPut put, Nanos timeout);
  // A txn holding this one range (etcd's Range RPC has the same semantics).
  KvTxnResult Range(const KvRequestOp& range, Nanos timeout);
  // Long-polls a watch: returns once the store has an event on `keys` at a
  // revision >= start_revision (all it has from there), or kCompacted when
  // start_revision is older than the store keeps (the caller reads again and
  // watches from that read's revision + 1), or kTimeout.
  virtual KvWatchResult Watch(const KvKeys& keys, std::int64_t start_revision, Nanos timeout) = 0;
  // Watch(keys, start_revision, next_timeout()), again after each kTimeout
  // for as long as again() says the caller would only wait once more;
  // returns the first answer that is not a timeout, or the timeout again()
  // declined. `again` may only read memory (clocks included) and
  // next_timeout may only draw from Env::Random: a simulated store asks
  // them between the waits without resuming the task (a quiet wait then
  // costs the simulator no task switch).
  virtual KvWatchResult WatchWhile(const KvKeys& keys, std::int64_t start_revision,
                                   const std::function<Nanos()>& next_timeout, const std::function<bool()>& again);
  // WatchWhile's answer as it is held (never null): a client whose answers
  // are shared (a simulated stream's) hands one over without a copy; by
  // default, WatchWhile's answer in a new allocation. `last_timeout` is set
  // to each timeout next_timeout() gives, so it ends as the one the answer
  // ended (a caller reading after a kCompacted answer gives the read as
  // long), without the caller wrapping next_timeout in a function of its own.
  virtual KvWatchAnswer WatchWhileShared(const KvKeys& keys, std::int64_t start_revision,
                                         const std::function<Nanos()>& next_timeout,
                                         const std::function<bool()>& again, Nanos& last_timeout);
  virtual KvLeaseResult LeaseGrant(Nanos ttl, Nanos timeout) = 0;
  // Restarts the lease's full TTL; kLeaseNotFound once it expired or was revoked.
  virtual KvLeaseResult LeaseKeepAlive(KvLeaseId lease, Nanos timeout) = 0;
  // Ends the lease and deletes its keys (at one new revision).
  virtual KvLeaseResult LeaseRevoke(KvLeaseId lease, Nanos timeout) = 0;
};

// etcd's prefix end (clientv3 GetPrefixRangeEnd): "\0" when no byte can be
// incremented (the prefix is empty or all 0xff).
std::string KvPrefixEnd(std::string_view prefix);

}  // namespace leasesim::core
