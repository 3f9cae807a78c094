#pragma once
// A KV store with transactions, ranges and TTL leases, shaped like etcd v3
// (the store core/kv_store.h declares and backends/kv_state.* implements;
// docs/STORE_MODEL.md), as a linearizability model. The history's
// vocabulary is the checker's own (the checker sees no core/): a txn with
// its compares, branches and responses; lease grant, keep-alive and revoke;
// and the store's own ending of a lease (kLeaseExpire), recorded as an
// operation of the store at the instant it applied.
//
// Time is not modelled: whether a lease should have ended by some instant
// depends on the store host's clock, which the history does not carry. The
// model checks that the reads and writes agree with the expiries the store
// did record: e.g. a read that still sees a key after the expiry that
// deleted it completed is not linearizable.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "checker/history.h"
#include "checker/lin_result.h"

namespace leasesim::checker {

using KvStoreLease = std::int64_t;  // 0 = no lease

// A key as read: create/mod revisions are store-wide, version per key.
struct KvStoreEntry {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  KvStoreLease lease = 0;
  friend bool operator==(const KvStoreEntry&, const KvStoreEntry&) = default;
};

enum class KvStoreCompareTarget { kValue, kVersion, kCreateRevision, kModRevision };
enum class KvStoreCompareResult { kEqual, kNotEqual, kLess, kGreater };

// A txn guard on one key. An absent key compares as version and revisions
// 0, and fails every value compare.
struct KvStoreCompare {
  std::string key;
  KvStoreCompareTarget target = KvStoreCompareTarget::kVersion;
  KvStoreCompareResult result = KvStoreCompareResult::kEqual;
  std::int64_t number = 0;
  std::string value;
};

// One request of a txn branch, with its response when the txn returned.
struct KvStoreRequest {
  enum class Kind { kRange, kPut, kDelete };
  Kind kind = Kind::kRange;
  std::string key;
  std::string end;  // kRange, kDelete: "" = the key alone; "\0" = every key >= key; else [key, end)
  std::string value;         // kPut
  KvStoreLease lease = 0;    // kPut
  bool prev_kv = false;      // kPut, kDelete
  bool sort_by_create = false;  // kRange: by create revision (else by key)
  std::int64_t limit = 0;       // kRange: 0 = all
  // Response (the op's outcome kOk).
  std::vector<KvStoreEntry> kvs;  // kRange: entries; kPut/kDelete with prev_kv: what was there
  std::int64_t count = 0;         // kRange: keys in range; kDelete: keys deleted
  bool more = false;              // kRange
};

// One operation as its client (or, for an expiry, the store) recorded it.
struct KvStoreOp {
  enum class Kind { kTxn, kLeaseGrant, kLeaseKeepAlive, kLeaseRevoke, kLeaseExpire };
  Kind kind = Kind::kTxn;
  int process = 0;  // kLeaseExpire: the store's own (any number)
  Outcome outcome = Outcome::kUnknown;
  // kTxn inputs.
  std::vector<KvStoreCompare> compares;
  std::vector<KvStoreRequest> success;
  std::vector<KvStoreRequest> failure;
  // Outputs (kOk).
  bool succeeded = false;        // kTxn: which branch ran
  bool lease_not_found = false;  // kTxn: refused for a put's missing lease; keep-alive, revoke: no such lease
  // Whether the store-wide revisions were recorded (the header revision
  // and entries' create/mod revisions); false: they are not checked.
  bool revisions = true;
  // The header revision after the op; kLeaseExpire: the revision its
  // deletions took, 0 when the lease had no keys.
  std::int64_t revision = 0;
  KvStoreLease lease = 0;   // grant (the id given; 0 if unknown), keep-alive, revoke, expire
  std::int64_t ttl_ns = 0;  // grant, keep-alive: the TTL granted
  TimeNs call_ns = 0;
  TimeNs return_ns = kNeverNs;  // kNeverNs when the outcome is unknown
};

std::string DescribeKvStoreOp(const KvStoreOp& op);

// Whether the history may be checked one group of keys at a time
// (Porcupine's partitioning): only when no operation links keys beyond the
// keys it names: no lease (a lease's end deletes all its keys at once), no
// range or delete over a span of keys, no recorded store-wide revision
// (every write moves it, whichever its key) and no compare of a revision
// other than against 0 (absent). Keys one txn names together stay in one
// partition.
bool KvStoreSplitsByKey(std::span<const KvStoreOp> ops);

// Checks a KV store history: partitioned when KvStoreSplitsByKey allows,
// else as one. Failed operations (definitely not applied) are dropped, and
// so are those of unknown outcome that cannot change the state.
LinResult CheckKvStore(std::span<const KvStoreOp> ops, const LinOptions& options = {});

}  // namespace leasesim::checker
