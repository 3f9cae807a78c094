#include "backends/kv_state.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/prng.h"

namespace leasesim::backends {
namespace {

using core::KvCompare;
using core::KvCompareResult;
using core::KvCompareTarget;
using core::KvKeys;
using core::KvRequestOp;
using core::KvStatus;
using core::KvTxn;

KvTxn Put(const std::string& key, const std::string& value, core::KvLeaseId lease = core::kNoLease) {
  KvTxn txn;
  txn.success.push_back(KvRequestOp::Put(key, value, lease));
  return txn;
}

KvTxn Get(KvKeys keys, core::KvSortBy sort_by = core::KvSortBy::kKey, std::int64_t limit = 0) {
  KvTxn txn;
  txn.success.push_back(KvRequestOp::Range(std::move(keys), sort_by, limit));
  return txn;
}

TEST(KvState, RevisionsAreStoreWideAndVersionsPerKey) {
  KvState state;
  EXPECT_EQ(state.revision(), 1);  // etcd's empty store answers revision 1
  EXPECT_EQ(state.Txn(Put("a", "1")).revision, 2);
  EXPECT_EQ(state.Txn(Put("b", "1")).revision, 3);
  EXPECT_EQ(state.Txn(Put("a", "2")).revision, 4);
  const core::KvEntry& a = state.keys().at("a");
  EXPECT_EQ(a.create_revision, 2);
  EXPECT_EQ(a.mod_revision, 4);
  EXPECT_EQ(a.version, 2);
  // A read changes nothing, and says the revision.
  const core::KvTxnResult read = state.Txn(Get(KvKeys::Single("a")));
  EXPECT_EQ(read.revision, 4);
  ASSERT_EQ(read.responses.size(), 1u);
  EXPECT_EQ(read.responses[0].kvs, std::vector<core::KvEntry>{a});
}

TEST(KvState, AnAbsentKeyComparesAsZeroAndFailsEveryValueCompare) {
  KvState state;
  KvTxn create = Put("lock", "n1");
  create.compares.push_back(KvCompare{"lock", KvCompareTarget::kCreateRevision, KvCompareResult::kEqual, 0, {}});
  EXPECT_TRUE(state.Txn(create).succeeded);
  EXPECT_FALSE(state.Txn(create).succeeded);  // it exists now
  KvTxn value_differs;
  value_differs.compares.push_back(KvCompare{"nothing", KvCompareTarget::kValue, KvCompareResult::kNotEqual, 0, "x"});
  EXPECT_FALSE(state.Txn(value_differs).succeeded);  // etcd: false whatever the operator
}

TEST(KvState, ABranchWritingAKeyTwiceIsRejectedWhole) {
  KvState state;
  KvTxn txn = Put("a", "1");
  txn.success.push_back(KvRequestOp::Delete(KvKeys::Prefix("")));
  EXPECT_EQ(state.Txn(txn).status, KvStatus::kInvalid);
  EXPECT_EQ(state.revision(), 1);
}

TEST(KvState, APutOnAMissingLeaseAppliesNothing) {
  KvState state;
  KvTxn txn = Put("a", "1");
  txn.success.push_back(KvRequestOp::Put("b", "1", 7));
  EXPECT_EQ(state.Txn(txn).status, KvStatus::kLeaseNotFound);
  EXPECT_TRUE(state.keys().empty());
  EXPECT_EQ(state.revision(), 1);
}

TEST(KvState, AnEndedLeaseDeletesItsKeysAtOneRevisionInKeyOrder) {
  KvState state;
  const core::KvLeaseId lease = state.LeaseGrant(100, 0).id;
  state.Txn(Put("z", "1", lease));
  state.Txn(Put("m", "1", lease));
  state.Txn(Put("free", "1"));
  EXPECT_TRUE(state.ExpireDue(99).empty());
  const std::vector<KvExpiry> expired = state.ExpireDue(100);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].lease, lease);
  EXPECT_EQ(expired[0].revision, 5);
  EXPECT_EQ(expired[0].deleted, (std::vector<std::string>{"m", "z"}));
  EXPECT_EQ(state.keys().size(), 1u);
  const core::KvWatchResult events = state.EventsFrom(KvKeys::Prefix(""), 5);
  ASSERT_EQ(events.events.size(), 2u);
  EXPECT_EQ(events.events[0].kv.key, "m");
  EXPECT_EQ(events.events[1].kv.mod_revision, 5);
  EXPECT_EQ(state.LeaseKeepAlive(lease, 100).status, KvStatus::kLeaseNotFound);
}

