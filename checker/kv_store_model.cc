#include "checker/kv_store_model.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <numeric>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "checker/format.h"

namespace leasesim::checker {
namespace {

using Kind = KvStoreOp::Kind;
using RequestKind = KvStoreRequest::Kind;

// The whole store: what a linearization point sees.
struct Snapshot {
  std::map<std::string, KvStoreEntry> keys;
  std::map<KvStoreLease, std::int64_t> leases;  // id -> TTL granted
  std::int64_t revision = 1;                    // etcd's empty store is at revision 1
};

bool InRange(const std::string& key, const std::string& end, const std::string& candidate) {
  if (end.empty()) return candidate == key;
  if (candidate < key) return false;
  return (end.size() == 1 && end[0] == '\0') || candidate < end;
}

template <typename T>
bool Compared(const T& actual, const T& operand, KvStoreCompareResult result) {
  switch (result) {
    case KvStoreCompareResult::kEqual: return actual == operand;
    case KvStoreCompareResult::kNotEqual: return actual != operand;
    case KvStoreCompareResult::kLess: return actual < operand;
    case KvStoreCompareResult::kGreater: return actual > operand;
  }
  return false;
}

bool Holds(const Snapshot& state, const KvStoreCompare& compare) {
  const auto it = state.keys.find(compare.key);
  if (it == state.keys.end()) {
    if (compare.target == KvStoreCompareTarget::kValue) return false;
    return Compared<std::int64_t>(0, compare.number, compare.result);
  }
  const KvStoreEntry& entry = it->second;
  switch (compare.target) {
    case KvStoreCompareTarget::kValue: return Compared(entry.value, compare.value, compare.result);
    case KvStoreCompareTarget::kVersion: return Compared(entry.version, compare.number, compare.result);
    case KvStoreCompareTarget::kCreateRevision: return Compared(entry.create_revision, compare.number, compare.result);
    case KvStoreCompareTarget::kModRevision: return Compared(entry.mod_revision, compare.number, compare.result);
  }
  return false;
}

// A recorded entry against the model's; revisions only when recorded.
bool SameEntry(const KvStoreEntry& recorded, const KvStoreEntry& model, bool revisions) {
  if (recorded.key != model.key || recorded.value != model.value || recorded.version != model.version) return false;
  if (recorded.lease != model.lease) return false;
  return !revisions ||
         (recorded.create_revision == model.create_revision && recorded.mod_revision == model.mod_revision);
}

bool SameEntries(const std::vector<KvStoreEntry>& recorded, const std::vector<KvStoreEntry>& model, bool revisions) {
  if (recorded.size() != model.size()) return false;
  for (std::size_t i = 0; i < model.size(); ++i) {
    if (!SameEntry(recorded[i], model[i], revisions)) return false;
  }
  return true;
}

// Applies one request of a txn at `revision` (the txn's new revision);
// `check`: compare the recorded response. Returns false on a mismatch.
bool ApplyRequest(const KvStoreRequest& request, std::int64_t revision, bool check, bool revisions, Snapshot& state,
                  bool& changed) {
  if (request.kind == RequestKind::kPut) {
    const auto it = state.keys.find(request.key);
    std::vector<KvStoreEntry> prev;
    if (it != state.keys.end() && request.prev_kv) prev.push_back(it->second);
    if (check && !SameEntries(request.kvs, prev, revisions)) return false;
    KvStoreEntry& entry = state.keys[request.key];
    const bool fresh = entry.version == 0;
    entry = KvStoreEntry{request.key, request.value, fresh ? revision : entry.create_revision, revision,
                         entry.version + 1, request.lease};
    changed = true;
    return true;
  }
  std::vector<KvStoreEntry> hit;
  for (auto it = state.keys.lower_bound(request.key); it != state.keys.end(); ++it) {
    if (!InRange(request.key, request.end, it->first)) break;
    hit.push_back(it->second);
  }
  if (request.kind == RequestKind::kDelete) {
    for (const KvStoreEntry& entry : hit) state.keys.erase(entry.key);
    changed = changed || !hit.empty();
    if (!check) return true;
    if (request.count != static_cast<std::int64_t>(hit.size())) return false;
    return SameEntries(request.kvs, request.prev_kv ? hit : std::vector<KvStoreEntry>{}, revisions);
  }
  if (!check) return true;
  if (request.sort_by_create) {
    std::stable_sort(hit.begin(), hit.end(),
                     [](const KvStoreEntry& a, const KvStoreEntry& b) { return a.create_revision < b.create_revision; });
  }
  const auto count = static_cast<std::int64_t>(hit.size());
  const bool more = request.limit > 0 && count > request.limit;
  if (more) hit.resize(static_cast<std::size_t>(request.limit));
  return request.count == count && request.more == more && SameEntries(request.kvs, hit, revisions);
}

bool LeasesExist(const Snapshot& state, const std::vector<KvStoreRequest>& branch) {
  return std::all_of(branch.begin(), branch.end(), [&](const KvStoreRequest& request) {
    return request.kind != RequestKind::kPut || request.lease == 0 || state.leases.contains(request.lease);
  });
}

bool StepTxn(const KvStoreOp& op, Snapshot& state) {
  const bool known = op.outcome == Outcome::kOk;
  const bool succeeded = std::all_of(op.compares.begin(), op.compares.end(),
                                     [&](const KvStoreCompare& compare) { return Holds(state, compare); });
  if (known && succeeded != op.succeeded) return false;
  const std::vector<KvStoreRequest>& branch = succeeded ? op.success : op.failure;
  if (!LeasesExist(state, branch)) return !known || op.lease_not_found;  // nothing applied
  if (known && op.lease_not_found) return false;
  const std::int64_t next = state.revision + 1;
  bool changed = false;
  for (const KvStoreRequest& request : branch) {
    if (!ApplyRequest(request, next, known, op.revisions, state, changed)) return false;
  }
  if (changed) state.revision = next;
  return !known || !op.revisions || op.revision == state.revision;
}

// Ends a lease: its keys deleted at one new revision; returns that
// revision, 0 when it had none.
std::int64_t EndLease(KvStoreLease lease, Snapshot& state) {
  state.leases.erase(lease);
  const std::size_t before = state.keys.size();
  std::erase_if(state.keys, [&](const auto& item) { return item.second.lease == lease; });
  if (state.keys.size() == before) return 0;
  return ++state.revision;
}

bool StepLease(const KvStoreOp& op, Snapshot& state) {
  const bool known = op.outcome == Outcome::kOk;
  const bool exists = state.leases.contains(op.lease);
  const bool header_ok = !known || !op.revisions;  // else checked below
  switch (op.kind) {
    case Kind::kLeaseGrant:
      if (exists) return !known;  // an id in use is never granted again
      state.leases.emplace(op.lease, op.ttl_ns);
      return header_ok || op.revision == state.revision;
    case Kind::kLeaseKeepAlive:
      if (!known) return true;
      if (op.lease_not_found) return !exists;
      return exists && state.leases.at(op.lease) == op.ttl_ns && (header_ok || op.revision == state.revision);
    case Kind::kLeaseRevoke:
      if (known && op.lease_not_found) return !exists;
      if (!exists) return !known;
      EndLease(op.lease, state);
      return header_ok || op.revision == state.revision;
    case Kind::kLeaseExpire: {
      if (!exists) return !known;  // (the store knows what it did: always kOk)
      const std::int64_t revision = EndLease(op.lease, state);
      return !op.revisions || op.revision == revision;
    }
    case Kind::kTxn: break;
  }
  return false;
}

// The search-side model: a state is the id of an interned snapshot, and
// each (state, operation) transition is computed once.
class KvStoreSearchModel {
 public:
  using State = std::uint32_t;
  struct Op {
    const KvStoreOp* source;
    std::uint32_t index;  // in its partition
  };

