#include "backends/kv_state.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <limits>

namespace leasesim::backends {
namespace {

using core::KvRequestOp;

// etcd's compareKV: the key's field against the compare's operand.
template <typename T>
bool Compared(const T& actual, const T& operand, core::KvCompareResult result) {
  switch (result) {
    case core::KvCompareResult::kEqual: return actual == operand;
    case core::KvCompareResult::kNotEqual: return actual != operand;
    case core::KvCompareResult::kLess: return actual < operand;
    case core::KvCompareResult::kGreater: return actual > operand;
  }
  return false;
}

Nanos DeadlineAfter(Nanos now, Nanos ttl) {
  assert(ttl > 0);
  return now > std::numeric_limits<Nanos>::max() - ttl ? std::numeric_limits<Nanos>::max() : now + ttl;
}

// Whether two writes of one branch name a common key (etcd checkIntervals:
// a put may not share its key with another put or with a delete's range;
// deletes may overlap each other).
bool Clash(const KvRequestOp& a, const KvRequestOp& b) {
  if (a.kind == KvRequestOp::Kind::kPut && b.kind == KvRequestOp::Kind::kPut) return a.keys.key == b.keys.key;
  if (a.kind == KvRequestOp::Kind::kPut && b.kind == KvRequestOp::Kind::kDelete) return b.keys.Contains(a.keys.key);
  if (a.kind == KvRequestOp::Kind::kDelete && b.kind == KvRequestOp::Kind::kPut) return a.keys.Contains(b.keys.key);
  return false;
}

}  // namespace

KvState::KvState(KvStateConfig config) : config_(config) { assert(config_.history_revisions >= 1); }

bool KvState::Holds(const core::KvCompare& compare) const {
  const auto it = keys_.find(compare.key);
  if (compare.target == core::KvCompareTarget::kValue) {
    // etcd's applyCompare: a value compare on a missing key always fails.
    return it != keys_.end() && Compared(it->second.value, compare.value, compare.result);
  }
  return NumberHolds(it == keys_.end() ? nullptr : &it->second, compare.target, compare.result, compare.number);
}

bool KvState::NumberHolds(const core::KvEntry* entry, core::KvCompareTarget target, core::KvCompareResult result,
                          std::int64_t number) {
  // etcd's applyCompare: a missing key's numbers are an empty KeyValue's (all zero).
  if (entry == nullptr) return Compared<std::int64_t>(0, number, result);
  switch (target) {
    case core::KvCompareTarget::kVersion: return Compared(entry->version, number, result);
    case core::KvCompareTarget::kCreateRevision: return Compared(entry->create_revision, number, result);
    case core::KvCompareTarget::kModRevision: return Compared(entry->mod_revision, number, result);
    case core::KvCompareTarget::kValue: break;
  }
  assert(false);  // a value compare is no number's
  return false;
}

bool KvState::WritesOverlap(const std::vector<KvRequestOp>& ops) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    for (std::size_t j = i + 1; j < ops.size(); ++j) {
      if (Clash(ops[i], ops[j])) return true;
    }
  }
  return false;
}

bool KvState::LeasesExist(const std::vector<KvRequestOp>& ops) const {
  return std::all_of(ops.begin(), ops.end(), [&](const KvRequestOp& op) {
    return op.kind != KvRequestOp::Kind::kPut || op.lease == core::kNoLease || leases_.contains(op.lease);
  });
}

