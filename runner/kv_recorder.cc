#include "runner/kv_recorder.h"

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
    case backends::KvRequest::Kind::kTxn: return checker::KvStoreOp::Kind::kTxn;
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

KvRecorder::KvRecorder(sim::World& world, std::string store) : world_(world), store_(std::move(store)) {}

checker::KvStoreOp& KvRecorder::NewOp() {
  checker::KvStoreOp& op = ops_.emplace_back();
  op.store = store_;
  op.call_ns = world_.now();
  applied_.emplace_back();
  projected_.emplace_back();
  return op;
}

void KvRecorder::ProjectRecord(std::string key, backends::SimObserver& records) {
  assert(ops_.empty());
  record_key_ = std::move(key);
  records_ = &records;
}

std::int64_t KvRecorder::VersionAt(std::int64_t mod_revision) const {
  const auto found = version_at_mod_.find(mod_revision);
  return found == version_at_mod_.end() ? -1 : found->second;
}

void KvRecorder::ProjectInvoked(int node, const core::KvTxn& txn) {
  std::optional<RecordCall> call = AsRecordCall(txn, record_key_);
  if (!call) return;
  Projected& projected = projected_.back();
  projected.kind = call->kind;
  projected.expected_mod_revision = call->expected_mod_revision;
  projected.written = std::move(call->value);
  // A CAS on a mod revision the record never had compares a version it never had.
  const std::int64_t expected = call->kind == backends::StoreOpKind::kCas ? VersionAt(call->expected_mod_revision) : 0;
  projected.store_op = records_->StoreInvoked(node, "n" + std::to_string(node), call->kind, record_key_, expected,
                                              projected.written);
}

void KvRecorder::LearnVersions(const Projected& call, const core::KvTxnResult& reply) {
  if (reply.status != core::KvStatus::kOk) return;
  if (reply.succeeded && call.kind == backends::StoreOpKind::kCreate) version_at_mod_[reply.revision] = 1;
  if (reply.succeeded && call.kind == backends::StoreOpKind::kCas) {
    // The store found the record at that mod revision, which a record call
    // applied here before (unless some other writer put it: then unknown).
    const std::int64_t before = VersionAt(call.expected_mod_revision);
    if (before > 0) version_at_mod_[reply.revision] = before + 1;
  }
  for (const core::KvResponseOp& response : reply.responses) {
    for (const core::KvEntry& entry : response.kvs) {
      if (entry.key == record_key_) version_at_mod_[entry.mod_revision] = entry.version;
    }
  }
}

std::int64_t KvRecorder::KvInvoked(int node, const backends::KvRequest& request) {
  checker::KvStoreOp& op = NewOp();
  op.kind = ToKind(request.kind);
  op.process = node;
  op.lease = request.lease;
  op.ttl_ns = request.ttl;
  for (const core::KvCompare& compare : request.txn.compares) {
    op.compares.push_back(checker::KvStoreCompare{compare.key,
                                                  static_cast<checker::KvStoreCompareTarget>(compare.target),
                                                  static_cast<checker::KvStoreCompareResult>(compare.result),
                                                  compare.number, compare.value});
  }
  op.success = ToRequests(request.txn.success);
  op.failure = ToRequests(request.txn.failure);
  if (records_ != nullptr && request.kind == backends::KvRequest::Kind::kTxn) ProjectInvoked(node, request.txn);
  return static_cast<std::int64_t>(ops_.size() - 1);
}

void KvRecorder::KvApplied(std::int64_t op, const backends::KvReply& reply) {
  assert(op >= 0);
  assert(static_cast<std::size_t>(op) < applied_.size());
  applied_[static_cast<std::size_t>(op)] = reply;
  ops_[static_cast<std::size_t>(op)].applied_seq = next_kv_applied_seq_++;
  const Projected& call = projected_[static_cast<std::size_t>(op)];
  if (call.store_op < 0) return;
  records_->StoreApplied(call.store_op, next_applied_seq_++);
  LearnVersions(call, reply.txn);
}

void KvRecorder::KvCompleted(std::int64_t index, const backends::KvReply& reply) {
  assert(index >= 0);
  assert(static_cast<std::size_t>(index) < ops_.size());
  checker::KvStoreOp& op = ops_[static_cast<std::size_t>(index)];
  if (const Projected& call = projected_[static_cast<std::size_t>(index)]; call.store_op >= 0) {
    const bool write = call.kind != backends::StoreOpKind::kRead;
    core::StoreResult result = core::RecordResultOf(reply.txn, write ? &call.written : nullptr);
    // The record store's versions: the key's own, not its mod revision.
    if (result.current.found) result.current.version = VersionAt(result.current.version);
    records_->StoreCompleted(call.store_op, result);
  }
  const bool txn = op.kind == checker::KvStoreOp::Kind::kTxn;
  const core::KvStatus status = txn ? reply.txn.status : reply.lease.status;
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
  RecordTxnReply(op, reply.txn);
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

void KvRecorder::KvLeaseExpired(const backends::KvExpiry& expiry) {
  checker::KvStoreOp& op = NewOp();
  op.kind = checker::KvStoreOp::Kind::kLeaseExpire;
  op.process = 0;  // the store's own
  op.outcome = checker::Outcome::kOk;
  op.lease = expiry.lease;
  op.revision = expiry.revision;
  op.return_ns = world_.now();
  op.applied_seq = next_kv_applied_seq_++;
}

}  // namespace leasesim::runner