  KvStoreSearchModel() { Intern(Snapshot{}); }

  State Init() const { return 0; }
  bool Step(State state, const Op& op, State& next) {
    const std::uint64_t key = (std::uint64_t{state} << 32) | op.index;
    const auto found = transitions_.find(key);
    if (found != transitions_.end()) {
      next = found->second;
      return next != kIllegal;
    }
    Snapshot after = snapshots_[state];
    const bool legal = op.source->kind == Kind::kTxn ? StepTxn(*op.source, after) : StepLease(*op.source, after);
    next = legal ? Intern(after) : kIllegal;
    transitions_.emplace(key, next);
    return legal;
  }
  static bool Equal(State a, State b) { return a == b; }
  static std::uint64_t Hash(State state) { return state; }
  bool ReadOnly(const Op& op) const;
  // Pruning hint: the store-wide revision only grows, so an operation whose
  // recorded revision the state has already passed can never be placed.
  bool Resets(const Op&) const { return false; }
  bool Unreachable(State state, const Op& op) const;

  std::string DescribeOp(const Op& op) const { return DescribeKvStoreOp(*op.source); }
  std::string DescribeState(State state) const;

 private:
  static constexpr State kIllegal = 0xFFFFFFFFU;

  State Intern(const Snapshot& snapshot);