TEST(KvState, AKeepAliveRestartsTheFullTtlAndAPutElsewhereDetaches) {
  KvState state;
  const core::KvLeaseId lease = state.LeaseGrant(100, 0).id;
  state.Txn(Put("a", "1", lease));
  EXPECT_EQ(state.LeaseKeepAlive(lease, 60).ttl, 100);
  EXPECT_EQ(state.NextDeadline(), 160);
  state.Txn(Put("a", "2"));  // no lease now
  EXPECT_FALSE(state.ExpireIfDue(lease, 159).has_value());
  const std::optional<KvExpiry> expiry = state.ExpireIfDue(lease, 160);
  ASSERT_TRUE(expiry.has_value());
  EXPECT_TRUE(expiry->deleted.empty());
  EXPECT_EQ(expiry->revision, 0);  // nothing deleted: the revision stands
  EXPECT_EQ(state.keys().at("a").value, "2");
}

TEST(KvState, APrefixRangeSortsByCreateRevisionAndLimits) {
  KvState state;
  state.Txn(Put("e/c", "1"));
  state.Txn(Put("e/a", "1"));
  state.Txn(Put("e/b", "1"));
  state.Txn(Put("f", "1"));
  const core::KvResponseOp oldest = state.Txn(Get(KvKeys::Prefix("e/"), core::KvSortBy::kCreateRevision, 2)).responses[0];
  ASSERT_EQ(oldest.kvs.size(), 2u);
  EXPECT_EQ(oldest.kvs[0].key, "e/c");
  EXPECT_EQ(oldest.kvs[1].key, "e/a");
  EXPECT_EQ(oldest.count, 3);
  EXPECT_TRUE(oldest.more);
}

TEST(KvState, AWatchFromACompactedRevisionIsToldToReadAgain) {
  KvState state(KvStateConfig{.history_revisions = 2});
  for (int i = 0; i < 5; ++i) state.Txn(Put("k", std::to_string(i)));  // revisions 2..6
  const core::KvWatchResult old = state.EventsFrom(KvKeys::Single("k"), 3);
  EXPECT_EQ(old.status, KvStatus::kCompacted);
  EXPECT_EQ(old.compact_revision, 5);
  const core::KvWatchResult kept = state.EventsFrom(KvKeys::Single("k"), 5);
  EXPECT_EQ(kept.status, KvStatus::kOk);
  EXPECT_EQ(kept.events.size(), 2u);
  EXPECT_TRUE(state.EventsFrom(KvKeys::Single("k"), 0).events.empty());  // from now on
}

TEST(KvState, EventsIntoAReusedAnswerIsEventsFrom) {
  // EventsInto writes over whatever `out` held (more events, fewer, other
  // keys' strings, a compacted answer): each call must leave exactly what
  // EventsFrom returns.
  KvState state(KvStateConfig{.history_revisions = 6});
  for (int i = 0; i < 8; ++i) {
    state.Txn(Put(i % 3 == 0 ? "a" : "key-long-enough-to-allocate-" + std::to_string(i),
                  std::string(static_cast<std::size_t>(10 + 9 * i), static_cast<char>('p' + i))));
  }
  core::KvWatchResult out;
  const std::vector<KvKeys> keys = {KvKeys::Prefix(""), KvKeys::Single("a"), KvKeys::Prefix("key"),
                                    KvKeys::Single("none")};
  for (const std::int64_t start : {2, 4, 9, 0, 5, 3, 8, 10, 4}) {
    for (const KvKeys& watched : keys) {
      state.EventsInto(watched, start, out);
      const core::KvWatchResult want = state.EventsFrom(watched, start);
      EXPECT_EQ(out.status, want.status);
      EXPECT_EQ(out.events, want.events);
      EXPECT_EQ(out.revision, want.revision);
      EXPECT_EQ(out.compact_revision, want.compact_revision);
    }
  }
}

