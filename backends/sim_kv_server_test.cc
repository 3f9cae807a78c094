#include "backends/sim_kv_server.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace leasesim::backends {
namespace {

using core::KvKeys;
using core::KvRequestOp;
using core::KvStatus;

// Records what the store reports.
class RecordingKvObserver : public KvObserver {
 public:
  std::int64_t KvInvoked(int, std::string_view, const KvRequest&) override { return next_op++; }
  void KvApplied(std::int64_t op, const KvReply&) override { applied.push_back(op); }
  void KvCompleted(std::int64_t, const KvReply& reply) override { completed.push_back(reply); }
  void KvLeaseExpired(const KvExpiry& expiry) override { expired.push_back(Expired{now(), expiry}); }
  std::int64_t KvStreamAnswered(const KvStreamRequest& stream, const core::KvWatchResult& answer,
                                const core::KvEntry* current) override {
    if (on_stream_answer) on_stream_answer(stream, current);
    stream_answers.push_back(StreamAnswer{stream.process, answer.events.size()});
    return static_cast<std::int64_t>(stream_answers.size() - 1);
  }
  void KvStreamDelivered(std::int64_t op) override { delivered.push_back(op); }
  bool ReportsStream(const KvStreamRequest&) override { return report_streams; }

  // A stream's answer: to whom, with how many events (0: `created`).
  struct StreamAnswer {
    std::string process;
    std::size_t events;
    friend bool operator==(const StreamAnswer&, const StreamAnswer&) = default;
  };
  std::vector<StreamAnswer> stream_answers;
  std::vector<std::int64_t> delivered;
  bool report_streams = true;
  // Run at each stream answer, with the key's entry the store reported.
  std::function<void(const KvStreamRequest&, const core::KvEntry*)> on_stream_answer;

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
    kv = std::make_unique<SimKvClient>(world, network, client, 1, "n1#1", *server, observer);
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

// --- the watch stream --------------------------------------------------------

// KvRig with a second client host, n2, writing; n1's client watches
// through one stream.
struct StreamRig : KvRig {
  explicit StreamRig(KvServerConfig config = Etcd()) : KvRig(config) {
    world.Start(writer);
    watcher = std::make_unique<SimKvClient>(world, network, client, 1, "n1#1", *server, observer, true);
    writer_kv = std::make_unique<SimKvClient>(world, network, writer, 2, "n2#1", *server, observer);
  }
  // n2 puts `count` values on "k", one every 100 ms from 100 ms.
  void WriteValues(int count) {
    world.Spawn(writer, [this, count] {
      for (int i = 0; i < count; ++i) {
        world.SleepUntilLocal(world.MonotonicNow(writer) + sim::Millis(100));
        core::KvTxn put;
        put.success.push_back(KvRequestOp::Put("k", "v" + std::to_string(i)));
        EXPECT_EQ(writer_kv->Txn(put, sim::Millis(50)).status, KvStatus::kOk);
      }
    });
  }
  sim::HostId writer = world.AddHost({.name = "n2"});
  std::unique_ptr<SimKvClient> watcher;
  std::unique_ptr<SimKvClient> writer_kv;
};

// The revisions of the events each Watch of the stream returned.
std::vector<std::vector<std::int64_t>> WatchStream(StreamRig& rig, std::int64_t from, int waits) {
  auto seen = std::make_shared<std::vector<std::vector<std::int64_t>>>();
  rig.Client([&rig, seen, from, waits] {
    std::int64_t next = from;
    for (int i = 0; i < waits; ++i) {
      const core::KvWatchResult news = rig.watcher->Watch(KvKeys::Single("k"), next, sim::Millis(300));
      if (news.status != KvStatus::kOk) continue;
      std::vector<std::int64_t> revisions;
      for (const core::KvWatchEvent& event : news.events) revisions.push_back(event.kv.mod_revision);
      next = revisions.back() + 1;
      seen->push_back(std::move(revisions));
    }
  });
  rig.world.RunUntil(sim::Seconds(3));
  return *seen;
}

TEST(SimKvStream, OneRegistrationIsToldOfEveryLaterChangeInOrder) {
  StreamRig rig;
  rig.WriteValues(3);  // revisions 2, 3, 4
  EXPECT_EQ(WatchStream(rig, 2, 6), (std::vector<std::vector<std::int64_t>>{{2}, {3}, {4}}));
  // Registered once: answered at once with `created` (no events yet),
  // then pushed each change; every answer arrived.
  using Answer = RecordingKvObserver::StreamAnswer;
  EXPECT_EQ(rig.observer.stream_answers,
            (std::vector<Answer>{{"n1#1", 0}, {"n1#1", 1}, {"n1#1", 1}, {"n1#1", 1}}));
  EXPECT_EQ(rig.observer.delivered, (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(rig.server->streams(), 1u);
}

TEST(SimKvStream, AnswersHeldUnreadKeepTheirEventsWhileLaterChangesAreAnswered) {
  // The store refills an earlier answer's storage only once nothing else
  // holds it (SimKvServer::NewStreamAnswer): answers a client holds unread,
  // more of them than the store keeps for refilling, still tell their own.
  StreamRig rig;
  rig.WriteValues(6);  // revisions 2..7, "v0".."v5", 100 ms apart
  std::vector<std::string> values;
  rig.Client([&] {
    // Registers the stream (no news yet), then leaves its answers unread.
    EXPECT_EQ(rig.watcher->Watch(KvKeys::Single("k"), 2, sim::Millis(50)).status, KvStatus::kTimeout);
    rig.SleepFor(sim::Millis(800));
    const core::KvWatchResult news = rig.watcher->Watch(KvKeys::Single("k"), 2, sim::Millis(300));
    ASSERT_EQ(news.status, KvStatus::kOk);
    for (const core::KvWatchEvent& event : news.events) values.push_back(event.kv.value);
  });
  rig.world.RunUntil(sim::Seconds(2));
  EXPECT_EQ(values, (std::vector<std::string>{"v0", "v1", "v2", "v3", "v4", "v5"}));
  EXPECT_EQ(rig.observer.stream_answers.size(), 7u);  // `created`, then one per change
}

TEST(SimKvStream, EachAnswerReportsTheKeysEntryAsTheStoreHoldsIt) {
  // The entry a stream answer reports (KvObserver::KvStreamAnswered's
  // `current`, read off the answer's newest event) is the store's own,
  // after puts, a delete, a put re-creating the key and a lease's expiry.
  StreamRig rig;
  int checked = 0;
  rig.observer.on_stream_answer = [&](const KvStreamRequest& stream, const core::KvEntry* current) {
    const auto& keys = rig.server->state().keys();
    const auto held = keys.find(stream.keys.key);
    ASSERT_EQ(current != nullptr, held != keys.end());
    if (current != nullptr) {
      EXPECT_EQ(*current, held->second);
    }
    ++checked;
  };
  rig.world.Spawn(rig.writer, [&rig] {
    const auto step = [&rig](core::KvRequestOp op) {
      rig.world.SleepUntilLocal(rig.world.MonotonicNow(rig.writer) + sim::Millis(100));
      EXPECT_EQ(rig.writer_kv->Txn(core::KvTxn{{}, {std::move(op)}, {}}, sim::Millis(50)).status, KvStatus::kOk);
    };
    step(KvRequestOp::Put("k", "v1"));
    step(KvRequestOp::Put("k", "v2"));
    step(KvRequestOp::Delete(KvKeys::Single("k")));
    step(KvRequestOp::Put("k", "v3"));
    const core::KvLeaseResult lease = rig.writer_kv->LeaseGrant(sim::Millis(200), sim::Millis(50));
    ASSERT_EQ(lease.status, KvStatus::kOk);
    step(KvRequestOp::Put("k", "v4", lease.id));  // ends with the lease, in the store's expiry loop
  });
  rig.Client([&rig] {
    std::int64_t next = 2;
    for (int i = 0; i < 8; ++i) {
      const core::KvWatchResult news = rig.watcher->Watch(KvKeys::Single("k"), next, sim::Millis(400));
      if (news.status == KvStatus::kOk) next = news.events.back().kv.mod_revision + 1;
    }
  });
  rig.world.RunUntil(sim::Seconds(3));
  EXPECT_EQ(checked, 7);  // `created`, then the five writes and the expiry
  EXPECT_FALSE(rig.Holds("k"));
}

TEST(SimKvStream, AStreamItsObserverDeclinesIsAnsweredUnreported) {
  // KvObserver::ReportsStream, asked once at registration: false leaves
  // every answer on the stream unreported (id -1), and still delivered.
  StreamRig rig;
  rig.observer.report_streams = false;
  rig.WriteValues(3);
  EXPECT_EQ(WatchStream(rig, 2, 6), (std::vector<std::vector<std::int64_t>>{{2}, {3}, {4}}));
  EXPECT_TRUE(rig.observer.stream_answers.empty());
  EXPECT_TRUE(rig.observer.delivered.empty());
}

TEST(SimKvStream, WatchWhileSharedTellsTheTimeoutItLastDrew) {
  // A stream's quiet waits draw their timeouts in the scheduler
  // (AfterQuietTimeout): `last_timeout` ends as the last one drawn, whether
  // an answer ended the wait or again() declined the next.
  StreamRig rig;
  rig.WriteValues(1);  // revision 2 at 100 ms
  core::Nanos drawn = sim::Millis(20);
  const std::function<core::Nanos()> next = [&] { return drawn += sim::Millis(1); };  // 21, 22, ... ms
  int asked = 0;
  core::Nanos news_timeout = 0;
  core::Nanos quiet_timeout = 0;
  rig.Client([&] {
    const core::KvWatchAnswer news =
        rig.watcher->WatchWhileShared(KvKeys::Single("k"), 2, next, [] { return true; }, news_timeout);
    EXPECT_EQ(news->status, KvStatus::kOk);
    const core::KvWatchAnswer quiet =
        rig.watcher->WatchWhileShared(KvKeys::Single("k"), 3, next, [&] { return ++asked < 3; }, quiet_timeout);
    EXPECT_EQ(quiet->status, KvStatus::kTimeout);
  });
  rig.world.RunUntil(sim::Seconds(1));
  EXPECT_EQ(news_timeout, sim::Millis(25));  // 21 + 22 + 23 + 24 ms of quiet, then news within the 25 ms wait
  EXPECT_EQ(quiet_timeout, drawn);           // the third wait's, after which again() declined
  EXPECT_EQ(drawn, sim::Millis(28));
}

TEST(SimKvStream, ARegistrationFromAnOlderRevisionGetsEverythingSinceInOneAnswer) {
  StreamRig rig;
  rig.WriteValues(3);
  std::vector<std::int64_t> revisions;
  rig.Client([&] {
    rig.SleepFor(sim::Millis(400));  // all three written
    const core::KvWatchResult news = rig.watcher->Watch(KvKeys::Single("k"), 2, sim::Millis(300));
    ASSERT_EQ(news.status, KvStatus::kOk);
    for (const core::KvWatchEvent& event : news.events) revisions.push_back(event.kv.mod_revision);
  });
  rig.world.RunUntil(sim::Seconds(1));
  EXPECT_EQ(revisions, (std::vector<std::int64_t>{2, 3, 4}));
}

TEST(SimKvStream, TheWritersOwnWritesAreNotEchoedOnItsStream) {
  // n1 writes revision 2 itself while its stream is registered, then
  // watches from 3 (what it knows + 1): the store sent n1 nothing for its
  // own write, so the stream does not cover 2 and n1 registers again from
  // 3 (answered `created`); only n2's write at 3 arrives.
  StreamRig rig;
  std::vector<std::int64_t> seen;
  rig.Client([&] {
    EXPECT_EQ(rig.watcher->Watch(KvKeys::Single("k"), 2, sim::Millis(50)).status, KvStatus::kTimeout);  // registers
    core::KvTxn put;
    put.success.push_back(KvRequestOp::Put("k", "mine"));
    EXPECT_EQ(rig.watcher->Txn(put, sim::Millis(50)).revision, 2);
    const core::KvWatchResult news = rig.watcher->Watch(KvKeys::Single("k"), 3, sim::Seconds(1));
    ASSERT_EQ(news.status, KvStatus::kOk);
    for (const core::KvWatchEvent& event : news.events) seen.push_back(event.kv.mod_revision);
  });
  rig.world.Spawn(rig.writer, [&] {
    rig.world.SleepUntilLocal(rig.world.MonotonicNow(rig.writer) + sim::Millis(300));
    core::KvTxn put;
    put.success.push_back(KvRequestOp::Put("k", "theirs"));
    EXPECT_EQ(rig.writer_kv->Txn(put, sim::Millis(50)).revision, 3);
  });
  rig.world.RunUntil(sim::Seconds(2));
  EXPECT_EQ(seen, std::vector<std::int64_t>{3});
  using Answer = RecordingKvObserver::StreamAnswer;
  EXPECT_EQ(rig.observer.stream_answers, (std::vector<Answer>{{"n1#1", 0}, {"n1#1", 0}, {"n1#1", 1}}));
}

TEST(SimKvStream, AStreamFromACompactedRevisionIsToldToReadAgain) {
  KvServerConfig config = Etcd();
  config.state.history_revisions = 2;
  StreamRig rig(config);
  rig.WriteValues(5);  // revisions 2..6, by 500 ms
  core::KvWatchResult stale, fresh;
  rig.Client([&] {
    rig.SleepFor(sim::Millis(600));
    stale = rig.watcher->Watch(KvKeys::Single("k"), 2, sim::Millis(100));
    // Read again, then watch from the read's revision on.
    const core::KvTxnResult read = rig.watcher->Range(KvRequestOp::Range(KvKeys::Single("k")), sim::Millis(100));
    EXPECT_EQ(read.revision, 6);
    fresh = rig.watcher->Watch(KvKeys::Single("k"), read.revision + 1, sim::Seconds(1));
  });
  rig.world.Spawn(rig.writer, [&] {
    rig.world.SleepUntilLocal(rig.world.MonotonicNow(rig.writer) + sim::Millis(800));
    core::KvTxn put;
    put.success.push_back(KvRequestOp::Put("k", "late"));
    rig.writer_kv->Txn(put, sim::Millis(100));
  });
  rig.world.RunUntil(sim::Seconds(2));
  EXPECT_EQ(stale.status, KvStatus::kCompacted);
  EXPECT_EQ(stale.compact_revision, 5);
  ASSERT_EQ(fresh.status, KvStatus::kOk);
  ASSERT_EQ(fresh.events.size(), 1u);
  EXPECT_EQ(fresh.events[0].kv.value, "late");
}

TEST(SimKvStream, AnUnavailableStoreRefusesTheRegistrationAtOnce) {
  StreamRig rig;
  rig.server->SetOutage(StoreOutage::kUnavailable);
  core::KvWatchResult refused;
  sim::Nanos done = -1;
  rig.Client([&] {
    refused = rig.watcher->Watch(KvKeys::Single("k"), 2, sim::Seconds(1));
    done = rig.world.now();
  });
  rig.world.RunUntil(sim::Seconds(2));
  EXPECT_EQ(refused.status, KvStatus::kUnavailable);
  EXPECT_EQ(done, sim::Millis(2));  // two hops, no wait
  EXPECT_TRUE(rig.observer.stream_answers.empty());  // a refusal is no answer of the store's state
}

// --- the lazy expiry loop -----------------------------------------------------

TEST(SimKvServer, TheExpiryLoopRunsOnlyWhileLeasesExistOnItsOwnPhase) {
  KvRig rig(Etcd());  // a 500 ms loop; the store host's clock reads true time
  EXPECT_FALSE(rig.server->expiry_loop_armed());  // no lease: no timer
  rig.Client([&] { PutOnLease(rig, "a", sim::Seconds(1)); });  // granted at 3 ms
  rig.world.RunUntil(sim::Millis(100));
  EXPECT_TRUE(rig.server->expiry_loop_armed());
  rig.world.RunUntil(sim::Seconds(2));
  ASSERT_EQ(rig.observer.expired.size(), 1u);
  EXPECT_EQ(rig.observer.expired[0].at, sim::Millis(1500));  // the first tick past 1.003 s
  EXPECT_FALSE(rig.server->expiry_loop_armed());  // idle again
  rig.Client([&] { PutOnLease(rig, "b", sim::Seconds(1)); });  // granted at 2.003 s
  rig.world.RunUntil(sim::Seconds(4));
  ASSERT_EQ(rig.observer.expired.size(), 2u);
  EXPECT_EQ(rig.observer.expired[1].at, sim::Millis(3500));  // the phase it had from boot
}

TEST(SimKvServer, ALeaseGrantedBeforeAPauseStillEndsOnResumeWithTheLazyLoop) {
  // The loop is armed by the grant, not by the boot: a host paused with a
  // lease due ends it when it resumes, and only then.
  KvRig rig(Etcd());
  rig.world.At(sim::Millis(700), [&] { rig.Client([&] { PutOnLease(rig, "late", sim::Millis(500)); }); });
  rig.world.At(sim::Millis(900), [&] { rig.world.Pause(rig.store_host); });
  rig.world.At(sim::Millis(2300), [&] { rig.world.Unpause(rig.store_host); });
  rig.world.RunUntil(sim::Millis(2299));
  EXPECT_TRUE(rig.Holds("late"));
  EXPECT_TRUE(rig.observer.expired.empty());
  rig.world.RunUntil(sim::Seconds(3));
  ASSERT_EQ(rig.observer.expired.size(), 1u);
  EXPECT_EQ(rig.observer.expired[0].at, sim::Millis(2300));
  EXPECT_FALSE(rig.server->expiry_loop_armed());
}

// --- the stale-read store -----------------------------------------------------

TEST(SimKvServer, TheStaleReadStoreAnswersSerializableReadsFromTheLaggingPast) {
  KvServerConfig config = Etcd();
  config.stale_read_ppm = base::kPpmOne;  // every serializable read lags
  config.stale_lag_max = sim::Seconds(10);
  StreamRig rig(config);
  rig.WriteValues(5);
  std::vector<std::string> serializable, linearizable;
  rig.Client([&] {
    rig.SleepFor(sim::Millis(700));
    for (int i = 0; i < 20; ++i) {
      KvRequestOp range = KvRequestOp::Range(KvKeys::Single("k"));
      const core::KvTxnResult current = rig.watcher->Range(range, sim::Millis(100));
      linearizable.push_back(current.responses.at(0).kvs.at(0).value);
      range.serializable = true;
      const core::KvTxnResult lagging = rig.watcher->Range(range, sim::Millis(100));
      const std::vector<core::KvEntry>& kvs = lagging.responses.at(0).kvs;
      serializable.push_back(kvs.empty() ? "" : kvs[0].value);
    }
  });
  rig.world.RunUntil(sim::Seconds(3));
  EXPECT_EQ(linearizable, std::vector<std::string>(20, "v4"));
  // Lags of up to 10 s on a history 0.6 s long: mostly before any write.
  EXPECT_GT(std::count(serializable.begin(), serializable.end(), ""), 10);
  EXPECT_LE(std::count(serializable.begin(), serializable.end(), "v4"), 5);
}

}  // namespace
}  // namespace leasesim::backends
