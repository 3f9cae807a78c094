#include "runner/kv_recorder.h"

#include <algorithm>
#include <cassert>
#include <string>
#include <utility>

#include "core/kv_record_store.h"
#include "runner/record_projection.h"

namespace leasesim::runner {
namespace {

// The two vocabularies name the same things in the same order.
static_assert(static_cast<int>(core::KvRequestOp::Kind::kDelete) ==
              static_cast<int>(checker::KvStoreRequest::Kind::kDelete));
static_assert(static_cast<int>(core::KvCompareTarget::kModRevision) ==
              static_cast<int>(checker::KvStoreCompareTarget::kModRevision));
static_assert(static_cast<int>(core::KvCompareResult::kGreater) ==
              static_cast<int>(checker::KvStoreCompareResult::kGreater));

checker::KvStoreEntry ToEntry(const core::KvEntry& entry) {
  return checker::KvStoreEntry{entry.key, entry.value, entry.create_revision, entry.mod_revision, entry.version,
                               entry.lease};
}

checker::KvStoreOp::Kind ToKind(backends::KvRequest::Kind kind) {
  switch (kind) {
    case backends::KvRequest::Kind::kTxn:
    case backends::KvRequest::Kind::kGuardedPut: return checker::KvStoreOp::Kind::kTxn;
    case backends::KvRequest::Kind::kLeaseGrant: return checker::KvStoreOp::Kind::kLeaseGrant;
    case backends::KvRequest::Kind::kLeaseKeepAlive: return checker::KvStoreOp::Kind::kLeaseKeepAlive;
    case backends::KvRequest::Kind::kLeaseRevoke: return checker::KvStoreOp::Kind::kLeaseRevoke;
  }
  return checker::KvStoreOp::Kind::kTxn;
}

checker::KvStoreRequest ToRequest(const core::KvRequestOp& op) {
  checker::KvStoreRequest request;
  request.kind = static_cast<checker::KvStoreRequest::Kind>(op.kind);
  request.key = op.keys.key;
  request.end = op.keys.end;
  request.value = op.value;
  request.lease = op.lease;
  request.prev_kv = op.prev_kv;
  request.sort_by_create = op.sort_by == core::KvSortBy::kCreateRevision;
  request.limit = op.limit;
  return request;
}

std::vector<checker::KvStoreRequest> ToRequests(const std::vector<core::KvRequestOp>& ops) {
  std::vector<checker::KvStoreRequest> requests;
  requests.reserve(ops.size());
  for (const core::KvRequestOp& op : ops) requests.push_back(ToRequest(op));
  return requests;
}

}  // namespace

KvRecorder::KvRecorder(sim::World& world, std::string store, KvOps kv_ops)
    : world_(world), store_(std::move(store)), record_kv_ops_(kv_ops == KvOps::kRecord) {}

std::int64_t KvRecorder::NewOp() {
  projected_.emplace_back();
  if (record_kv_ops_) {
    checker::KvStoreOp& op = ops_.emplace_back();
    op.store = store_;
    op.call_ns = world_.now();
    applied_.emplace_back();
    assert(ops_.size() == projected_.size());
  }
  return static_cast<std::int64_t>(projected_.size() - 1);
}

void KvRecorder::ProjectRecord(std::string key, backends::SimObserver& records) {
  assert(ops_.empty());
  record_key_ = std::move(key);
  records_ = &records;
}

std::int64_t KvRecorder::VersionAt(std::int64_t mod_revision) const {
  if (mod_revision < 0 || static_cast<std::size_t>(mod_revision) >= version_at_mod_.size()) return -1;
  return version_at_mod_[static_cast<std::size_t>(mod_revision)];
}

void KvRecorder::ProjectInvoked(int node, std::string_view process, const backends::KvRequest& request) {
  Projected& projected = projected_.back();
  const bool record_call = request.kind == backends::KvRequest::Kind::kGuardedPut
                               ? AsRecordPut(request.put, record_key_, projected)
                               : request.kind == backends::KvRequest::Kind::kTxn &&
                                     AsRecordCall(request.txn, record_key_, projected);
  if (!record_call) return;
  // A CAS on a mod revision the record never had compares a version it never had.
  const std::int64_t expected =
      projected.kind == backends::StoreOpKind::kCas ? VersionAt(projected.expected_mod_revision) : 0;
  // The process's identity as it is (no copy), or a name made for a nameless one.
  const std::string nameless = process.empty() ? "n" + std::to_string(node) : std::string();
  const std::string_view who = process.empty() ? std::string_view(nameless) : process;
  projected.store_op = records_->StoreInvoked(node, who, projected.kind, record_key_, expected, projected.value);
}

void KvRecorder::LearnVersion(std::int64_t mod_revision, std::int64_t version) {
  assert(mod_revision > 0);
  assert(version > 0);
  const auto at = static_cast<std::size_t>(mod_revision);
  if (at >= version_at_mod_.size()) version_at_mod_.resize(std::max(at + 1, version_at_mod_.size() * 2), -1);
  version_at_mod_[at] = version;
}

void KvRecorder::LearnVersions(const Projected& call, const backends::KvReply& reply) {
  const core::KvStatus status = call.guarded_put ? reply.put.status : reply.txn.status;
  if (status != core::KvStatus::kOk) return;
  const bool succeeded = call.guarded_put ? reply.put.succeeded : reply.txn.succeeded;
  const std::int64_t revision = call.guarded_put ? reply.put.revision : reply.txn.revision;
  if (succeeded && call.kind == backends::StoreOpKind::kCreate) LearnVersion(revision, 1);
  if (succeeded && call.kind == backends::StoreOpKind::kCas) {
    // The store found the record at that mod revision, which a record call
    // applied here before (unless some other writer put it: then unknown).
    const std::int64_t before = VersionAt(call.expected_mod_revision);
    if (before > 0) LearnVersion(revision, before + 1);
  }
  if (call.guarded_put) {
    // What the else branch's range found (the then branch's put answers nothing).
    const std::optional<core::KvEntry>& found = reply.put.current;
    if (found && found->key == record_key_) LearnVersion(found->mod_revision, found->version);
    return;
  }
  for (const core::KvResponseOp& response : reply.txn.responses) {
    for (const core::KvEntry& entry : response.kvs) {
      if (entry.key == record_key_) LearnVersion(entry.mod_revision, entry.version);
    }
  }
}

std::int64_t KvRecorder::KvInvoked(int node, std::string_view process, const backends::KvRequest& request) {
  const std::int64_t id = NewOp();
  const bool guarded_put = request.kind == backends::KvRequest::Kind::kGuardedPut;
  projected_.back().guarded_put = guarded_put;
  if (records_ != nullptr) ProjectInvoked(node, process, request);
  if (!record_kv_ops_) return id;
  checker::KvStoreOp& op = ops_.back();
  op.kind = ToKind(request.kind);
  op.process = node;
  op.lease = request.lease;
  op.ttl_ns = request.ttl;
  // A guarded update is recorded as the txn it stands for.
  RecordTxnRequest(op, guarded_put ? core::KvGuardedPutTxn(request.put) : request.txn);
  return id;
}

void KvRecorder::RecordTxnRequest(checker::KvStoreOp& op, const core::KvTxn& txn) {
  for (const core::KvCompare& compare : txn.compares) {
    op.compares.push_back(checker::KvStoreCompare{compare.key,
                                                  static_cast<checker::KvStoreCompareTarget>(compare.target),
                                                  static_cast<checker::KvStoreCompareResult>(compare.result),
                                                  compare.number, compare.value});
  }
  op.success = ToRequests(txn.success);
  op.failure = ToRequests(txn.failure);
}

template <typename PlaceOf>
void KvRecorder::Applied(std::int64_t op, const backends::KvReply& reply, PlaceOf place_of) {
  assert(op >= 0);
  assert(static_cast<std::size_t>(op) < projected_.size());
  if (record_kv_ops_) {
    applied_[static_cast<std::size_t>(op)] = reply;
    ops_[static_cast<std::size_t>(op)].applied_seq = place_of(next_kv_applied_seq_);
  }
  const Projected& call = projected_[static_cast<std::size_t>(op)];
  if (call.store_op < 0) return;
  records_->StoreApplied(call.store_op, place_of(next_applied_seq_));
  LearnVersions(call, reply);
}

// The place a store reports an op at (KvAppliedAt), or the next in the
// order of its reports (KvApplied): one function of the counter to draw
// from, so each path compiles to its own code.
void KvRecorder::KvApplied(std::int64_t op, const backends::KvReply& reply) {
  Applied(op, reply, [](std::int64_t& next) { return next++; });
}

void KvRecorder::KvAppliedAt(std::int64_t op, const backends::KvReply& reply, std::int64_t place) {
  assert(place >= 0);
  Applied(op, reply, [place](std::int64_t&) { return place; });
}

void KvRecorder::KvCompleted(std::int64_t index, const backends::KvReply& reply) {
  assert(index >= 0);
  assert(static_cast<std::size_t>(index) < projected_.size());
  const Projected& call = projected_[static_cast<std::size_t>(index)];
  if (call.store_op >= 0) {
    const bool write = call.kind != backends::StoreOpKind::kRead;
    core::StoreResult result = call.guarded_put ? core::RecordResultOf(reply.put, call.value)
                                                : core::RecordResultOf(reply.txn, write ? &call.value : nullptr);
    // The record store's versions: the key's own, not its mod revision.
    if (result.current.found) result.current.version = VersionAt(result.current.version);
    records_->StoreCompleted(call.store_op, result);
  }
  if (!record_kv_ops_) return;
  checker::KvStoreOp& op = ops_[static_cast<std::size_t>(index)];
  const bool txn = op.kind == checker::KvStoreOp::Kind::kTxn;
  const core::KvStatus status = !txn ? reply.lease.status : call.guarded_put ? reply.put.status : reply.txn.status;
  if (status == core::KvStatus::kTimeout) {
    op.outcome = checker::Outcome::kUnknown;  // (a grant's id: TakeOps)
    return;
  }
  op.return_ns = world_.now();
  // A refusal for a missing lease is an answer about the store's state.
  const bool answered = status == core::KvStatus::kOk || status == core::KvStatus::kLeaseNotFound;
  op.outcome = answered ? checker::Outcome::kOk : checker::Outcome::kFail;
  op.lease_not_found = status == core::KvStatus::kLeaseNotFound;
  if (!txn) {
    op.lease = reply.lease.id;
    op.ttl_ns = reply.lease.ttl;
    op.revision = reply.lease.revision;
    return;
  }
  // A guarded update's answer as its txn's (off the hot path: the world's
  // lease store records no KV ops).
  if (call.guarded_put) {
    RecordTxnReply(op, core::KvGuardedPutTxnResult(reply.put));
  } else {
    RecordTxnReply(op, reply.txn);
  }
}

void KvRecorder::RecordTxnReply(checker::KvStoreOp& op, const core::KvTxnResult& reply) const {
  op.succeeded = reply.succeeded;
  op.revision = reply.revision;
  std::vector<checker::KvStoreRequest>& branch = op.succeeded ? op.success : op.failure;
  assert(reply.responses.empty() || reply.responses.size() == branch.size());
  for (std::size_t i = 0; i < reply.responses.size(); ++i) {
    for (const core::KvEntry& entry : reply.responses[i].kvs) branch[i].kvs.push_back(ToEntry(entry));
    branch[i].count = reply.responses[i].count;
    branch[i].more = reply.responses[i].more;
  }
}

std::vector<checker::KvStoreOp> KvRecorder::TakeOps() {
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    checker::KvStoreOp& op = ops_[i];
    const bool unknown_grant =
        op.kind == checker::KvStoreOp::Kind::kLeaseGrant && op.outcome == checker::Outcome::kUnknown;
    if (unknown_grant && applied_[i]) {
      op.lease = applied_[i]->lease.id;
      op.ttl_ns = applied_[i]->lease.ttl;  // as granted: a store may bound the TTL asked
    }
  }
  applied_.clear();
  projected_.clear();
  return std::move(ops_);
}

