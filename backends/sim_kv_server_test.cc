#include "backends/sim_kv_server.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace leasesim::backends {
namespace {

using core::KvKeys;
using core::KvRequestOp;
using core::KvStatus;

// Records what the store reports.
class RecordingKvObserver : public KvObserver {
 public:
  std::int64_t KvInvoked(int, const KvRequest&) override { return next_op++; }
  void KvApplied(std::int64_t op, const KvReply&) override { applied.push_back(op); }
  void KvCompleted(std::int64_t, const KvReply& reply) override { completed.push_back(reply); }
  void KvLeaseExpired(const KvExpiry& expiry) override { expired.push_back(Expired{now(), expiry}); }

  // An expiry and when the store reported it.
  struct Expired {
    sim::Nanos at;
    KvExpiry expiry;
  };
  std::function<sim::Nanos()> now;
  std::int64_t next_op = 0;
  std::vector<std::int64_t> applied;
  std::vector<KvReply> completed;
  std::vector<Expired> expired;
};

// A client host and a store host on a 1 ms network.
struct KvRig {
  explicit KvRig(KvServerConfig config) {
    observer.now = [this] { return world.now(); };
    world.Start(client);
    world.Start(store_host);
    server = std::make_unique<SimKvServer>(world, store_host, base::Prng(2), config, observer);
    server->Start();
    kv = std::make_unique<SimKvClient>(world, network, client, 1, *server, observer);
  }
  // Runs `body` as a task on the client host.
  void Client(std::function<void()> body) { world.Spawn(client, std::move(body)); }
  void SleepFor(sim::Nanos span) { world.SleepUntilLocal(world.MonotonicNow(client) + span); }
  bool Holds(const std::string& key) const { return server->state().keys().contains(key); }

