#include "runner/kv_recorder.h"

#include <cassert>
#include <utility>

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
  return op;
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
  return static_cast<std::int64_t>(ops_.size() - 1);
}

void KvRecorder::KvApplied(std::int64_t op, const backends::KvReply& reply) {
  assert(op >= 0 && static_cast<std::size_t>(op) < applied_.size());
  applied_[static_cast<std::size_t>(op)] = reply;
}

void KvRecorder::KvCompleted(std::int64_t index, const backends::KvReply& reply) {
  assert(index >= 0 && static_cast<std::size_t>(index) < ops_.size());
  checker::KvStoreOp& op = ops_[static_cast<std::size_t>(index)];
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
}

}  // namespace leasesim::runner