core::KvTxnResult KvState::Txn(const core::KvTxn& txn) {
  core::KvTxnResult result;
  result.revision = revision_;
  // etcd validates both branches before it evaluates anything.
  if (WritesOverlap(txn.success) || WritesOverlap(txn.failure)) {
    result.status = core::KvStatus::kInvalid;
    return result;
  }
  result.succeeded = std::all_of(txn.compares.begin(), txn.compares.end(),
                                 [&](const core::KvCompare& compare) { return Holds(compare); });
  const std::vector<KvRequestOp>& ops = result.succeeded ? txn.success : txn.failure;
  // etcd checks the leases of the branch that will run (checkRequestPut),
  // and applies nothing when one is missing.
  if (!LeasesExist(ops)) {
    result.status = core::KvStatus::kLeaseNotFound;
    return result;
  }
  Pending pending{revision_ + 1};
  result.responses.reserve(ops.size());
  for (const KvRequestOp& op : ops) {
    switch (op.kind) {
      case KvRequestOp::Kind::kRange: result.responses.push_back(ApplyRange(op)); break;
      case KvRequestOp::Kind::kPut: result.responses.push_back(ApplyPut(op, pending)); break;
      case KvRequestOp::Kind::kDelete: result.responses.push_back(ApplyDelete(op, pending)); break;
    }
  }
  if (pending.changed) {
    revision_ = pending.revision;
    Compact();
  }
  result.status = core::KvStatus::kOk;
  result.revision = revision_;
  return result;
}

core::KvGuardedPutResult KvState::GuardedPut(const core::KvGuardedPut& put) {
  assert(put.target != core::KvCompareTarget::kValue);
  core::KvGuardedPutResult result;
  result.status = core::KvStatus::kOk;
  // Neither branch can be invalid (one put) or name a missing lease (none).
  const auto it = keys_.find(put.key);
  const core::KvEntry* entry = it == keys_.end() ? nullptr : &it->second;
  result.succeeded = NumberHolds(entry, put.target, put.result, put.number);
  if (!result.succeeded) {
    // The else branch's range of the key.
    if (entry != nullptr) result.current = *entry;
    result.revision = revision_;
    return result;
  }
  PutAt(it, put.key, put.value, core::kNoLease, revision_ + 1);
  ++revision_;
  Compact();
  result.revision = revision_;
  return result;
}

core::KvResponseOp KvState::ApplyRange(const KvRequestOp& op) const {
  core::KvResponseOp response;
  response.kind = KvRequestOp::Kind::kRange;
  if (op.keys.end.empty()) {
    const auto it = keys_.find(op.keys.key);
    if (it != keys_.end()) response.kvs.push_back(it->second);
  } else {
    for (auto it = keys_.lower_bound(op.keys.key); it != keys_.end() && op.keys.Contains(it->first); ++it) {
      response.kvs.push_back(it->second);
    }
  }
  if (op.sort_by == core::KvSortBy::kCreateRevision) {
    std::stable_sort(response.kvs.begin(), response.kvs.end(), [](const core::KvEntry& a, const core::KvEntry& b) {
      return a.create_revision < b.create_revision;
    });
  }
  response.count = static_cast<std::int64_t>(response.kvs.size());
  if (op.limit > 0 && response.count > op.limit) {
    response.kvs.resize(static_cast<std::size_t>(op.limit));
    response.more = true;
  }
  return response;
}

core::KvResponseOp KvState::ApplyPut(const KvRequestOp& op, Pending& pending) {
  core::KvResponseOp response;
  response.kind = KvRequestOp::Kind::kPut;
  const auto it = keys_.find(op.keys.key);
  if (op.prev_kv && it != keys_.end()) response.kvs.push_back(it->second);
  PutAt(it, op.keys.key, op.value, op.lease, pending.revision);
  pending.changed = true;
  return response;
}

void KvState::PutAt(std::map<std::string, core::KvEntry>::iterator it, const std::string& key,
                    const std::string& value, core::KvLeaseId lease, std::int64_t revision) {
  if (it == keys_.end()) {
    assert(keys_.size() < kKeysMax);
    it = keys_.emplace(key, core::KvEntry{key, value, revision, revision, 1, lease}).first;
  } else {
    Detach(it->second);
    core::KvEntry& entry = it->second;
    entry.value = value;
    entry.mod_revision = revision;
    entry.version += 1;
    entry.lease = lease;
  }
  if (lease != core::kNoLease) leases_.at(lease).keys.insert(key);
  RecordPut(it->second);
}

core::KvResponseOp KvState::ApplyDelete(const KvRequestOp& op, Pending& pending) {
  core::KvResponseOp response;
  response.kind = KvRequestOp::Kind::kDelete;
  auto it = op.keys.end.empty() ? keys_.find(op.keys.key) : keys_.lower_bound(op.keys.key);
  while (it != keys_.end() && op.keys.Contains(it->first)) {
    if (op.prev_kv) response.kvs.push_back(it->second);
    Detach(it->second);
    const auto next = std::next(it);
    DeleteKey(it, pending.revision);
    ++response.count;
    it = next;
  }
  if (response.count > 0) pending.changed = true;
  return response;
}