// ---------------------------------------------------------------------------
// A naive reference: unsorted vectors, whole scans, no index. Written apart
// from KvState so a shared mistake is unlikely.
class NaiveKv {
 public:
  explicit NaiveKv(std::int64_t window) : window_(window) {}

  core::KvTxnResult Txn(const KvTxn& txn) {
    core::KvTxnResult result;
    result.revision = revision_;
    if (!BranchValid(txn.success) || !BranchValid(txn.failure)) {
      result.status = KvStatus::kInvalid;
      return result;
    }
    result.succeeded = true;
    for (const KvCompare& compare : txn.compares) result.succeeded = result.succeeded && Holds(compare);
    const std::vector<KvRequestOp>& ops = result.succeeded ? txn.success : txn.failure;
    for (const KvRequestOp& op : ops) {
      if (op.kind == KvRequestOp::Kind::kPut && op.lease != 0 && FindLease(op.lease) == leases_.end()) {
        result.status = KvStatus::kLeaseNotFound;
        return result;
      }
    }
    bool changed = false;
    for (const KvRequestOp& op : ops) result.responses.push_back(Apply(op, changed));
    if (changed) Advance();
    result.status = KvStatus::kOk;
    result.revision = revision_;
    return result;
  }

  core::KvLeaseResult Grant(Nanos ttl, Nanos now) {
    leases_.push_back(Lease{next_lease_, ttl, now + ttl});
    return core::KvLeaseResult{KvStatus::kOk, next_lease_++, ttl, revision_};
  }
  core::KvLeaseResult KeepAlive(core::KvLeaseId id, Nanos now) {
    auto it = FindLease(id);
    if (it == leases_.end()) return core::KvLeaseResult{KvStatus::kLeaseNotFound, id, 0, revision_};
    it->deadline = now + it->ttl;
    return core::KvLeaseResult{KvStatus::kOk, id, it->ttl, revision_};
  }
  core::KvLeaseResult Revoke(core::KvLeaseId id) {
    if (FindLease(id) == leases_.end()) return core::KvLeaseResult{KvStatus::kLeaseNotFound, id, 0, revision_};
    End(id);
    return core::KvLeaseResult{KvStatus::kOk, id, 0, revision_};
  }
  std::optional<KvExpiry> ExpireIfDue(core::KvLeaseId id, Nanos now) {
    auto it = FindLease(id);
    if (it == leases_.end() || it->deadline > now) return std::nullopt;
    return End(id);
  }
  std::vector<KvExpiry> ExpireDue(Nanos now) {
    std::vector<KvExpiry> out;
    for (;;) {
      const Lease* first = nullptr;
      for (const Lease& lease : leases_) {
        if (lease.deadline > now) continue;
        if (first == nullptr || lease.deadline < first->deadline ||
            (lease.deadline == first->deadline && lease.id < first->id)) {
          first = &lease;
        }
      }
      if (first == nullptr) return out;
      out.push_back(End(first->id));
    }
  }
  core::KvWatchResult EventsFrom(const KvKeys& keys, std::int64_t start) const {
    core::KvWatchResult result;
    result.revision = revision_;
    if (start == 0) start = revision_ + 1;
    if (start < compact_) {
      result.status = KvStatus::kCompacted;
      result.compact_revision = compact_;
      return result;
    }
    result.status = KvStatus::kOk;
    for (const core::KvWatchEvent& event : events_) {
      if (event.kv.mod_revision >= start && keys.Contains(event.kv.key)) result.events.push_back(event);
    }
    return result;
  }
  std::vector<core::KvEntry> Sorted() const {
    std::vector<core::KvEntry> sorted = keys_;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    return sorted;
  }

