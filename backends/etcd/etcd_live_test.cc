// Against a real etcd (one member, started here on loopback under a
// temporary directory). Skipped when /usr/bin/etcd is absent. ctest label "live".

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/etcd/etcd_http.h"
#include "backends/etcd/etcd_kv.h"
#include "backends/etcd/etcd_ledger.h"
#include "backends/etcd/etcd_test_values.h"
#include "backends/etcd/etcd_store.h"
#include "backends/etcd/one_etcd_test_util.h"
#include "backends/etcd/real_env.h"
#include "base/units.h"
#include "core/lease_node.h"

namespace leasesim::etcd {
namespace {

using test_values::Batch;
using base::Millis;

// The fixture: one fresh etcd member per test, and an HTTP client of it.
class EtcdLive : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(kEtcd, X_OK) != 0) GTEST_SKIP() << kEtcd << " is absent (apt-get install etcd-server)";
    etcd_ = std::make_unique<OneEtcd>();
    ASSERT_TRUE(etcd_->ready()) << "etcd did not start";
    http_ = std::make_unique<EtcdHttp>(EndpointOptions{.endpoints = {etcd_->url()}});
  }
  std::unique_ptr<OneEtcd> etcd_;
  std::unique_ptr<EtcdHttp> http_;
};

core::LeaseRecord Held(std::string holder, std::int64_t term) {
  return core::LeaseRecord{.holder = std::move(holder), .term = term, .duration_ns = Millis(1'000)};
}

TEST_F(EtcdLive, CreateIfAbsentThenCasOnThePerKeyVersion) {
  EtcdStoreClient store(*http_);
  const core::Nanos t = Millis(2'000);
  EXPECT_FALSE(store.Read("lease/job", t).current.found);
  core::StoreResult created = store.Create("lease/job", Held("a", 1), t);
  ASSERT_EQ(created.status, core::StoreStatus::kOk);
  EXPECT_EQ(created.current.version, 1);
  EXPECT_EQ(created.current.record, Held("a", 1));
  core::StoreResult again = store.Create("lease/job", Held("b", 1), t);
  EXPECT_EQ(again.status, core::StoreStatus::kConflict);
  EXPECT_EQ(again.current.record.holder, "a");

  core::StoreResult cas = store.CompareAndSet("lease/job", 1, Held("a", 1), t);
  ASSERT_EQ(cas.status, core::StoreStatus::kOk);
  EXPECT_EQ(cas.current.version, 2);
  core::StoreResult stale = store.CompareAndSet("lease/job", 1, Held("b", 2), t);
  EXPECT_EQ(stale.status, core::StoreStatus::kConflict);
  EXPECT_EQ(stale.current.version, 2);
  EXPECT_EQ(store.Read("lease/job", t).current.record.holder, "a");
  // Versions are per key, whatever else the cluster writes.
  store.Create("lease/other", Held("x", 1), t);
  EXPECT_EQ(store.CompareAndSet("lease/job", 2, Held("c", 3), t).current.version, 3);
  EXPECT_EQ(store.CompareAndSet("lease/absent", 0, Held("c", 3), t).status, core::StoreStatus::kConflict);
}

TEST_F(EtcdLive, LedgerFencesDeduplicatesAndAppliesWholeBatches) {
  EtcdLedgerClient ledger(*http_, {.prefix = "L/", .writer = "w"});
  const core::Nanos t = Millis(2'000);
  core::LedgerResult empty = ledger.LastAppliedWindow(t);
  EXPECT_EQ(empty.status, core::LedgerStatus::kApplied);
  EXPECT_EQ(empty.last_window, -1);
  EXPECT_EQ(ledger.Commit(Batch(1, 0), t).status, core::LedgerStatus::kApplied);
  EXPECT_EQ(ledger.Commit(Batch(1, 0), t).status, core::LedgerStatus::kDuplicate);
  core::LedgerResult next = ledger.Commit(Batch(2, 1), t);
  EXPECT_EQ(next.status, core::LedgerStatus::kApplied);
  EXPECT_EQ(next.highest_token, 2);
  EXPECT_EQ(next.last_window, 1);
  core::LedgerResult stale = ledger.Commit(Batch(1, 2), t);
  EXPECT_EQ(stale.status, core::LedgerStatus::kRejectedStale);
  EXPECT_EQ(stale.highest_token, 2);
  EXPECT_EQ(ledger.LastAppliedWindow(t).last_window, 1);
  std::vector<AppliedBatch> applied;
  ASSERT_TRUE(ledger.ListApplied(t, applied));
  ASSERT_EQ(applied.size(), 2u);
  EXPECT_EQ(applied[0].token, 1);
  EXPECT_EQ(applied[1].token, 2);
  EXPECT_LT(applied[0].revision, applied[1].revision);
  EXPECT_EQ(applied[0].holder, "w");
  EXPECT_EQ(applied[0].items, 2);
}

TEST_F(EtcdLive, NoFencingVariantAppliesAStaleTokenButKeepsTheFence) {
  EtcdLedgerClient ledger(*http_, {.prefix = "L/", .check_fence = false, .writer = "w"});
  const core::Nanos t = Millis(2'000);
  EXPECT_EQ(ledger.Commit(Batch(5, 0), t).status, core::LedgerStatus::kApplied);
  core::LedgerResult stale = ledger.Commit(Batch(3, 1), t);
  EXPECT_EQ(stale.status, core::LedgerStatus::kApplied);
  EXPECT_EQ(stale.highest_token, 5);  // the fence never goes down
  EXPECT_EQ(ledger.Commit(Batch(3, 1), t).status, core::LedgerStatus::kDuplicate);
}

TEST_F(EtcdLive, TheCoreLeadsAgainstEtcdOnRealThreads) {
  EtcdStoreClient store(*http_);
  EtcdLedgerClient ledger(*http_, {.prefix = "L/", .writer = "n1#1"});
  struct Sink final : core::EventSink {
    void Emit(const core::LeaseEvent& event) override {
      if (event.kind == core::EventKind::kAcquired) acquired += 1;
      if (event.kind == core::EventKind::kRenewed) renewed += 1;
    }
    std::atomic<int> acquired{0};
    std::atomic<int> renewed{0};
  } sink;
  core::TimingConfig timing{.lease_duration = Millis(2'000),
                            .renew_interval = Millis(200),
                            .renew_deadline = Millis(1'200),
                            .retry = Millis(100),
                            .request_timeout = Millis(150),
                            .drift_bound_ppm = 1000,
                            .safety_margin = Millis(200),
                            .pause_budget = 0};
  RealEnv env(store, ledger, sink);
  core::LeaseNode node(env, {.key = "lease/job", .identity = "n1#1", .timing = timing},
                       {.period = Millis(100),
                        .schedule_epoch_wall = env.WallNow() - Millis(300),
                        .batch_items = 2,
                        .poll = Millis(20),
                        .request_timeout = Millis(150)});
  node.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(1'200));
  env.Stop();
  EXPECT_EQ(sink.acquired.load(), 1);
  EXPECT_GE(sink.renewed.load(), 3);
  std::vector<AppliedBatch> applied;
  ASSERT_TRUE(ledger.ListApplied(Millis(2'000), applied));
  EXPECT_GE(applied.size(), 8u);
  EXPECT_EQ(store.Read("lease/job", Millis(1'000)).current.record.holder, "n1#1");
}

// The watch long-polls: from the next revision it waits for the change.
TEST_F(EtcdLive, KvWatchWaitsForTheNextChange) {
  EtcdKvClient kv(*http_);
  const core::Nanos t = Millis(2'000);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    core::KvTxn put;
    put.success.push_back(core::KvRequestOp::Put("e/1", "n1"));
    EXPECT_EQ(kv.Txn(put, t).status, core::KvStatus::kOk);
  });
  const auto start = std::chrono::steady_clock::now();
  const core::KvWatchResult seen = kv.Watch(core::KvKeys::Prefix("e/"), 0, Millis(5'000));
  const auto took = std::chrono::steady_clock::now() - start;
  writer.join();
  ASSERT_EQ(seen.status, core::KvStatus::kOk);
  ASSERT_EQ(seen.events.size(), 1u);
  EXPECT_EQ(seen.events[0].kv.key, "e/1");
  EXPECT_EQ(seen.events[0].kv.mod_revision, 2);
  EXPECT_GE(took, std::chrono::milliseconds(250));
}

// A lease nobody keeps alive ends on etcd's clock: its keys are deleted
// (a delete event each) and a keep-alive is refused.
TEST_F(EtcdLive, KvLeaseEndsOnEtcdsClockAndDeletesItsKeys) {
  EtcdKvClient kv(*http_);
  const core::Nanos t = Millis(2'000);
  const core::KvLeaseResult lease = kv.LeaseGrant(Millis(1'000), t);
  ASSERT_EQ(lease.status, core::KvStatus::kOk);
  EXPECT_EQ(lease.ttl, Millis(2'000));  // etcd's minimum TTL with the default election timeout
  core::KvTxn put;
  put.success.push_back(core::KvRequestOp::Put("s/n1", "n1", lease.id));
  ASSERT_EQ(kv.Txn(put, t).revision, 2);
  bool gone = false;
  for (int i = 0; i < 80 && !gone; ++i) {  // at most 8 s: TTL 2 s, and etcd's lessor checks every 500 ms
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const core::KvTxnResult read = kv.Range(core::KvRequestOp::Range(core::KvKeys::Single("s/n1")), t);
    gone = read.status == core::KvStatus::kOk && read.responses.at(0).kvs.empty();
  }
  ASSERT_TRUE(gone);
  EXPECT_EQ(kv.LeaseKeepAlive(lease.id, t).status, core::KvStatus::kLeaseNotFound);
  const core::KvWatchResult deleted = kv.Watch(core::KvKeys::Prefix("s/"), 3, t);
  ASSERT_EQ(deleted.status, core::KvStatus::kOk);
  ASSERT_EQ(deleted.events.size(), 1u);
  EXPECT_EQ(deleted.events[0].type, core::KvWatchEvent::Type::kDelete);
  EXPECT_EQ(deleted.events[0].kv.mod_revision, 3);
}

}  // namespace
}  // namespace leasesim::etcd
