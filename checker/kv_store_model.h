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

// The history vocabulary (KvStoreOp and its parts) is in checker/history.h.

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