 private:
  // A granted lease.
  struct Lease {
    core::KvLeaseId id;
    Nanos ttl;
    Nanos deadline;
  };
  std::vector<Lease>::iterator FindLease(core::KvLeaseId id) {
    return std::find_if(leases_.begin(), leases_.end(), [&](const Lease& l) { return l.id == id; });
  }
  static bool BranchValid(const std::vector<KvRequestOp>& ops) {
    std::vector<std::string> puts;
    for (const KvRequestOp& op : ops) {
      if (op.kind != KvRequestOp::Kind::kPut) continue;
      if (std::find(puts.begin(), puts.end(), op.keys.key) != puts.end()) return false;
      puts.push_back(op.keys.key);
    }
    for (const KvRequestOp& op : ops) {
      if (op.kind != KvRequestOp::Kind::kDelete) continue;
      for (const std::string& put : puts) {
        if (op.keys.Contains(put)) return false;
      }
    }
    return true;
  }
  core::KvEntry* Find(const std::string& key) {
    for (core::KvEntry& entry : keys_) {
      if (entry.key == key) return &entry;
    }
    return nullptr;
  }
  bool Holds(const KvCompare& compare) {
    const core::KvEntry* entry = Find(compare.key);
    if (entry == nullptr && compare.target == KvCompareTarget::kValue) return false;
    const core::KvEntry zero;
    const core::KvEntry& e = entry != nullptr ? *entry : zero;
    if (compare.target == KvCompareTarget::kValue) {
      const int order = e.value.compare(compare.value);
      return Order(order, compare.result);
    }
    const std::int64_t actual = compare.target == KvCompareTarget::kVersion          ? e.version
                                : compare.target == KvCompareTarget::kCreateRevision ? e.create_revision
                                                                                     : e.mod_revision;
    return Order(actual < compare.number ? -1 : actual > compare.number ? 1 : 0, compare.result);
  }
  static bool Order(int order, KvCompareResult result) {
    if (result == KvCompareResult::kEqual) return order == 0;
    if (result == KvCompareResult::kNotEqual) return order != 0;
    if (result == KvCompareResult::kLess) return order < 0;
    return order > 0;
  }
  core::KvResponseOp Apply(const KvRequestOp& op, bool& changed) {
    core::KvResponseOp response;
    response.kind = op.kind;
    const std::int64_t next = revision_ + 1;
    if (op.kind == KvRequestOp::Kind::kPut) {
      core::KvEntry* entry = Find(op.keys.key);
      if (entry == nullptr) {
        keys_.push_back(core::KvEntry{op.keys.key, op.value, next, next, 1, op.lease});
        entry = &keys_.back();
      } else {
        if (op.prev_kv) response.kvs.push_back(*entry);
        *entry = core::KvEntry{op.keys.key, op.value, entry->create_revision, next, entry->version + 1, op.lease};
      }
      events_.push_back(core::KvWatchEvent{core::KvWatchEvent::Type::kPut, *entry});
      changed = true;
      return response;
    }
    std::vector<core::KvEntry> hit;
    for (const core::KvEntry& entry : Sorted()) {
      if (op.keys.Contains(entry.key)) hit.push_back(entry);
    }
    if (op.kind == KvRequestOp::Kind::kRange) return Ranged(op, hit);
    for (const core::KvEntry& entry : hit) {
      if (op.prev_kv) response.kvs.push_back(entry);
      Erase(entry.key, next);
      changed = true;
    }
    response.count = static_cast<std::int64_t>(hit.size());
    return response;
  }
  static core::KvResponseOp Ranged(const KvRequestOp& op, std::vector<core::KvEntry> hit) {
    core::KvResponseOp response;
    response.kind = op.kind;
    if (op.sort_by == core::KvSortBy::kCreateRevision) {
      std::stable_sort(hit.begin(), hit.end(),
                       [](const auto& a, const auto& b) { return a.create_revision < b.create_revision; });
    }
    response.count = static_cast<std::int64_t>(hit.size());
    for (const core::KvEntry& entry : hit) {
      if (op.limit == 0 || static_cast<std::int64_t>(response.kvs.size()) < op.limit) {
        response.kvs.push_back(entry);
      } else {
        response.more = true;
      }
    }
    return response;
  }
  void Erase(const std::string& key, std::int64_t revision) {
    core::KvEntry tombstone;
    tombstone.key = key;
    tombstone.mod_revision = revision;
    events_.push_back(core::KvWatchEvent{core::KvWatchEvent::Type::kDelete, tombstone});
    std::erase_if(keys_, [&](const core::KvEntry& e) { return e.key == key; });
  }
  KvExpiry End(core::KvLeaseId id) {
    KvExpiry expiry;
    expiry.lease = id;
    for (const core::KvEntry& entry : Sorted()) {
      if (entry.lease == id) expiry.deleted.push_back(entry.key);
    }
    for (const std::string& key : expiry.deleted) Erase(key, revision_ + 1);
    std::erase_if(leases_, [&](const Lease& l) { return l.id == id; });
    if (!expiry.deleted.empty()) {
      Advance();
      expiry.revision = revision_;
    }
    return expiry;
  }
  void Advance() {
    ++revision_;
    compact_ = std::max(compact_, revision_ - window_ + 1);
  }

