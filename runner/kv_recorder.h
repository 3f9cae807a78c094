#pragma once
// Records one simulated KV store's operations (backends/sim_kv_server.h's
// KvObserver reports) as the checker's history (checker::KvStoreOp): every
// client call with its true invoke and complete times (unknown when the
// call timed out or its process died first), and every lease the store
// ended on its own clock, as an operation of the store at that instant.
// The run's history carries them (History::kv_ops) for the KV store's
// linearizability check (checker/kv_store_model.h).
//
// On the store that holds the lease record (ProjectRecord), the calls of
// core's record store (core::KvRecordStore) are also entered as the record
// store's operations (checker::StoreOp, through the run's SimObserver),
// with the record's per-key versions (runner/record_projection.h): the
// lease checks and the record store's figures read those. So is each
// answer of a watch stream on the record's key: a read, invoked and
// applied when the store answered, complete when the answer arrived (the
// wait before it is no store call), as the record store reported them.
//
// The world's lease store records only that projection (KvOps::kProjectOnly):
// its KV calls are core's record calls and nothing else, judged by the
// record store's model as before; a KV store offered to protocols records
// both.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/sim_kv_server.h"
#include "backends/sim_observer.h"
#include "checker/history.h"
#include "runner/record_projection.h"
#include "sim/world.h"

namespace leasesim::runner {

// One per KV store: its operations, tagged with the store's host name.
class KvRecorder final : public backends::KvObserver {
 public:
  enum class KvOps { kRecord, kProjectOnly };
  KvRecorder(sim::World& world, std::string store, KvOps kv_ops = KvOps::kRecord);

  std::int64_t KvInvoked(int node, std::string_view process, const backends::KvRequest& request) override;
  void KvApplied(std::int64_t op, const backends::KvReply& reply) override;
  void KvCompleted(std::int64_t op, const backends::KvReply& reply) override;
  void KvLeaseExpired(const backends::KvExpiry& expiry) override;
  void KvAppliedAt(std::int64_t op, const backends::KvReply& reply, std::int64_t place) override;
  void KvLeaseExpiredAt(const backends::KvExpiry& expiry, std::int64_t place) override;
  // The streams on the record's key, when it projects the record store's calls.
  bool ReportsStream(const backends::KvStreamRequest& stream) override;
  std::int64_t KvStreamAnswered(const backends::KvStreamRequest& stream, const core::KvWatchResult& answer,
                                const core::KvEntry* current) override;
  void KvStreamDelivered(std::int64_t op) override;

  // Enters the record-store calls on `key` also as the record store's
  // operations, reported to `records` (the run's recorder) as the record
  // store server reported them: invoked, applied (in this store's order),
  // completed.
  void ProjectRecord(std::string key, backends::SimObserver& records);
  // About n stream answers on the record's key are expected (one per
  // follower and change): their ids' bookkeeping is reserved, not moved as
  // it grows. A hint, not a limit.
  void ExpectStreamAnswers(std::size_t n);

  const std::vector<checker::KvStoreOp>& ops() const { return ops_; }
  // Hands the operations over (the recorder holds none after). A grant
  // whose caller never learned its outcome (a timeout, or its process
  // died first) carries the id the store gave, when the store applied it.
  std::vector<checker::KvStoreOp> TakeOps();

 private:
  // A new call's slot (and its KvStoreOp when they are recorded); its id.
  std::int64_t NewOp();
  void RecordTxnReply(checker::KvStoreOp& op, const core::KvTxnResult& reply) const;
  // An op the store applied, or a lease it ended, at place_of(counter): the
  // store's own place, or the counter's next value (a store reports one
  // way or the other).
  template <typename PlaceOf>
  void Applied(std::int64_t op, const backends::KvReply& reply, PlaceOf place_of);
  template <typename PlaceOf>
  void Expired(const backends::KvExpiry& expiry, PlaceOf place_of);
  // A KV call that is also a record-store call (RecordCall: its kind, the
  // compared mod revision, the record written).
  struct Projected : RecordCall {
    std::int64_t store_op = -1;  // the record store op's id; -1: not a record call
    bool guarded_put = false;    // a guarded update: its answer is the reply's `put`
  };
  void ProjectInvoked(int node, std::string_view process, const backends::KvRequest& request);
  // Enters a txn's compares and branches in the recorded op.
  static void RecordTxnRequest(checker::KvStoreOp& op, const core::KvTxn& txn);
  // Learns the record's versions from what the store applied.
  void LearnVersions(const Projected& call, const backends::KvReply& reply);
  void LearnVersion(std::int64_t mod_revision, std::int64_t version);
  // The record's per-key version at this mod revision; -1 when unknown.
  std::int64_t VersionAt(std::int64_t mod_revision) const;

  sim::World& world_;
  std::string store_;
  bool record_kv_ops_;
  std::vector<checker::KvStoreOp> ops_;  // by op, when recorded
  // What the store answered when it applied each op (the store's own
  // knowledge): a timed-out grant's lease id is learned here.
  std::vector<std::optional<backends::KvReply>> applied_;
  backends::SimObserver* records_ = nullptr;  // set by ProjectRecord
  std::string record_key_;
  std::vector<Projected> projected_;  // by op
  // Each stream answer on the record's key: its read's id and what it
  // read (in stream_results_: one change is answered on every stream).
  struct StreamRead {
    std::int64_t store_op;
    std::size_t result;
  };
  std::vector<StreamRead> stream_reads_;  // by the id KvStreamAnswered gave
  std::vector<core::StoreResult> stream_results_;
  std::int64_t last_read_mod_revision_ = -1;  // of stream_results_.back()'s record (0: absent)
  // The record's per-key version at each mod revision (-1: unknown). By
  // revision: they are small and dense, a store's count of its writes.
  std::vector<std::int64_t> version_at_mod_;
  std::int64_t next_applied_seq_ = 0;  // of the record store's ops
  std::int64_t next_kv_applied_seq_ = 0;  // of this store's ops (KvStoreOp::applied_seq)
};

}  // namespace leasesim::runner