template <typename PlaceOf>
void KvRecorder::Expired(const backends::KvExpiry& expiry, PlaceOf place_of) {
  NewOp();
  if (!record_kv_ops_) return;
  checker::KvStoreOp& op = ops_.back();
  op.kind = checker::KvStoreOp::Kind::kLeaseExpire;
  op.process = 0;  // the store's own
  op.outcome = checker::Outcome::kOk;
  op.lease = expiry.lease;
  op.revision = expiry.revision;
  op.return_ns = world_.now();
  op.applied_seq = place_of(next_kv_applied_seq_);
}

void KvRecorder::KvLeaseExpired(const backends::KvExpiry& expiry) {
  Expired(expiry, [](std::int64_t& next) { return next++; });
}

void KvRecorder::KvLeaseExpiredAt(const backends::KvExpiry& expiry, std::int64_t place) {
  assert(place >= 0);
  Expired(expiry, [place](std::int64_t&) { return place; });
}

bool KvRecorder::ReportsStream(const backends::KvStreamRequest& stream) {
  return records_ != nullptr && stream.keys.end.empty() && stream.keys.key == record_key_;
}

void KvRecorder::ExpectStreamAnswers(std::size_t n) {
  // (Capped: a long run's reservation stays modest. Reserving the results,
  // one per change, measured no better.)
  constexpr std::size_t kReservedMax = 1 << 16;
  stream_reads_.reserve(std::min(n, kReservedMax));
}