  std::int64_t window_;
  std::vector<core::KvEntry> keys_;
  std::int64_t revision_ = 1;
  std::int64_t compact_ = 0;
  std::vector<Lease> leases_;
  core::KvLeaseId next_lease_ = 1;
  std::vector<core::KvWatchEvent> events_;
};

// Random requests over a few keys that share prefixes.
class RandomRequests {
 public:
  explicit RandomRequests(std::uint64_t seed) : prng_(seed) {}

  std::string Key() { return kKeys[prng_.UniformBelow(std::size(kKeys))]; }
  std::int64_t Below(std::int64_t n) { return static_cast<std::int64_t>(prng_.UniformBelow(static_cast<std::uint64_t>(n))); }
  KvKeys Keys() {
    switch (Below(3)) {
      case 0: return KvKeys::Single(Key());
      case 1: return KvKeys::Prefix(Key());
      default: return KvKeys{Key(), Key()};  // may be empty (end <= key)
    }
  }
  KvCompare Compare(std::int64_t revision) {
    KvCompare compare;
    compare.key = Key();
    compare.target = static_cast<KvCompareTarget>(Below(4));
    compare.result = static_cast<KvCompareResult>(Below(4));
    compare.number = Below(revision + 2);
    compare.value = std::to_string(Below(3));
    return compare;
  }
  KvRequestOp Op(core::KvLeaseId lease_max) {
    switch (Below(5)) {
      case 0:
      case 1: {
        KvKeys keys = Keys();
        const auto sort_by = static_cast<core::KvSortBy>(Below(2));
        return KvRequestOp::Range(std::move(keys), sort_by, Below(3));
      }
      case 2:
      case 3: {
        // Mostly no lease; else one granted so far, or one never granted.
        const core::KvLeaseId lease = Below(3) != 0 ? core::kNoLease : Below(lease_max + 2);
        const std::string key = Key();
        KvRequestOp put = KvRequestOp::Put(key, std::to_string(Below(3)), lease);
        put.prev_kv = Below(2) == 0;
        return put;
      }
      default: {
        KvRequestOp del = KvRequestOp::Delete(Keys());
        del.prev_kv = Below(2) == 0;
        return del;
      }
    }
  }
  KvTxn Txn(std::int64_t revision, core::KvLeaseId lease_max) {
    KvTxn txn;
    for (std::int64_t i = Below(3); i > 0; --i) txn.compares.push_back(Compare(revision));
    for (std::int64_t i = Below(4); i > 0; --i) txn.success.push_back(Op(lease_max));
    for (std::int64_t i = Below(3); i > 0; --i) txn.failure.push_back(Op(lease_max));
    return txn;
  }

 private:
  static constexpr const char* kKeys[] = {"a", "ab", "abc", "b", "ba"};
  base::Prng prng_;
};

void ExpectSameTxn(const core::KvTxnResult& got, const core::KvTxnResult& want) {
  RC_ASSERT(got.status == want.status);
  RC_ASSERT(got.succeeded == want.succeeded);
  RC_ASSERT(got.revision == want.revision);
  RC_ASSERT(got.responses == want.responses);
}

void ExpectSameLease(const core::KvLeaseResult& got, const core::KvLeaseResult& want) {
  RC_ASSERT(got.status == want.status);
  RC_ASSERT(got.id == want.id);
  RC_ASSERT(got.ttl == want.ttl);
  RC_ASSERT(got.revision == want.revision);
}