  std::vector<Snapshot> snapshots_;
  std::map<std::string, State> ids_;                           // canonical encoding -> id
  absl::flat_hash_map<std::uint64_t, State> transitions_;  // lookups only
};

void Encode(std::string& out, const std::string& text) {
  out += std::to_string(text.size());
  out += ':';
  out += text;
}

KvStoreSearchModel::State KvStoreSearchModel::Intern(const Snapshot& snapshot) {
  std::string code = std::to_string(snapshot.revision) + ";";
  for (const auto& [key, entry] : snapshot.keys) {
    Encode(code, key);
    Encode(code, entry.value);
    code += std::to_string(entry.create_revision) + "," + std::to_string(entry.mod_revision) + "," +
            std::to_string(entry.version) + "," + std::to_string(entry.lease) + ";";
  }
  code += "|";
  for (const auto& [lease, ttl] : snapshot.leases) code += std::to_string(lease) + "," + std::to_string(ttl) + ";";
  const auto [it, inserted] = ids_.emplace(std::move(code), static_cast<State>(snapshots_.size()));
  if (inserted) {
    assert(snapshots_.size() < kIllegal);
    snapshots_.push_back(snapshot);
  }
  return it->second;
}

bool KvStoreSearchModel::ReadOnly(const Op& op) const {
  const KvStoreOp& source = *op.source;
  if (source.outcome != Outcome::kOk) return false;
  if (source.kind == Kind::kLeaseKeepAlive) return true;
  if (source.kind != Kind::kTxn) return source.kind == Kind::kLeaseRevoke && source.lease_not_found;
  if (source.lease_not_found) return true;
  const std::vector<KvStoreRequest>& branch = source.succeeded ? source.success : source.failure;
  return std::all_of(branch.begin(), branch.end(), [](const KvStoreRequest& request) {
    return request.kind == RequestKind::kRange || (request.kind == RequestKind::kDelete && request.count == 0);
  });
}

bool KvStoreSearchModel::Unreachable(State state, const Op& op) const {
  const KvStoreOp& source = *op.source;
  // Only where Step checks the revision: a known outcome that recorded it,
  // and not a refusal for a missing lease (its revision is not checked).
  if (source.outcome != Outcome::kOk || !source.revisions || source.lease_not_found) return false;
  const std::int64_t now = snapshots_[state].revision;
  // An expiry that deleted keys takes the next revision; anything else ends
  // at a revision >= the one it starts from.
  if (source.kind == Kind::kLeaseExpire) return source.revision > 0 && now >= source.revision;
  return now > source.revision;
}

std::string KvStoreSearchModel::DescribeState(State state) const {
  const Snapshot& snapshot = snapshots_[state];
  std::string text = "revision " + std::to_string(snapshot.revision) + ", keys {";
  for (const auto& [key, entry] : snapshot.keys) {
    text += " " + key + "=\"" + entry.value + "\" (v" + std::to_string(entry.version) +
            (entry.lease != 0 ? ", lease " + std::to_string(entry.lease) : "") + ")";
  }
  text += " }, leases {";
  for (const auto& [lease, ttl] : snapshot.leases) text += " " + std::to_string(lease);
  return text + " }";
}

std::string DescribeRequest(const KvStoreRequest& request) {
  const std::string keys = request.end.empty() ? request.key : "[" + request.key + ", " + request.end + ")";
  switch (request.kind) {
    case RequestKind::kRange: {
      std::string text = "range " + keys + " ->";
      for (const KvStoreEntry& entry : request.kvs) text += " " + entry.key + "=\"" + entry.value + "\"";
      return text + (request.kvs.empty() ? " nothing" : "");
    }
    case RequestKind::kPut:
      return "put " + request.key + "=\"" + request.value + "\"" +
             (request.lease != 0 ? " on lease " + std::to_string(request.lease) : "");
    case RequestKind::kDelete: return "delete " + keys + " (" + std::to_string(request.count) + ")";
  }
  return "";
}

std::string DescribeBranch(const std::vector<KvStoreRequest>& branch) {
  std::string text;
  for (const KvStoreRequest& request : branch) text += (text.empty() ? "" : "; ") + DescribeRequest(request);
  return text.empty() ? "nothing" : text;
}

// Which ops matter: failures changed nothing and say nothing; an unknown op
// that cannot change the state says nothing either.
bool Matters(const KvStoreOp& op) {
  if (op.outcome == Outcome::kFail) return false;
  if (op.outcome == Outcome::kOk) return true;
  switch (op.kind) {
    case Kind::kTxn: {
      auto writes = [](const std::vector<KvStoreRequest>& branch) {
        return std::any_of(branch.begin(), branch.end(),
                           [](const KvStoreRequest& r) { return r.kind != RequestKind::kRange; });
      };
      return writes(op.success) || writes(op.failure);
    }
    case Kind::kLeaseGrant: return op.lease != 0;  // an id nobody learned names no key
    case Kind::kLeaseKeepAlive: return false;       // time is not modelled: no effect
    case Kind::kLeaseRevoke:
    case Kind::kLeaseExpire: return true;
  }
  return true;
}

// Union-find over keys, for the partitions.
class KeyGroups {
 public:
  std::size_t Of(const std::string& key) {
    const auto [it, inserted] = ids_.emplace(key, parent_.size());
    if (inserted) parent_.push_back(parent_.size());
    return Find(it->second);
  }
  void Join(std::size_t a, std::size_t b) { parent_[Find(a)] = Find(b); }
  std::size_t Find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }

