#include "checker/kv_store_model.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace leasesim::checker {
namespace {

using Kind = KvStoreOp::Kind;
using RequestKind = KvStoreRequest::Kind;

KvStoreEntry Entry(std::string key, std::string value, std::int64_t create, std::int64_t mod, std::int64_t version,
                   KvStoreLease lease = 0) {
  return KvStoreEntry{std::move(key), std::move(value), create, mod, version, lease};
}

KvStoreRequest Put(std::string key, std::string value, KvStoreLease lease = 0) {
  KvStoreRequest request;
  request.kind = RequestKind::kPut;
  request.key = std::move(key);
  request.value = std::move(value);
  request.lease = lease;
  return request;
}

// A range of one key (end "") or a span, answered with `kvs`.
KvStoreRequest Get(std::string key, std::vector<KvStoreEntry> kvs, std::string end = "") {
  KvStoreRequest request;
  request.kind = RequestKind::kRange;
  request.key = std::move(key);
  request.end = std::move(end);
  request.count = static_cast<std::int64_t>(kvs.size());
  request.kvs = std::move(kvs);
  return request;
}

KvStoreOp Txn(int process, TimeNs call, TimeNs ret, std::vector<KvStoreRequest> success, std::int64_t revision,
              Outcome outcome = Outcome::kOk) {
  KvStoreOp op;
  op.kind = Kind::kTxn;
  op.process = process;
  op.outcome = outcome;
  op.success = std::move(success);
  op.succeeded = true;
  op.revision = revision;
  op.call_ns = call;
  op.return_ns = outcome == Outcome::kUnknown ? kNeverNs : ret;
  return op;
}

KvStoreOp LeaseOp(Kind kind, int process, TimeNs call, TimeNs ret, KvStoreLease lease, std::int64_t revision) {
  KvStoreOp op;
  op.kind = kind;
  op.process = process;
  op.outcome = Outcome::kOk;
  op.lease = lease;
  op.ttl_ns = 1000;
  op.revision = revision;
  op.call_ns = call;
  op.return_ns = ret;
  return op;
}

LinVerdict Verdict(const std::vector<KvStoreOp>& ops) { return CheckKvStore(ops).verdict; }

TEST(KvStoreModel, AReadSeesTheWriteThatCompletedBeforeIt) {
  const std::vector<KvStoreOp> ops = {
      Txn(1, 0, 10, {Put("a", "1")}, 2),
      Txn(2, 20, 30, {Get("a", {Entry("a", "1", 2, 2, 1)})}, 2),
  };
  EXPECT_EQ(Verdict(ops), LinVerdict::kLinearizable);
  std::vector<KvStoreOp> stale = ops;
  stale[1].success[0] = Get("a", {});
  stale[1].revision = 1;  // as before the put
  EXPECT_EQ(Verdict(stale), LinVerdict::kNotLinearizable);
  std::vector<KvStoreOp> concurrent = stale;
  concurrent[1].call_ns = 5;  // overlaps the put: may read before it
  EXPECT_EQ(Verdict(concurrent), LinVerdict::kLinearizable);
}

TEST(KvStoreModel, RevisionsAreChecked) {
  std::vector<KvStoreOp> ops = {
      Txn(1, 0, 10, {Put("a", "1")}, 2),
      Txn(2, 20, 30, {Put("b", "1")}, 3),
  };
  EXPECT_EQ(Verdict(ops), LinVerdict::kLinearizable);
  ops[1].revision = 4;  // a revision skipped
  EXPECT_EQ(Verdict(ops), LinVerdict::kNotLinearizable);
}

TEST(KvStoreModel, TwoCreatesIfAbsentCannotBothWin) {
  KvStoreOp create = Txn(1, 0, 10, {Put("lock", "n1")}, 2);
  create.compares.push_back(KvStoreCompare{"lock", KvStoreCompareTarget::kCreateRevision,
                                           KvStoreCompareResult::kEqual, 0, ""});
  create.failure.push_back(Get("lock", {Entry("lock", "n1", 2, 2, 1)}));
  KvStoreOp second = create;
  second.process = 2;
  second.call_ns = 20;
  second.return_ns = 30;
  second.success[0].value = "n2";
  second.revision = 3;
  EXPECT_EQ(Verdict({create, second}), LinVerdict::kNotLinearizable);
  second.succeeded = false;  // the else branch: read the winner
  second.revision = 2;
  EXPECT_EQ(Verdict({create, second}), LinVerdict::kLinearizable);
}

// A key on a lease; the store ends the lease at t=100 (revision 3).
std::vector<KvStoreOp> ExpiringKey() {
  return {
      LeaseOp(Kind::kLeaseGrant, 1, 0, 10, 7, 1),
      Txn(1, 20, 30, {Put("leader", "n1", 7)}, 2),
      LeaseOp(Kind::kLeaseExpire, 0, 100, 100, 7, 3),
  };
}

TEST(KvStoreModel, AReadAfterTheExpiryMustNotSeeTheKey) {
  std::vector<KvStoreOp> ops = ExpiringKey();
  ops.push_back(Txn(2, 110, 120, {Get("leader", {})}, 3));
  EXPECT_EQ(Verdict(ops), LinVerdict::kLinearizable);
  ops.back().success[0] = Get("leader", {Entry("leader", "n1", 2, 2, 1, 7)});
  ops.back().revision = 2;
  const LinResult result = CheckKvStore(ops);
  EXPECT_EQ(result.verdict, LinVerdict::kNotLinearizable);
  EXPECT_EQ(result.blocking_op, 3u);
  EXPECT_NE(result.explanation.find("range leader"), std::string::npos) << result.explanation;
  ops.back().call_ns = 90;  // concurrent with the expiry: may read before it
  EXPECT_EQ(Verdict(ops), LinVerdict::kLinearizable);
}

TEST(KvStoreModel, AnExpiredLeaseIsNeitherRenewedNorUsable) {
  std::vector<KvStoreOp> renewed = ExpiringKey();
  renewed.push_back(LeaseOp(Kind::kLeaseKeepAlive, 1, 110, 120, 7, 3));
  EXPECT_EQ(Verdict(renewed), LinVerdict::kNotLinearizable);
  renewed.back().lease_not_found = true;
  EXPECT_EQ(Verdict(renewed), LinVerdict::kLinearizable);

  std::vector<KvStoreOp> put_on_it = ExpiringKey();
  put_on_it.push_back(Txn(1, 110, 120, {Put("leader", "n1", 7)}, 4));
  EXPECT_EQ(Verdict(put_on_it), LinVerdict::kNotLinearizable);
  put_on_it.back().lease_not_found = true;
  put_on_it.back().revision = 3;
  EXPECT_EQ(Verdict(put_on_it), LinVerdict::kLinearizable);
}

TEST(KvStoreModel, AnExpiryMustFindItsLeaseAndDeleteAtTheNextRevision) {
  std::vector<KvStoreOp> ops = ExpiringKey();
  ops[2].revision = 5;
  EXPECT_EQ(Verdict(ops), LinVerdict::kNotLinearizable);
  std::vector<KvStoreOp> revoked_first = ExpiringKey();
  revoked_first.insert(revoked_first.begin() + 2, LeaseOp(Kind::kLeaseRevoke, 1, 40, 50, 7, 3));
  EXPECT_EQ(Verdict(revoked_first), LinVerdict::kNotLinearizable);  // nothing left to expire
}

TEST(KvStoreModel, APrefixRangeCountsAndLimits) {
  std::vector<KvStoreOp> ops = {
      Txn(1, 0, 10, {Put("e/b", "1"), Put("e/a", "1"), Put("f", "1")}, 2),
  };
  KvStoreRequest oldest = Get("e/", {Entry("e/a", "1", 2, 2, 1)}, "e0");
  oldest.sort_by_create = true;
  oldest.limit = 1;
  oldest.count = 2;
  oldest.more = true;
  ops.push_back(Txn(2, 20, 30, {oldest}, 2));
  EXPECT_EQ(Verdict(ops), LinVerdict::kLinearizable);  // same revision: key order decides
  ops.back().success[0].count = 3;                      // "f" is outside the prefix
  EXPECT_EQ(Verdict(ops), LinVerdict::kNotLinearizable);
}

TEST(KvStoreModel, AWriteOfUnknownOutcomeMayHaveHappened) {
  std::vector<KvStoreOp> ops = {
      Txn(1, 0, 10, {Put("a", "1")}, 0, Outcome::kUnknown),
      Txn(2, 20, 30, {Get("a", {Entry("a", "1", 2, 2, 1)})}, 2),
      Txn(3, 40, 50, {Get("a", {})}, 1),
  };
  EXPECT_EQ(Verdict({ops[0], ops[1]}), LinVerdict::kLinearizable);
  EXPECT_EQ(Verdict({ops[0], ops[2]}), LinVerdict::kLinearizable);
  EXPECT_EQ(Verdict(ops), LinVerdict::kNotLinearizable);  // it cannot be undone
}

TEST(KvStoreModel, SplitsByKeyOnlyWhenNothingLinksKeys) {
  std::vector<KvStoreOp> ops = {
      Txn(1, 0, 10, {Put("a", "1")}, 0),
      Txn(2, 0, 10, {Put("b", "1")}, 0),
      Txn(3, 20, 30, {Get("a", {Entry("a", "1", 0, 0, 1)})}, 0),
  };
  for (KvStoreOp& op : ops) op.revisions = false;
  EXPECT_TRUE(KvStoreSplitsByKey(ops));
  EXPECT_EQ(CheckKvStore(ops).partitions, 2u);
  EXPECT_EQ(CheckKvStore(ops).verdict, LinVerdict::kLinearizable);
  ops[2].success[0].kvs[0].value = "2";
  const LinResult broken = CheckKvStore(ops);
  EXPECT_EQ(broken.verdict, LinVerdict::kNotLinearizable);
  EXPECT_EQ(broken.partition, "a");
  ops[1].success.push_back(Put("a2", "x"));  // one txn links b and a2: still separate from a
  EXPECT_EQ(CheckKvStore(ops).partitions, 2u);
  std::vector<KvStoreOp> revisions = ops;
  revisions[0].revisions = true;  // a store-wide revision links every key
  EXPECT_FALSE(KvStoreSplitsByKey(revisions));
  std::vector<KvStoreOp> leased = ops;
  leased.push_back(LeaseOp(Kind::kLeaseGrant, 4, 0, 10, 3, 1));
  leased.back().revisions = false;
  EXPECT_FALSE(KvStoreSplitsByKey(leased));
  EXPECT_EQ(CheckKvStore(leased).partitions, 1u);
}

// The store's own order, when every op carries it, is tried as the
// linearization first: no search when it explains every answer; a search
// when it is missing, breaks real time or does not explain them, which
// then judges as before.
TEST(KvStoreModel, TheAppliedOrderIsTriedBeforeAnySearch) {
  std::vector<KvStoreOp> ops = {
      Txn(1, 0, 10, {Put("a", "1")}, 2),
      Txn(2, 5, 30, {Get("a", {})}, 1),  // concurrent with the put, and read before it
      Txn(3, 20, 40, {Get("a", {Entry("a", "1", 2, 2, 1)})}, 2),
      Txn(1, 50, kNeverNs, {Put("a", "2")}, 0, Outcome::kUnknown),  // never applied
  };
  ops[1].applied_seq = 0;
  ops[0].applied_seq = 1;
  ops[2].applied_seq = 2;
  const LinResult witnessed = CheckKvStore(ops);
  EXPECT_EQ(witnessed.verdict, LinVerdict::kLinearizable);
  EXPECT_EQ(witnessed.steps, 0);  // no search

  std::vector<KvStoreOp> unplaced = ops;
  unplaced[2].applied_seq = -1;  // a returned op without its place: searched
  EXPECT_EQ(CheckKvStore(unplaced).verdict, LinVerdict::kLinearizable);
  EXPECT_GT(CheckKvStore(unplaced).steps, 0);

  std::vector<KvStoreOp> against_time = ops;
  against_time[1].call_ns = 15;  // now after the put returned: its place breaks real time
  EXPECT_EQ(CheckKvStore(against_time).verdict, LinVerdict::kNotLinearizable);

  std::vector<KvStoreOp> wrong_order = ops;  // an order that does not explain the reads...
  wrong_order[1].applied_seq = 1;
  wrong_order[0].applied_seq = 0;
  const LinResult searched = CheckKvStore(wrong_order);
  EXPECT_EQ(searched.verdict, LinVerdict::kLinearizable);  // ...is no verdict: the search finds one
  EXPECT_GT(searched.steps, 0);

  std::vector<KvStoreOp> twice = ops;  // one place given twice
  twice[2].applied_seq = 1;
  EXPECT_GT(CheckKvStore(twice).steps, 0);
}

}  // namespace
}  // namespace leasesim::checker