void ExpectSameExpiries(const std::vector<KvExpiry>& got, const std::vector<KvExpiry>& want) {
  RC_ASSERT(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    RC_ASSERT(got[i].lease == want[i].lease);
    RC_ASSERT(got[i].revision == want[i].revision);
    RC_ASSERT(got[i].deleted == want[i].deleted);
  }
}

// One random step on both, compared; `leases` counts the leases granted.
void Step(RandomRequests& random, KvState& state, NaiveKv& naive, Nanos& now, core::KvLeaseId& leases) {
  switch (random.Below(7)) {
    case 0:
    case 1: {
      const KvTxn txn = random.Txn(state.revision(), leases);
      ExpectSameTxn(state.Txn(txn), naive.Txn(txn));
      break;
    }
    case 2: {
      const Nanos ttl = 1 + random.Below(6);
      ExpectSameLease(state.LeaseGrant(ttl, now), naive.Grant(ttl, now));
      ++leases;
      break;
    }
    case 3: {
      const core::KvLeaseId id = random.Below(leases + 2);
      const std::optional<KvExpiry> got = state.ExpireIfDue(id, now);
      const std::optional<KvExpiry> want = naive.ExpireIfDue(id, now);
      RC_ASSERT(got.has_value() == want.has_value());
      if (got) ExpectSameExpiries({*got}, {*want});
      ExpectSameLease(state.LeaseKeepAlive(id, now), naive.KeepAlive(id, now));
      break;
    }
    case 4: {
      const core::KvLeaseId id = random.Below(leases + 2);
      ExpectSameLease(state.LeaseRevoke(id), naive.Revoke(id));
      break;
    }
    case 5:
      now += random.Below(4);
      ExpectSameExpiries(state.ExpireDue(now), naive.ExpireDue(now));
      break;
    default: {
      const KvKeys keys = random.Keys();
      const std::int64_t start = random.Below(state.revision() + 2);
      const core::KvWatchResult got = state.EventsFrom(keys, start);
      const core::KvWatchResult want = naive.EventsFrom(keys, start);
      RC_ASSERT(got.status == want.status);
      RC_ASSERT(got.events == want.events);
      RC_ASSERT(got.revision == want.revision);
      RC_ASSERT(got.compact_revision == want.compact_revision);
    }
  }
}

RC_GTEST_PROP(KvStateProperty, AgreesWithANaiveReferenceOnRandomSequences, (std::uint64_t seed)) {
  // Lengths from the seed, not RapidCheck's size (which keeps most runs short).
  RandomRequests random(seed);
  const std::int64_t steps = 40 + random.Below(160);
  const std::int64_t window = 1 + random.Below(8);
  KvState state(KvStateConfig{.history_revisions = window});
  NaiveKv naive(window);
  Nanos now = 0;
  core::KvLeaseId leases = 0;
  for (std::int64_t i = 0; i < steps; ++i) Step(random, state, naive, now, leases);
  std::vector<core::KvEntry> keys;
  for (const auto& [key, entry] : state.keys()) keys.push_back(entry);
  RC_ASSERT(keys == naive.Sorted());
  RC_ASSERT(state.compact_revision() <= state.revision());
}

// A random guarded update (core::KvGuardedPut): any number compare on a key
// that may be absent, hold a lease, or have been deleted.
core::KvGuardedPut RandomGuardedPut(RandomRequests& random, std::int64_t revision) {
  constexpr KvCompareTarget kTargets[] = {KvCompareTarget::kVersion, KvCompareTarget::kCreateRevision,
                                          KvCompareTarget::kModRevision};
  core::KvGuardedPut put;
  put.key = random.Key();
  put.target = kTargets[random.Below(3)];
  put.result = static_cast<KvCompareResult>(random.Below(4));
  put.number = random.Below(revision + 2);
  put.value = "v" + std::to_string(random.Below(3));
  return put;
}

// Every event the store still keeps, on every key.
std::vector<core::KvWatchEvent> KeptEvents(const KvState& state) {
  const core::KvWatchResult kept = state.EventsFrom(KvKeys{"", std::string(1, '\0')}, state.compact_revision());
  RC_ASSERT(kept.status == KvStatus::kOk);
  return kept.events;
}