 private:
  std::map<std::string, std::size_t> ids_;
  std::vector<std::size_t> parent_;
};

std::vector<std::string> KeysOf(const KvStoreOp& op) {
  std::vector<std::string> keys;
  for (const KvStoreCompare& compare : op.compares) keys.push_back(compare.key);
  for (const auto* branch : {&op.success, &op.failure}) {
    for (const KvStoreRequest& request : *branch) keys.push_back(request.key);
  }
  return keys;
}

void AddOp(LinPartition<KvStoreSearchModel>& partition, const KvStoreOp& op, std::size_t source) {
  const auto index = static_cast<std::uint32_t>(partition.ops.size());
  partition.ops.push_back({KvStoreSearchModel::Op{&op, index}, op.call_ns,
                           op.outcome == Outcome::kUnknown ? kNeverNs : op.return_ns,
                           static_cast<std::int64_t>(source)});
}

}  // namespace

std::string DescribeKvStoreOp(const KvStoreOp& op) {
  std::string text = op.kind == Kind::kLeaseExpire ? "the store's" : "process " + std::to_string(op.process) + "'s";
  switch (op.kind) {
    case Kind::kTxn:
      text += " txn";
      if (!op.compares.empty()) text += " (" + std::to_string(op.compares.size()) + " compares)";
      text += " then " + DescribeBranch(op.success) + " else " + DescribeBranch(op.failure);
      if (op.outcome == Outcome::kOk) {
        text += op.lease_not_found ? " -> lease not found" : op.succeeded ? " -> then" : " -> else";
      }
      break;
    case Kind::kLeaseGrant: text += " grant of lease " + std::to_string(op.lease); break;
    case Kind::kLeaseKeepAlive: text += " keep-alive of lease " + std::to_string(op.lease); break;
    case Kind::kLeaseRevoke: text += " revoke of lease " + std::to_string(op.lease); break;
    case Kind::kLeaseExpire: text += " expiry of lease " + std::to_string(op.lease); break;
  }
  if (op.outcome == Outcome::kOk && op.revisions && op.kind != Kind::kLeaseKeepAlive) {
    text += " at revision " + std::to_string(op.revision);
  }
  if (op.outcome == Outcome::kUnknown) text += " (outcome unknown)";
  text += " [" + FormatTime(op.call_ns) + ", " + (op.outcome == Outcome::kUnknown ? "?" : FormatTime(op.return_ns)) + "]";
  return text;
}

