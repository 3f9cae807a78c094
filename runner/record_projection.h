#pragma once
// The lease record's register history from the KV calls that carry it.
// core's record store over a KV store (core::KvRecordStore) makes each of
// its calls one txn of a fixed shape on the record's key; this recognises
// them, so a recorder can enter each also as the record store's operation
// (checker::StoreOp), which the lease checks, the figures and the record
// store's own linearizability check read.
//
// The projection is sound because, on a key that is never deleted, the
// key's mod revision and its per-key version (etcd's `version`: 1 at
// creation, +1 per put) determine each other: the n-th put of the key is
// its version n. So "compare mod_revision == R, then put" is exactly "CAS
// on version v(R)", "compare create_revision == 0, then put" exactly
// "create (version 1)", and a range of the key a read of its version; the
// projected versions are the record store's own (1, 2, 3, ...).

#include <cstdint>
#include <string_view>

#include "backends/sim_observer.h"
#include "core/kv_store.h"
#include "core/lease_record.h"

namespace leasesim::runner {

// One record-store call as KvRecordStore sends it.
struct RecordCall {
  backends::StoreOpKind kind = backends::StoreOpKind::kRead;
  std::int64_t expected_mod_revision = 0;  // kCas: the mod revision compared
  core::LeaseRecord value;                 // kCreate, kCas: the record put
};

// Whether `txn` is a call on the record under `key` (not: another key,
// another shape, or a value that is no lease record). When it is, `call`
// holds it, the record a create or CAS puts decoded in place (no copy to
// move out: every write of the record comes through here); when not,
// `call` is as it was.
bool AsRecordCall(const core::KvTxn& txn, std::string_view key, RecordCall& call);
// The same for a guarded update (core::KvGuardedPut): a create or CAS of
// the record exactly when its txn (core::KvGuardedPutTxn) is one.
bool AsRecordPut(const core::KvGuardedPut& put, std::string_view key, RecordCall& call);

}  // namespace leasesim::runner