  sim::World world{5, false};
  sim::HostId client = world.AddHost({.name = "n1"});
  sim::HostId store_host = world.AddHost({.name = "store"});
  sim::Network network{world, base::Prng(1), {.latency = {.base_ns = sim::Millis(1)}}};
  RecordingKvObserver observer;
  std::unique_ptr<SimKvServer> server;
  std::unique_ptr<SimKvClient> kv;
};

KvServerConfig Etcd() {
  return KvServerConfig{.service = {.base_ns = sim::Millis(2)}, .ttl_clock = KvTtlClock::kMonotonic};
}

KvServerConfig Redis() {
  return KvServerConfig{.service = {.base_ns = sim::Millis(2)},
                        .ttl_clock = KvTtlClock::kWall,
                        .expiry_period = sim::Millis(100),
                        .expire_on_access = true};
}

// Grants a lease of `ttl` and puts `key` on it; returns the lease.
core::KvLeaseId PutOnLease(KvRig& rig, const std::string& key, sim::Nanos ttl) {
  const core::KvLeaseResult lease = rig.kv->LeaseGrant(ttl, sim::Millis(100));
  EXPECT_EQ(lease.status, KvStatus::kOk);
  core::KvTxn put;
  put.success.push_back(KvRequestOp::Put(key, "n1", lease.id));
  EXPECT_EQ(rig.kv->Txn(put, sim::Millis(100)).status, KvStatus::kOk);
  return lease.id;
}

TEST(SimKvServer, ARoundTripTakesTwoHopsAndTheServiceTime) {
  KvRig rig(Etcd());
  core::KvTxnResult result;
  sim::Nanos done = -1;
  rig.Client([&] {
    core::KvTxn put;
    put.success.push_back(KvRequestOp::Put("job", "n1"));
    result = rig.kv->Txn(put, sim::Millis(100));
    done = rig.world.now();
  });
  rig.world.RunUntil(sim::Seconds(1));
  EXPECT_EQ(result.status, KvStatus::kOk);
  EXPECT_EQ(result.revision, 2);
  EXPECT_EQ(done, sim::Millis(4));
}

TEST(SimKvServer, AnAppliedRequestWhoseReplyIsLostTimesOutWithItsEffectInPlace) {
  KvRig rig(Etcd());
  core::KvLeaseResult grant;
  rig.network.SetBlocked(rig.store_host, rig.client, true);
  rig.Client([&] { grant = rig.kv->LeaseGrant(sim::Seconds(5), sim::Millis(100)); });
  rig.world.RunUntil(sim::Seconds(1));
  EXPECT_EQ(grant.status, KvStatus::kTimeout);
  EXPECT_EQ(rig.observer.applied.size(), 1u);
  EXPECT_EQ(rig.server->state().lease_count(), 1u);
}

TEST(SimKvServer, OutagesRefuseOrSwallowRequests) {
  KvRig rig(Etcd());
  std::vector<KvStatus> statuses;
  rig.server->SetOutage(StoreOutage::kUnavailable);
  rig.Client([&] {
    statuses.push_back(rig.kv->LeaseGrant(sim::Seconds(5), sim::Millis(100)).status);
    rig.server->SetOutage(StoreOutage::kBlackhole);
    statuses.push_back(rig.kv->LeaseGrant(sim::Seconds(5), sim::Millis(100)).status);
  });
  rig.world.RunUntil(sim::Seconds(1));
  EXPECT_EQ(statuses, (std::vector<KvStatus>{KvStatus::kUnavailable, KvStatus::kTimeout}));
  EXPECT_EQ(rig.server->state().lease_count(), 0u);
}

TEST(SimKvServer, APausedStoreHostEndsNoLeaseUntilItResumes) {
  KvRig rig(Etcd());
  rig.Client([&] { PutOnLease(rig, "leader", sim::Seconds(1)); });
  rig.world.At(sim::Millis(200), [&] { rig.world.Pause(rig.store_host); });
  rig.world.At(sim::Seconds(3), [&] { rig.world.Unpause(rig.store_host); });
  rig.world.RunUntil(sim::Millis(2999));
  EXPECT_TRUE(rig.Holds("leader"));  // long past its TTL: the host's loop has not run
  EXPECT_TRUE(rig.observer.expired.empty());
  rig.world.RunUntil(sim::Seconds(4));
  EXPECT_FALSE(rig.Holds("leader"));
  ASSERT_EQ(rig.observer.expired.size(), 1u);
  EXPECT_EQ(rig.observer.expired[0].at, sim::Seconds(3));  // on resume, what is due
  EXPECT_EQ(rig.observer.expired[0].expiry.deleted, std::vector<std::string>{"leader"});
}

TEST(SimKvServer, AWallStepForwardEndsAWallJudgedTtlEarly) {
  for (const bool wall : {true, false}) {
    KvServerConfig config = Redis();
    if (!wall) config.ttl_clock = KvTtlClock::kMonotonic;
    KvRig rig(config);
    rig.Client([&] { PutOnLease(rig, "lock", sim::Seconds(10)); });
    rig.world.At(sim::Seconds(1), [&] { rig.world.StepWall(rig.store_host, sim::Seconds(20)); });
    rig.world.RunUntil(sim::Seconds(2));
    // Redis keeps expiry as a Unix time: 1 s into a 10 s TTL, the step ends it.
    EXPECT_EQ(rig.Holds("lock"), !wall) << (wall ? "wall" : "monotonic");
  }
}

TEST(SimKvServer, ASuspendedStoreHostCountsTheSpanOnlyOnTheWallClock) {
  for (const bool wall : {true, false}) {
    KvServerConfig config = Redis();
    config.ttl_clock = wall ? KvTtlClock::kWall : KvTtlClock::kMonotonic;
    KvRig rig(config);
    rig.Client([&] { PutOnLease(rig, "lock", sim::Seconds(1)); });
    rig.world.At(sim::Millis(500), [&] { rig.world.Suspend(rig.store_host); });
    rig.world.At(sim::Seconds(5), [&] { rig.world.Unsuspend(rig.store_host); });
    rig.world.RunUntil(sim::Seconds(7));
    ASSERT_EQ(rig.observer.expired.size(), 1u);
    const sim::Nanos at = rig.observer.expired[0].at;
    if (wall) {
      EXPECT_EQ(at, sim::Seconds(5));  // the wall clock jumped by the 4.5 s asleep
    } else {
      // CLOCK_MONOTONIC stood still: about 0.5 s of the TTL is left on resume.
      EXPECT_GE(at, sim::Millis(5490));
      EXPECT_LE(at, sim::Millis(5600));
    }
  }
}

TEST(SimKvServer, RedisEndsADueKeyOnAccessEtcdOnlyInItsLoop) {
  for (const bool on_access : {true, false}) {
    KvServerConfig config = Etcd();
    config.expiry_period = sim::Seconds(10);  // the loop does not run in time
    config.expire_on_access = on_access;
    KvRig rig(config);
    core::KvTxnResult read;
    core::KvLeaseResult renewed;
    core::KvLeaseId lease = 0;
    rig.Client([&] {
      lease = PutOnLease(rig, "k", sim::Seconds(1));
      rig.SleepFor(sim::Seconds(2));
      read = rig.kv->Range(KvRequestOp::Range(KvKeys::Single("k")), sim::Millis(100));
      renewed = rig.kv->LeaseKeepAlive(lease, sim::Millis(100));
    });
    rig.world.RunUntil(sim::Seconds(3));
    ASSERT_EQ(read.status, KvStatus::kOk);
    EXPECT_EQ(read.responses[0].kvs.empty(), on_access);
    EXPECT_EQ(renewed.status, KvStatus::kLeaseNotFound);  // etcd's Renew waits for the revocation
    EXPECT_FALSE(rig.Holds("k"));
  }
}

TEST(SimKvServer, AWatchFromACompactedRevisionMustReadAgain) {
  KvServerConfig config = Etcd();
  config.state.history_revisions = 2;
  KvRig rig(config);
  core::KvWatchResult stale, fresh;
  rig.Client([&] {
    for (int i = 0; i < 5; ++i) {  // revisions 2..6
      core::KvTxn put;
      put.success.push_back(KvRequestOp::Put("k", std::to_string(i)));
      rig.kv->Txn(put, sim::Millis(100));
    }
    stale = rig.kv->Watch(KvKeys::Single("k"), 2, sim::Millis(100));
    // Read again, then watch from the read's revision on.
    const core::KvTxnResult read = rig.kv->Range(KvRequestOp::Range(KvKeys::Single("k")), sim::Millis(100));
    fresh = rig.kv->Watch(KvKeys::Single("k"), read.revision + 1, sim::Seconds(1));
  });
  rig.Client([&] {
    rig.SleepFor(sim::Millis(200));
    core::KvTxn put;
    put.success.push_back(KvRequestOp::Put("k", "late"));
    rig.kv->Txn(put, sim::Millis(100));
  });
  rig.world.RunUntil(sim::Seconds(2));
  EXPECT_EQ(stale.status, KvStatus::kCompacted);
  EXPECT_EQ(stale.compact_revision, 5);
  ASSERT_EQ(fresh.status, KvStatus::kOk);
  ASSERT_EQ(fresh.events.size(), 1u);
  EXPECT_EQ(fresh.events[0].kv.value, "late");
  EXPECT_EQ(fresh.events[0].kv.mod_revision, 7);
}

TEST(SimKvServer, WatchWhileWatchesAgainAfterEachQuietTimeoutUntilNews) {
  KvRig rig(Etcd());
  core::KvWatchResult news, declined;
  int drawn = 0;
  int asked = 0;
  sim::Nanos answered_at = 0;
  rig.Client([&] {
    // Quiet 100 ms waits, each asking again; the put at 450 ms ends one.
    news = rig.kv->WatchWhile(
        KvKeys::Single("k"), 2,
        [&] {
          ++drawn;
          return sim::Millis(100);
        },
        [&] { return ++asked < 100; });
    answered_at = rig.world.now();
    // A caller that declines at once gets the timeout.
    declined = rig.kv->WatchWhile(KvKeys::Single("k"), 3, [] { return sim::Millis(50); }, [] { return false; });
  });
  rig.Client([&] {
    rig.SleepFor(sim::Millis(450));
    core::KvTxn put;
    put.success.push_back(KvRequestOp::Put("k", "v"));
    rig.kv->Txn(put, sim::Millis(100));
  });
  rig.world.RunUntil(sim::Seconds(2));
  ASSERT_EQ(news.status, KvStatus::kOk);
  ASSERT_EQ(news.events.size(), 1u);
  EXPECT_EQ(news.events[0].kv.value, "v");
  EXPECT_EQ(asked, 4);  // at 100, 200, 300 and 400 ms
  EXPECT_EQ(drawn, 5);  // the first wait's and one per wait after
  EXPECT_GT(answered_at, sim::Millis(450));
  EXPECT_LT(answered_at, sim::Millis(500));
  EXPECT_EQ(declined.status, KvStatus::kTimeout);
}

}  // namespace
}  // namespace leasesim::backends