bool KvStoreSplitsByKey(std::span<const KvStoreOp> ops) {
  return std::all_of(ops.begin(), ops.end(), [](const KvStoreOp& op) {
    if (op.kind != Kind::kTxn || op.revisions) return false;
    // A partition counts revisions of its own keys only: a revision compare
    // means the same there only against 0 (the key is absent).
    for (const KvStoreCompare& compare : op.compares) {
      const bool revision = compare.target == KvStoreCompareTarget::kCreateRevision ||
                            compare.target == KvStoreCompareTarget::kModRevision;
      if (revision && compare.number != 0) return false;
    }
    for (const auto* branch : {&op.success, &op.failure}) {
      for (const KvStoreRequest& request : *branch) {
        if (!request.end.empty() || request.lease != 0) return false;
      }
    }
    return true;
  });
}

namespace {

// The store's own order of application as the linearization: true when
// every op that matters and returned carries its place (applied_seq), the
// places are distinct, the order respects real time (no op placed after
// another returned before that one was called) and replaying the ops in it
// reproduces every recorded answer. Then that order is a linearization and
// no search is needed (the simulator knows the order, as Porcupine's and
// Knossos's inputs do not). An op of unknown outcome without a place never
// applied, and is left out, as the search may leave it out.
bool AppliedOrderLinearizes(std::span<const KvStoreOp> ops, const std::vector<std::size_t>& kept) {
  std::vector<std::pair<std::int64_t, std::size_t>> order;  // (place, index)
  order.reserve(kept.size());
  for (std::size_t i : kept) {
    if (ops[i].applied_seq >= 0) order.emplace_back(ops[i].applied_seq, i);
    else if (ops[i].outcome == Outcome::kOk) return false;  // a returned op without its place
  }
  std::sort(order.begin(), order.end());
  TimeNs earliest_return_after = kNeverNs;
  for (std::size_t k = order.size(); k-- > 0;) {
    const KvStoreOp& op = ops[order[k].second];
    if (k > 0 && order[k - 1].first == order[k].first) return false;
    if (earliest_return_after < op.call_ns) return false;
    earliest_return_after = std::min(earliest_return_after, op.return_ns);
  }
  Snapshot state;
  for (const auto& [place, index] : order) {
    const KvStoreOp& op = ops[index];
    if (!(op.kind == Kind::kTxn ? StepTxn(op, state) : StepLease(op, state))) return false;
  }
  return true;
}

}  // namespace

LinResult CheckKvStore(std::span<const KvStoreOp> ops, const LinOptions& options) {
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (Matters(ops[i])) kept.push_back(i);
  }
  if (AppliedOrderLinearizes(ops, kept)) {
    LinResult witnessed;
    witnessed.operations = kept.size();
    witnessed.partitions = kept.empty() ? 0 : 1;
    return witnessed;
  }
  if (!KvStoreSplitsByKey(ops)) {
    std::vector<LinPartition<KvStoreSearchModel>> whole(1);
    whole[0].key = "store";
    for (std::size_t i : kept) AddOp(whole[0], ops[i], i);
    return SearchPartitions(whole, options);
  }
  KeyGroups groups;
  for (std::size_t i : kept) {
    const std::vector<std::string> keys = KeysOf(ops[i]);
    for (const std::string& key : keys) groups.Join(groups.Of(key), groups.Of(keys.front()));
  }
  // A group is named by its least key, and the groups are searched in name order.
  struct Group {
    std::string least;
    std::vector<std::size_t> ops;
  };
  std::map<std::size_t, Group> by_group;
  for (std::size_t i : kept) {
    const std::vector<std::string> keys = KeysOf(ops[i]);
    if (keys.empty()) continue;  // touches nothing
    Group& group = by_group[groups.Of(keys.front())];
    const std::string& least = *std::min_element(keys.begin(), keys.end());
    if (group.ops.empty() || least < group.least) group.least = least;
    group.ops.push_back(i);
  }
  std::vector<const Group*> order;
  for (const auto& [id, group] : by_group) order.push_back(&group);
  std::sort(order.begin(), order.end(), [](const Group* a, const Group* b) { return a->least < b->least; });
  std::vector<LinPartition<KvStoreSearchModel>> partitions(order.size());
  for (std::size_t p = 0; p < order.size(); ++p) {
    partitions[p].key = order[p]->least;
    for (std::size_t i : order[p]->ops) AddOp(partitions[p], ops[i], i);
  }
  return SearchPartitions(partitions, options);
}

}  // namespace leasesim::checker