void KvState::DeleteKey(std::map<std::string, core::KvEntry>::iterator it, std::int64_t revision) {
  RecordDelete(it->first, revision);
  keys_.erase(it);
}

void KvState::Detach(const core::KvEntry& entry) {
  if (entry.lease == core::kNoLease) return;
  // A key's lease lives as long as the key: ending a lease deletes its keys.
  const auto lease = leases_.find(entry.lease);
  assert(lease != leases_.end());
  lease->second.keys.erase(entry.key);
}

core::KvLeaseResult KvState::LeaseGrant(Nanos ttl, Nanos now) {
  assert(ttl > 0);
  assert(leases_.size() < kLeasesMax);
  const core::KvLeaseId id = next_lease_++;
  const Nanos deadline = DeadlineAfter(now, ttl);
  leases_.emplace(id, Lease{ttl, deadline, {}});
  deadlines_.emplace(deadline, id);
  return core::KvLeaseResult{core::KvStatus::kOk, id, ttl, revision_};
}

core::KvLeaseResult KvState::LeaseKeepAlive(core::KvLeaseId lease, Nanos now) {
  const auto it = leases_.find(lease);
  if (it == leases_.end()) return core::KvLeaseResult{core::KvStatus::kLeaseNotFound, lease, 0, revision_};
  assert(it->second.deadline > now);  // the host ended a due lease first (ExpireIfDue)
  deadlines_.erase({it->second.deadline, lease});
  it->second.deadline = DeadlineAfter(now, it->second.ttl);
  deadlines_.emplace(it->second.deadline, lease);
  return core::KvLeaseResult{core::KvStatus::kOk, lease, it->second.ttl, revision_};
}

core::KvLeaseResult KvState::LeaseRevoke(core::KvLeaseId lease) {
  if (!leases_.contains(lease)) return core::KvLeaseResult{core::KvStatus::kLeaseNotFound, lease, 0, revision_};
  EndLease(lease);
  return core::KvLeaseResult{core::KvStatus::kOk, lease, 0, revision_};
}

std::vector<KvExpiry> KvState::ExpireDue(Nanos now) {
  std::vector<KvExpiry> expired;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    expired.push_back(EndLease(deadlines_.begin()->second));
  }
  return expired;
}

std::optional<KvExpiry> KvState::ExpireIfDue(core::KvLeaseId lease, Nanos now) {
  const auto it = leases_.find(lease);
  if (it == leases_.end() || it->second.deadline > now) return std::nullopt;
  return EndLease(lease);
}

std::optional<KvExpiry> KvState::Expire(core::KvLeaseId lease) {
  if (!leases_.contains(lease)) return std::nullopt;
  return EndLease(lease);
}

std::vector<core::KvLeaseId> KvState::DueLeases(Nanos now, std::size_t limit) const {
  std::vector<core::KvLeaseId> due;
  for (auto it = deadlines_.begin(); it != deadlines_.end() && it->first <= now && due.size() < limit; ++it) {
    due.push_back(it->second);
  }
  return due;
}

Nanos KvState::DeadlineOf(core::KvLeaseId lease) const {
  const auto it = leases_.find(lease);
  return it == leases_.end() ? std::numeric_limits<Nanos>::max() : it->second.deadline;
}

void KvState::RestartDeadlines(Nanos now) {
  deadlines_.clear();
  for (auto& [id, lease] : leases_) {
    lease.deadline = DeadlineAfter(now, lease.ttl);
    deadlines_.emplace(lease.deadline, id);
  }
}

Nanos KvState::NextDeadline() const {
  return deadlines_.empty() ? std::numeric_limits<Nanos>::max() : deadlines_.begin()->first;
}

