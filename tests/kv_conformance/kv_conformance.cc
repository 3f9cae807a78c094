#include "tests/kv_conformance/kv_conformance.h"

#include <gtest/gtest.h>

#include <ostream>
#include <vector>

#include "base/units.h"

namespace leasesim::core {

// gtest's failure texts (found by argument-dependent lookup).
void PrintTo(const KvEntry& entry, std::ostream* out) {
  *out << "{" << entry.key << "=" << entry.value << " create " << entry.create_revision << " mod "
       << entry.mod_revision << " version " << entry.version << " lease " << entry.lease << "}";
}

}  // namespace leasesim::core

namespace leasesim::kvtest {
namespace {

using core::KvCompare;
using core::KvCompareResult;
using core::KvCompareTarget;
using core::KvEntry;
using core::KvKeys;
using core::KvRequestOp;
using core::KvStatus;
using core::KvTxn;
using core::KvTxnResult;
using core::KvWatchEvent;

constexpr core::Nanos kTimeout = 2 * base::kNanosPerSecond;
// A TTL etcd keeps as it is: whole seconds, above its minimum (2 s).
constexpr core::Nanos kTtl = 10 * base::kNanosPerSecond;

KvTxnResult Put(core::KvClient& kv, const std::string& key, const std::string& value,
                core::KvLeaseId lease = core::kNoLease) {
  KvTxn txn;
  txn.success.push_back(KvRequestOp::Put(key, value, lease));
  KvTxnResult result = kv.Txn(txn, kTimeout);
  EXPECT_EQ(result.status, KvStatus::kOk) << "put " << key;
  return result;
}

// The one range's answer (empty when the call failed, which it reports).
core::KvResponseOp Get(core::KvClient& kv, const KvRequestOp& range) {
  const KvTxnResult result = kv.Range(range, kTimeout);
  EXPECT_EQ(result.status, KvStatus::kOk);
  return result.responses.empty() ? core::KvResponseOp{} : result.responses[0];
}

std::vector<std::string> KeysOf(const std::vector<KvEntry>& entries) {
  std::vector<std::string> keys;
  for (const KvEntry& entry : entries) keys.push_back(entry.key);
  return keys;
}

// (type, key, mod revision) of each event: what a watch must agree on.
struct Seen {
  KvWatchEvent::Type type;
  std::string key;
  std::int64_t revision;
  friend bool operator==(const Seen&, const Seen&) = default;
};

std::vector<Seen> SeenOf(const std::vector<KvWatchEvent>& events) {
  std::vector<Seen> seen;
  for (const KvWatchEvent& event : events) seen.push_back({event.type, event.kv.key, event.kv.mod_revision});
  return seen;
}

KvCompare Compare(const std::string& key, KvCompareTarget target, KvCompareResult result, std::int64_t number,
                  std::string value = {}) {
  return KvCompare{.key = key, .target = target, .result = result, .number = number, .value = std::move(value)};
}

// etcd's election and Redlock's SET NX: create-if-absent is a txn on
// create revision 0 (an absent key's), its failure branch reading the winner.
void CreateIfAbsent(KvConformanceStore& store) {
  core::KvClient& kv = store.client();
  KvTxn create;
  create.compares = {Compare("job", KvCompareTarget::kCreateRevision, KvCompareResult::kEqual, 0)};
  create.success = {KvRequestOp::Put("job", "n1")};
  create.failure = {KvRequestOp::Range(KvKeys::Single("job"))};
  const KvTxnResult first = kv.Txn(create, kTimeout);
  ASSERT_EQ(first.status, KvStatus::kOk);
  EXPECT_TRUE(first.succeeded);
  EXPECT_EQ(first.revision, 2);  // an empty store is at 1; one write, one revision
  create.success = {KvRequestOp::Put("job", "n2")};
  const KvTxnResult second = kv.Txn(create, kTimeout);
  ASSERT_EQ(second.status, KvStatus::kOk);
  EXPECT_FALSE(second.succeeded);
  EXPECT_EQ(second.revision, 2);  // nothing written, the revision stays
  ASSERT_EQ(second.responses.size(), 1u);
  EXPECT_EQ(second.responses[0].kvs,
            (std::vector<KvEntry>{
                {.key = "job", .value = "n1", .create_revision = 2, .mod_revision = 2, .version = 1}}));
  EXPECT_EQ(second.responses[0].count, 1);
}

// A Kubernetes Lease's update: compare the mod revision read, then put.
void CasOnModRevision(KvConformanceStore& store) {
  core::KvClient& kv = store.client();
  Put(kv, "lease", "a");
  Put(kv, "other", "x");  // revisions are store-wide: the key's mod stays 2
  KvTxn cas;
  cas.compares = {Compare("lease", KvCompareTarget::kModRevision, KvCompareResult::kEqual, 2)};
  cas.success = {KvRequestOp::Put("lease", "b"), KvRequestOp::Range(KvKeys::Single("lease"))};
  cas.failure = {KvRequestOp::Range(KvKeys::Single("lease"))};
  const KvTxnResult won = kv.Txn(cas, kTimeout);
  ASSERT_EQ(won.status, KvStatus::kOk);
  EXPECT_TRUE(won.succeeded);
  EXPECT_EQ(won.revision, 4);
  ASSERT_EQ(won.responses.size(), 2u);
  // A later request of a branch sees the earlier ones' writes.
  EXPECT_EQ(won.responses[1].kvs,
            (std::vector<KvEntry>{
                {.key = "lease", .value = "b", .create_revision = 2, .mod_revision = 4, .version = 2}}));
  const KvTxnResult stale = kv.Txn(cas, kTimeout);
  ASSERT_EQ(stale.status, KvStatus::kOk);
  EXPECT_FALSE(stale.succeeded);
  EXPECT_EQ(stale.revision, 4);
  ASSERT_EQ(stale.responses.size(), 1u);
  ASSERT_EQ(stale.responses[0].kvs.size(), 1u);
  EXPECT_EQ(stale.responses[0].kvs[0].mod_revision, 4);
  // An absent key compares as mod revision 0, version 0.
  KvTxn absent;
  absent.compares = {Compare("none", KvCompareTarget::kModRevision, KvCompareResult::kEqual, 0),
                     Compare("none", KvCompareTarget::kVersion, KvCompareResult::kLess, 1)};
  EXPECT_TRUE(kv.Txn(absent, kTimeout).succeeded);
  absent.compares = {Compare("lease", KvCompareTarget::kVersion, KvCompareResult::kGreater, 1),
                     Compare("lease", KvCompareTarget::kModRevision, KvCompareResult::kLess, 4)};
  EXPECT_FALSE(kv.Txn(absent, kTimeout).succeeded);  // the second compare fails
}

bool Holds(core::KvClient& kv, const KvCompare& compare) {
  KvTxn txn;
  txn.compares = {compare};
  const KvTxnResult result = kv.Txn(txn, kTimeout);
  EXPECT_EQ(result.status, KvStatus::kOk);
  return result.succeeded;
}

// Value compares are byte-wise; on an absent key every value compare fails
// (etcd applyCompare: "nil == empty string in grpc; no way to represent
// missing value").
void ValueCompares(KvConformanceStore& store) {
  core::KvClient& kv = store.client();
  Put(kv, "k", "b");
  Put(kv, "empty", "");
  EXPECT_TRUE(Holds(kv, Compare("k", KvCompareTarget::kValue, KvCompareResult::kEqual, 0, "b")));
  EXPECT_FALSE(Holds(kv, Compare("k", KvCompareTarget::kValue, KvCompareResult::kNotEqual, 0, "b")));
  EXPECT_TRUE(Holds(kv, Compare("k", KvCompareTarget::kValue, KvCompareResult::kLess, 0, "c")));
  EXPECT_TRUE(Holds(kv, Compare("k", KvCompareTarget::kValue, KvCompareResult::kLess, 0, "bb")));
  EXPECT_FALSE(Holds(kv, Compare("k", KvCompareTarget::kValue, KvCompareResult::kGreater, 0, "c")));
  EXPECT_TRUE(Holds(kv, Compare("k", KvCompareTarget::kValue, KvCompareResult::kGreater, 0, "a")));
  EXPECT_TRUE(Holds(kv, Compare("empty", KvCompareTarget::kValue, KvCompareResult::kEqual, 0, "")));
  for (const KvCompareResult result :
       {KvCompareResult::kEqual, KvCompareResult::kNotEqual, KvCompareResult::kLess, KvCompareResult::kGreater}) {
    EXPECT_FALSE(Holds(kv, Compare("absent", KvCompareTarget::kValue, result, 0, "")));
    EXPECT_FALSE(Holds(kv, Compare("absent", KvCompareTarget::kValue, result, 0, "x")));
  }
}

// etcd's election: the candidate with the lowest create revision under the
// prefix leads (a range sorted by create revision, limit 1).
void PrefixRangeSortedByCreateRevision(KvConformanceStore& store) {
  core::KvClient& kv = store.client();
  Put(kv, "e/c", "1");  // create revision 2
  Put(kv, "e/a", "1");  // 3
  Put(kv, "e/b", "1");  // 4
  Put(kv, "e0", "1");   // just past the prefix's end
  Put(kv, "e/c", "2");  // a put keeps the create revision
  const core::KvResponseOp oldest =
      Get(kv, KvRequestOp::Range(KvKeys::Prefix("e/"), core::KvSortBy::kCreateRevision, 2));
  EXPECT_EQ(KeysOf(oldest.kvs), (std::vector<std::string>{"e/c", "e/a"}));
  EXPECT_EQ(oldest.count, 3);
  EXPECT_TRUE(oldest.more);
  ASSERT_EQ(oldest.kvs.size(), 2u);
  EXPECT_EQ(oldest.kvs[0],
            (KvEntry{.key = "e/c", .value = "2", .create_revision = 2, .mod_revision = 6, .version = 2}));
  const core::KvResponseOp by_key = Get(kv, KvRequestOp::Range(KvKeys::Prefix("e/")));
  EXPECT_EQ(KeysOf(by_key.kvs), (std::vector<std::string>{"e/a", "e/b", "e/c"}));
  EXPECT_EQ(by_key.count, 3);
  EXPECT_FALSE(by_key.more);
  const core::KvResponseOp first = Get(kv, KvRequestOp::Range(KvKeys::Prefix("e/"), core::KvSortBy::kKey, 1));
  EXPECT_EQ(KeysOf(first.kvs), (std::vector<std::string>{"e/a"}));
  EXPECT_TRUE(first.more);
  const core::KvResponseOp everything = Get(kv, KvRequestOp::Range(KvKeys{"e", std::string(1, '\0')}));
  EXPECT_EQ(KeysOf(everything.kvs), (std::vector<std::string>{"e/a", "e/b", "e/c", "e0"}));
  const core::KvResponseOp none = Get(kv, KvRequestOp::Range(KvKeys::Prefix("x/"), core::KvSortBy::kCreateRevision, 1));
  EXPECT_TRUE(none.kvs.empty());
  EXPECT_EQ(none.count, 0);
  EXPECT_FALSE(none.more);
}

// A delete names a key or a span; it answers how many it deleted and, asked,
// what they were; deleting nothing leaves the revision where it is.
void DeleteRangeAnswersWhatItDeleted(KvConformanceStore& store) {
  core::KvClient& kv = store.client();
  Put(kv, "d/b", "2");
  Put(kv, "d/a", "1");
  Put(kv, "d0", "x");
  KvRequestOp span = KvRequestOp::Delete(KvKeys::Prefix("d/"));
  span.prev_kv = true;
  KvTxn del;
  del.success = {span};
  const KvTxnResult deleted = kv.Txn(del, kTimeout);
  ASSERT_EQ(deleted.status, KvStatus::kOk);
  EXPECT_EQ(deleted.revision, 5);  // two keys, one revision
  ASSERT_EQ(deleted.responses.size(), 1u);
  EXPECT_EQ(deleted.responses[0].count, 2);
  EXPECT_EQ(KeysOf(deleted.responses[0].kvs), (std::vector<std::string>{"d/a", "d/b"}));
  const KvTxnResult nothing = kv.Txn(del, kTimeout);
  ASSERT_EQ(nothing.status, KvStatus::kOk);
  EXPECT_EQ(nothing.revision, 5);
  ASSERT_EQ(nothing.responses.size(), 1u);
  EXPECT_EQ(nothing.responses[0].count, 0);
  EXPECT_TRUE(nothing.responses[0].kvs.empty());
  KvTxn plain;
  plain.success = {KvRequestOp::Delete(KvKeys::Single("d0"))};
  const KvTxnResult one = kv.Txn(plain, kTimeout);
  EXPECT_EQ(one.revision, 6);
  ASSERT_EQ(one.responses.size(), 1u);
  EXPECT_EQ(one.responses[0].count, 1);
  EXPECT_TRUE(one.responses[0].kvs.empty());  // no prev_kv asked
  // A re-created key starts again: version 1, a new create revision.
  Put(kv, "d/a", "again");
  const core::KvResponseOp again = Get(kv, KvRequestOp::Range(KvKeys::Single("d/a")));
  ASSERT_EQ(again.kvs.size(), 1u);
  EXPECT_EQ(again.kvs[0], (KvEntry{.key = "d/a", .value = "again", .create_revision = 7, .mod_revision = 7,
                                   .version = 1}));
}

// A session's keys live on its lease: a revoke deletes them all, at one
// revision, in key order (etcd lessor.go Revoke).
void PutWithLeaseThenRevokeDeletesKeys(KvConformanceStore& store) {
  core::KvClient& kv = store.client();
  const core::KvLeaseResult lease = kv.LeaseGrant(kTtl, kTimeout);
  ASSERT_EQ(lease.status, KvStatus::kOk);
  EXPECT_NE(lease.id, core::kNoLease);
  EXPECT_EQ(lease.ttl, kTtl);
  EXPECT_EQ(lease.revision, 1);  // a grant writes no key: the revision stays
  KvTxn puts;
  puts.success = {KvRequestOp::Put("s/b", "1", lease.id), KvRequestOp::Put("s/a", "1", lease.id)};
  ASSERT_EQ(kv.Txn(puts, kTimeout).revision, 2);
  Put(kv, "s/c", "kept", lease.id);
  Put(kv, "s/c", "kept");  // a put without the lease detaches the key from it
  const core::KvResponseOp held = Get(kv, KvRequestOp::Range(KvKeys::Prefix("s/")));
  ASSERT_EQ(held.kvs.size(), 3u);
  EXPECT_EQ(held.kvs[0].lease, lease.id);
  EXPECT_EQ(held.kvs[2].lease, core::kNoLease);
  const core::KvLeaseResult revoked = kv.LeaseRevoke(lease.id, kTimeout);
  ASSERT_EQ(revoked.status, KvStatus::kOk);
  EXPECT_EQ(revoked.revision, 5);  // both deletes at one new revision
  EXPECT_EQ(KeysOf(Get(kv, KvRequestOp::Range(KvKeys::Prefix("s/"))).kvs), (std::vector<std::string>{"s/c"}));
  const core::KvWatchResult deletes = kv.Watch(KvKeys::Prefix("s/"), 5, kTimeout);
  ASSERT_EQ(deletes.status, KvStatus::kOk);
  EXPECT_EQ(SeenOf(deletes.events), (std::vector<Seen>{{KvWatchEvent::Type::kDelete, "s/a", 5},
                                                       {KvWatchEvent::Type::kDelete, "s/b", 5}}));
}

// A lease that is gone cannot be renewed, revoked or put on (nothing applied).
void KeepAliveOfARevokedLeaseIsNotFound(KvConformanceStore& store) {
  core::KvClient& kv = store.client();
  const core::KvLeaseResult lease = kv.LeaseGrant(kTtl, kTimeout);
  ASSERT_EQ(lease.status, KvStatus::kOk);
  const core::KvLeaseResult renewed = kv.LeaseKeepAlive(lease.id, kTimeout);
  EXPECT_EQ(renewed.status, KvStatus::kOk);
  EXPECT_EQ(renewed.id, lease.id);
  EXPECT_EQ(renewed.ttl, kTtl);
  ASSERT_EQ(kv.LeaseRevoke(lease.id, kTimeout).status, KvStatus::kOk);
  const core::KvLeaseResult gone = kv.LeaseKeepAlive(lease.id, kTimeout);
  EXPECT_EQ(gone.status, KvStatus::kLeaseNotFound);
  EXPECT_EQ(gone.ttl, 0);
  EXPECT_EQ(kv.LeaseRevoke(lease.id, kTimeout).status, KvStatus::kLeaseNotFound);
  KvTxn put;
  put.success = {KvRequestOp::Put("k", "v"), KvRequestOp::Put("on-gone-lease", "v", lease.id)};
  EXPECT_EQ(kv.Txn(put, kTimeout).status, KvStatus::kLeaseNotFound);
  // A branch writing one key twice is rejected whole (etcd ErrDuplicateKey).
  KvTxn twice;
  twice.success = {KvRequestOp::Put("k", "1"), KvRequestOp::Put("k", "2")};
  EXPECT_EQ(kv.Txn(twice, kTimeout).status, KvStatus::kInvalid);
  // Every key: key and range_end both "\0" (rpc.proto RangeRequest; etcd
  // refuses an empty key).
  const std::string zero(1, '\0');
  const KvTxnResult after = kv.Range(KvRequestOp::Range(KvKeys{zero, zero}), kTimeout);
  EXPECT_EQ(after.revision, 1);  // neither applied anything
  ASSERT_EQ(after.responses.size(), 1u);
  EXPECT_EQ(after.responses[0].count, 0);
}

// A watch from a revision reports every put and delete on its keys from
// there on, in revision order (within a txn, in the txn's order).
void WatchFromARevisionSeesPutsAndDeletesInOrder(KvConformanceStore& store) {
  core::KvClient& kv = store.client();
  Put(kv, "w/a", "1");  // 2
  Put(kv, "w/b", "1");  // 3
  Put(kv, "x", "1");    // 4: not watched
  KvTxn del;
  del.success = {KvRequestOp::Delete(KvKeys::Single("w/a"))};
  ASSERT_EQ(kv.Txn(del, kTimeout).revision, 5);
  KvTxn both;
  both.success = {KvRequestOp::Put("w/c", "1"), KvRequestOp::Put("w/b", "2")};
  ASSERT_EQ(kv.Txn(both, kTimeout).revision, 6);
  const core::KvWatchResult all = kv.Watch(KvKeys::Prefix("w/"), 2, kTimeout);
  ASSERT_EQ(all.status, KvStatus::kOk);
  using Type = KvWatchEvent::Type;
  EXPECT_EQ(SeenOf(all.events), (std::vector<Seen>{{Type::kPut, "w/a", 2},
                                                   {Type::kPut, "w/b", 3},
                                                   {Type::kDelete, "w/a", 5},
                                                   {Type::kPut, "w/c", 6},
                                                   {Type::kPut, "w/b", 6}}));
  EXPECT_EQ(all.revision, 6);
  ASSERT_EQ(all.events.size(), 5u);
  EXPECT_EQ(all.events[4].kv,
            (KvEntry{.key = "w/b", .value = "2", .create_revision = 3, .mod_revision = 6, .version = 2}));
  EXPECT_EQ(all.events[2].kv, (KvEntry{.key = "w/a", .mod_revision = 5}));  // a delete: key and revision only
  const core::KvWatchResult later = kv.Watch(KvKeys::Prefix("w/"), 4, kTimeout);
  ASSERT_EQ(later.status, KvStatus::kOk);
  EXPECT_EQ(SeenOf(later.events).front(), (Seen{Type::kDelete, "w/a", 5}));
  const core::KvWatchResult one = kv.Watch(KvKeys::Single("w/b"), 0, 300 * base::kNanosPerMilli);
  EXPECT_EQ(one.status, KvStatus::kTimeout);  // from the next revision: no news yet
  EXPECT_TRUE(one.events.empty());
}

// A watch from a compacted revision is told to read again; the read's
// revision + 1 is a start the store still has.
void WatchFromACompactedRevisionIsCompacted(KvConformanceStore& store) {
  core::KvClient& kv = store.client();
  for (int i = 0; i < 5; ++i) Put(kv, "c/k", std::to_string(i));  // revisions 2..6
  store.CompactBelow(5);
  const core::KvWatchResult old = kv.Watch(KvKeys::Prefix("c/"), 2, kTimeout);
  ASSERT_EQ(old.status, KvStatus::kCompacted);
  EXPECT_GE(old.compact_revision, 5);
  EXPECT_TRUE(old.events.empty());
  const KvTxnResult read = kv.Range(KvRequestOp::Range(KvKeys::Prefix("c/")), kTimeout);
  ASSERT_EQ(read.status, KvStatus::kOk);
  EXPECT_LE(old.compact_revision, read.revision);
  ASSERT_EQ(read.responses.size(), 1u);
  ASSERT_EQ(read.responses[0].kvs.size(), 1u);
  EXPECT_EQ(read.responses[0].kvs[0].value, "4");
  const KvTxnResult next = Put(kv, "c/k", "5");
  const core::KvWatchResult resumed = kv.Watch(KvKeys::Prefix("c/"), read.revision + 1, kTimeout);
  ASSERT_EQ(resumed.status, KvStatus::kOk);
  EXPECT_EQ(SeenOf(resumed.events), (std::vector<Seen>{{KvWatchEvent::Type::kPut, "c/k", next.revision}}));
}

constexpr KvConformanceCase kCases[] = {
    {"CreateIfAbsent", CreateIfAbsent},
    {"CasOnModRevision", CasOnModRevision},
    {"ValueCompares", ValueCompares},
    {"PrefixRangeSortedByCreateRevision", PrefixRangeSortedByCreateRevision},
    {"DeleteRangeAnswersWhatItDeleted", DeleteRangeAnswersWhatItDeleted},
    {"PutWithLeaseThenRevokeDeletesKeys", PutWithLeaseThenRevokeDeletesKeys},
    {"KeepAliveOfARevokedLeaseIsNotFound", KeepAliveOfARevokedLeaseIsNotFound},
    {"WatchFromARevisionSeesPutsAndDeletesInOrder", WatchFromARevisionSeesPutsAndDeletesInOrder},
    {"WatchFromACompactedRevisionIsCompacted", WatchFromACompactedRevisionIsCompacted},
};

}  // namespace

std::span<const KvConformanceCase> KvConformanceCases() { return kCases; }

std::string KvConformanceCaseName(int index) { return kCases[index].name; }

}  // namespace leasesim::kvtest