// The fast path (KvState::GuardedPut) against the generic txn it stands
// for, on two stores driven alike: the same answer (both ways between the
// shapes) and the same state after, keys, revisions and watch history.
RC_GTEST_PROP(KvStateProperty, AGuardedPutAnswersAndAppliesAsItsTxn, (std::uint64_t seed)) {
  RandomRequests random(seed);
  const std::int64_t steps = 40 + random.Below(160);
  const std::int64_t window = 1 + random.Below(8);
  KvState fast(KvStateConfig{.history_revisions = window});
  KvState generic(KvStateConfig{.history_revisions = window});
  core::KvLeaseId leases = 0;
  Nanos now = 0;
  for (std::int64_t i = 0; i < steps; ++i) {
    switch (random.Below(4)) {
      case 0: {
        const KvTxn txn = random.Txn(fast.revision(), leases);
        ExpectSameTxn(fast.Txn(txn), generic.Txn(txn));
        break;
      }
      case 1: {
        const Nanos ttl = 1 + random.Below(6);
        ExpectSameLease(fast.LeaseGrant(ttl, now), generic.LeaseGrant(ttl, now));
        ++leases;
        now += random.Below(4);
        ExpectSameExpiries(fast.ExpireDue(now), generic.ExpireDue(now));
        break;
      }
      default: {
        const core::KvGuardedPut put = RandomGuardedPut(random, fast.revision());
        const core::KvGuardedPutResult got = fast.GuardedPut(put);
        const core::KvTxnResult want = generic.Txn(core::KvGuardedPutTxn(put));
        RC_ASSERT(got == core::KvGuardedPutResultOf(want));
        ExpectSameTxn(core::KvGuardedPutTxnResult(got), want);
      }
    }
    RC_ASSERT(fast.keys() == generic.keys());
    RC_ASSERT(fast.revision() == generic.revision());
    RC_ASSERT(fast.compact_revision() == generic.compact_revision());
    RC_ASSERT(KeptEvents(fast) == KeptEvents(generic));
  }
}

TEST(KvState, AGuardedPutAnswersItsTxnsShapeOnHitsAndMisses) {
  KvState state;
  core::KvGuardedPut create{.key = "r", .target = KvCompareTarget::kCreateRevision,
                            .result = KvCompareResult::kEqual, .number = 0, .value = "1"};
  const core::KvGuardedPutResult created = state.GuardedPut(create);
  EXPECT_EQ(created.status, KvStatus::kOk);
  EXPECT_TRUE(created.succeeded);
  EXPECT_EQ(created.revision, 2);
  EXPECT_FALSE(created.current.has_value());
  // A second create finds the key: the else branch's range answers it.
  const core::KvGuardedPutResult again = state.GuardedPut(create);
  EXPECT_FALSE(again.succeeded);
  EXPECT_EQ(again.revision, 2);
  ASSERT_TRUE(again.current.has_value());
  EXPECT_EQ(*again.current, state.keys().at("r"));
  const core::KvTxnResult as_txn = core::KvGuardedPutTxnResult(again);
  ASSERT_EQ(as_txn.responses.size(), 1u);
  EXPECT_EQ(as_txn.responses[0].kind, KvRequestOp::Kind::kRange);
  EXPECT_EQ(as_txn.responses[0].count, 1);
  // A CAS on the key's mod revision puts, and answers the new revision.
  core::KvGuardedPut cas{.key = "r", .target = KvCompareTarget::kModRevision, .result = KvCompareResult::kEqual,
                         .number = 2, .value = "2"};
  const core::KvGuardedPutResult put = state.GuardedPut(cas);
  EXPECT_TRUE(put.succeeded);
  EXPECT_EQ(put.revision, 3);
  EXPECT_EQ(state.keys().at("r").version, 2);
  EXPECT_EQ(state.keys().at("r").value, "2");
  // On an absent key the compare sees zeros, and the range finds nothing.
  cas.key = "absent";
  const core::KvGuardedPutResult missed = state.GuardedPut(cas);
  EXPECT_FALSE(missed.succeeded);
  EXPECT_FALSE(missed.current.has_value());
  EXPECT_EQ(missed.revision, 3);
}

}  // namespace
}  // namespace leasesim::backends