KvExpiry KvState::EndLease(core::KvLeaseId lease) {
  const auto it = leases_.find(lease);
  assert(it != leases_.end());
  deadlines_.erase({it->second.deadline, lease});
  KvExpiry expiry;
  expiry.lease = lease;
  // etcd's Revoke: the keys sorted, deleted in one backend txn (one revision).
  expiry.deleted.assign(it->second.keys.begin(), it->second.keys.end());
  for (const std::string& key : expiry.deleted) {
    const auto entry = keys_.find(key);
    assert(entry != keys_.end());
    assert(entry->second.lease == lease);
    DeleteKey(entry, revision_ + 1);
  }
  leases_.erase(it);
  if (!expiry.deleted.empty()) {
    ++revision_;
    Compact();
    expiry.revision = revision_;
  }
  return expiry;
}

void KvEventRing::PopFront() {
  assert(size_ > 0);
  head_ = (head_ + 1) % slots_.size();
  --size_;
}

core::KvWatchEvent& KvEventRing::PushBack() {
  if (size_ == slots_.size()) {
    // Full: the events move, oldest first, into a ring twice the size.
    std::vector<core::KvWatchEvent> grown(std::max<std::size_t>(16, 2 * slots_.size()));
    for (std::size_t i = 0; i < size_; ++i) grown[i] = std::move(slots_[(head_ + i) % slots_.size()]);
    slots_ = std::move(grown);
    head_ = 0;
  }
  ++size_;
  return slots_[(head_ + size_ - 1) % slots_.size()];
}

void KvState::RecordPut(const core::KvEntry& entry) {
  assert(history_.empty() || history_.back().kv.mod_revision <= entry.mod_revision);
  core::KvWatchEvent& event = history_.PushBack();
  event.type = core::KvWatchEvent::Type::kPut;
  event.kv = entry;  // into the slot's buffers
}

void KvState::RecordDelete(const std::string& key, std::int64_t revision) {
  assert(history_.empty() || history_.back().kv.mod_revision <= revision);
  core::KvWatchEvent& event = history_.PushBack();
  // etcd reports a deletion's kv as the key and the deleting revision, the rest zero.
  event.type = core::KvWatchEvent::Type::kDelete;
  event.kv.key = key;
  event.kv.value.clear();
  event.kv.create_revision = 0;
  event.kv.mod_revision = revision;
  event.kv.version = 0;
  event.kv.lease = core::kNoLease;
}

void KvState::Compact() {
  compact_revision_ = std::max(compact_revision_, revision_ - config_.history_revisions + 1);
  while (!history_.empty() && history_.front().kv.mod_revision < compact_revision_) history_.PopFront();
}

core::KvWatchResult KvState::EventsFrom(const core::KvKeys& keys, std::int64_t start_revision) const {
  core::KvWatchResult result;
  EventsInto(keys, start_revision, result);
  return result;
}

void KvState::EventsInto(const core::KvKeys& keys, std::int64_t start_revision, core::KvWatchResult& out) const {
  out.revision = revision_;
  out.compact_revision = 0;
  const std::int64_t start = start_revision == 0 ? revision_ + 1 : start_revision;
  std::size_t taken = 0;  // events written into `out`
  if (start < compact_revision_) {
    // etcd's watchable store: a watcher below the compacted revision is
    // answered with CompactRevision and cancelled.
    out.status = core::KvStatus::kCompacted;
    out.compact_revision = compact_revision_;
  } else {
    out.status = core::KvStatus::kOk;
    // The first event at or after `start`, found from the newest back: a
    // watcher told of every change asks for the newest one or two (a binary
    // search of the deque costs more), and the events from there are copied
    // anyway.
    std::size_t first = history_.size();
    while (first > 0 && history_[first - 1].kv.mod_revision >= start) --first;
    for (std::size_t i = first; i < history_.size(); ++i) {
      if (!keys.Contains(history_[i].kv.key)) continue;
      if (taken < out.events.size()) {
        out.events[taken] = history_[i];  // into the slot's strings
      } else {
        out.events.push_back(history_[i]);
      }
      ++taken;
    }
  }
  out.events.erase(out.events.begin() + static_cast<std::ptrdiff_t>(taken), out.events.end());
}

}  // namespace leasesim::backends
