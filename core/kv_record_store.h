#pragma once
// core's record store (StoreClient: one versioned lease record per key) over
// any KV store with etcd v3's data model (KvClient, core/kv_store.h), so
// the lease protocol runs unchanged on the simulated KV store, the
// replicated one and real etcd alike.
//
// The record is one key's value (EncodeLeaseRecord); its version is the
// key's mod revision, as a Kubernetes object's resourceVersion is etcd's
// mod revision: the apiserver's update (k8s.io/apiserver
// pkg/storage/etcd3/store.go, GuaranteedUpdate) is the txn
// If(ModRevision(key) == rev).Then(OpPut).Else(OpGet), which CompareAndSet
// below is. The record is never deleted, so the version only grows. The
// calls:
//   Read           a range of the key
//   Create         txn {create_revision(key) == 0} then {put} else {range key}
//   CompareAndSet  txn {mod_revision(key) == expected} then {put} else {range key}
//                  (both sent as KvClient::GuardedPut, that txn's own shape)
//   WaitForChange  Watch(key, known_version + 1); kCompacted: read again
// Status mapping (KvStatus -> StoreStatus):
//   kOk            the txn's branch decides: then = kOk (the record as
//                  written, versioned by the txn's header revision, which
//                  is the put's mod revision); else = kConflict with the
//                  record the range found (none when absent)
//   kUnavailable   kUnavailable (definitely not applied)
//   kTimeout       kTimeout (outcome unknown)
//   kLeaseNotFound, kInvalid: nothing was applied (etcd rejects the whole
//                  txn), so kUnavailable; neither can happen with the one
//                  put these txns hold, which names no lease.
// A value that is not a lease record (another writer's key) reads as
// kUnavailable, and a create or CAS that finds one as kConflict with no
// record, as the etcd backend answers (backends/etcd/etcd_store.cc).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/env.h"
#include "core/kv_store.h"
#include "core/lease_record.h"

namespace leasesim::core {

// The record as a key's value: the four numbers in decimal, then holder and
// successor each as "<length>:<bytes>", one space between fields
// ("7 10000000000 0 0 4:n1#1 0:"). Text, so a history file shows it as it
// is; parsed with from_chars and no allocation beyond the two strings.
std::string EncodeLeaseRecord(const LeaseRecord& record);
// nullopt when `value` is not such an encoding (trailing bytes included).
std::optional<LeaseRecord> DecodeLeaseRecord(std::string_view value);
// DecodeLeaseRecord into `record` (left as it was when false): no optional
// to fill and move out of, for a caller that has the record's place.
bool DecodeLeaseRecordInto(std::string_view value, LeaseRecord& record);

// The record store's answer to one of KvRecordStore's txns (the mapping
// above): `written` is the record a create or CAS put, null for a read.
// Versions are mod revisions. Recorders use it to project the txns as
// record-store calls (runner/record_projection.h).
StoreResult RecordResultOf(const KvTxnResult& result, const LeaseRecord* written);
// The same for a create or CAS sent as a guarded update (KvGuardedPut):
// what RecordResultOf answers for its txn (KvGuardedPutTxnResult).
StoreResult RecordResultOf(const KvGuardedPutResult& result, const LeaseRecord& written);

// How a KvRecordStore uses its store. The defaults are etcd's own: reads
// linearizable, changes watched.
struct KvRecordStoreOptions {
  // CanWatch(): false makes the protocol poll with reads (a store whose
  // client cannot keep a watch's order, as one reading a lagging replica).
  bool watch = true;
  // Reads as serializable ranges (clientv3.WithSerializable(); etcdctl
  // --consistency=s): served by whichever member answers, possibly stale.
  bool serializable_reads = false;
};

// StoreClient over a KvClient (which must outlive it). One instance per
// process incarnation, as the client it wraps.
class KvRecordStore final : public StoreClient {
 public:
  explicit KvRecordStore(KvClient& kv, KvRecordStoreOptions options = {}) : kv_(kv), options_(options) {}

  StoreResult Read(std::string_view key, Nanos timeout) override;
  StoreResult Create(std::string_view key, const LeaseRecord& record, Nanos timeout) override;
  StoreResult CompareAndSet(std::string_view key, std::int64_t expected_version, const LeaseRecord& record,
                            Nanos timeout) override;
  bool CanWatch() const override { return options_.watch; }
  StoreResult WaitForChange(std::string_view key, std::int64_t known_version, Nanos timeout) override;
  // The quiet waits go to KvClient::WatchWhileShared, so a simulated store
  // keeps asking again() between them without resuming the task, and hands
  // over the answer it holds without a copy.
  StoreResult WaitForChangeWhile(std::string_view key, std::int64_t known_version,
                                 const std::function<Nanos()>& next_timeout,
                                 const std::function<bool()>& again) override;

 private:
  // A txn {target(key) == number} then {put record} else {range key},
  // mapped as above.
  StoreResult Write(std::string_view key, KvCompareTarget target, std::int64_t number, const LeaseRecord& record,
                    Nanos timeout);
  // Where a watch for news past known_version starts: known_version + 1,
  // or later when a read after a compaction showed the record unchanged up
  // to a newer revision (etcd issue 8668: watch from a read's revision + 1).
  std::int64_t WatchStart(std::string_view key, std::int64_t known_version) const;
  // A watch's answer as WaitForChange's: kCompacted reads again.
  StoreResult FromWatch(std::string_view key, std::int64_t known_version, const KvWatchResult& watched,
                        Nanos timeout);

  KvClient& kv_;
  KvRecordStoreOptions options_;
  // WaitForChangeWhile's keys (kept: a store watches one key, and the keys
  // were built anew at every wait).
  KvKeys watched_;
  // After a compaction: the record under resume_key_ was read unchanged at
  // resume_known_, with the store at resume_revision_.
  std::string resume_key_;
  std::int64_t resume_known_ = -1;
  std::int64_t resume_revision_ = 0;
};

}  // namespace leasesim::core