std::int64_t KvRecorder::KvStreamAnswered(const backends::KvStreamRequest& stream, const core::KvWatchResult& answer,
                                          const core::KvEntry* current) {
  // Only for a stream on the record's key (ReportsStream, asked when it registered).
  (void)answer;  // the record as it is now is what the answer tells (its newest event, or no change)
  const std::int64_t mod_revision = current == nullptr ? 0 : current->mod_revision;
  if (mod_revision != last_read_mod_revision_) {
    // A change not answered before: what a read of the record returns now.
    core::StoreResult read{core::StoreStatus::kOk, {}};  // absent: found false, version 0
    if (current != nullptr) {
      // (Not a record: another writer's value on the key, no record read.)
      if (!core::DecodeLeaseRecordInto(current->value, read.current.record)) return -1;
      read.current.found = true;
      read.current.version = VersionAt(mod_revision);
    }
    stream_results_.push_back(std::move(read));
    last_read_mod_revision_ = mod_revision;
  }
  const std::int64_t store_op = records_->WatchAnswered(stream.node, stream.process, record_key_, next_applied_seq_++);
  stream_reads_.push_back(StreamRead{store_op, stream_results_.size() - 1});
  return static_cast<std::int64_t>(stream_reads_.size() - 1);
}

void KvRecorder::KvStreamDelivered(std::int64_t op) {
  assert(op >= 0);
  assert(static_cast<std::size_t>(op) < stream_reads_.size());
  const StreamRead& delivered = stream_reads_[static_cast<std::size_t>(op)];
  records_->StoreCompleted(delivered.store_op, stream_results_[delivered.result]);
}

}  // namespace leasesim::runner
