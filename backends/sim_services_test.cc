#include "backends/sim_services.h"

#include <gtest/gtest.h>

#include <functional>
#include <utility>
#include <vector>

#include "backends/sim_kv_server.h"
#include "backends/sim_node.h"
#include "backends/sim_observer_test_support.h"

namespace leasesim::backends {
namespace {

// The lease store's calls (core::KvRecordStore over the process's KV
// client of the store host's SimKvServer), and the ledger's: what they report.
class RecordingStoreObserver : public KvObserver {
 public:
  std::int64_t KvInvoked(int, std::string_view, const KvRequest&) override { return next_op++; }
  void KvApplied(std::int64_t op, const KvReply&) override { applied.push_back(op); }
  void KvCompleted(std::int64_t, const KvReply& reply) override { completed.push_back(reply.txn.status); }
  void KvLeaseExpired(const KvExpiry&) override {}

  std::int64_t next_op = 0;
  std::vector<std::int64_t> applied;
  std::vector<core::KvStatus> completed;
};

class RecordingObserver : public NumberingObserver {
 public:
  std::int64_t StoreInvoked(int, std::string_view, StoreOpKind, const std::string&, std::int64_t,
                            const core::LeaseRecord&) override {
    invoked.push_back(true);
    return static_cast<std::int64_t>(invoked.size() - 1);
  }
  void StoreApplied(std::int64_t op, std::int64_t) override { applied.push_back(op); }
  std::int64_t WatchAnswered(int, const std::string&, const std::string&, std::int64_t) override {
    invoked.push_back(true);
    const auto op = static_cast<std::int64_t>(invoked.size() - 1);
    applied.push_back(op);
    return op;
  }
  void StoreCompleted(std::int64_t, const core::StoreResult& result) override {
    completed.push_back(result.status);
  }

  std::vector<bool> invoked;
  std::vector<std::int64_t> applied;
  std::vector<core::StoreStatus> completed;
};

struct Rig {
  sim::World world{5, false};
  sim::HostId client = world.AddHost({.name = "n1"});
  sim::HostId store_host = world.AddHost({.name = "store"});
  sim::HostId ledger_host = world.AddHost({.name = "ledger"});
  sim::Network network{world, base::Prng(1), {.latency = {.base_ns = sim::Millis(1)}}};
  RecordingObserver observer;
  RecordingStoreObserver store_observer;
  SimKvServer store;
  SimLedgerServer ledger{world, ledger_host, base::Prng(3), {.base_ns = sim::Millis(2)}, observer, {}};
  std::unique_ptr<SimNodeEnv> env;
  explicit Rig(std::uint32_t stale_read_ppm = 0)
      : store{world, store_host, base::Prng(2),
              KvServerConfig{.service = {.base_ns = sim::Millis(2)}, .stale_read_ppm = stale_read_ppm},
              store_observer} {
    world.Start(client);
    world.Start(store_host);
    world.Start(ledger_host);
    store.Start();
    env = std::make_unique<SimNodeEnv>(world, network, client, 1, "n1#1", store, ledger, observer);
  }
  core::StoreClient& records() { return env->store(); }
};

TEST(SimStore, ARequestAppliedWhoseReplyIsLostTimesOutWithTheEffectInPlace) {
  Rig rig;
  core::StoreResult result;
  rig.network.SetBlocked(rig.store_host, rig.client, true);  // replies are lost
  rig.world.Spawn(rig.client, [&] {
    result = rig.records().Create("job", core::LeaseRecord{.holder = "n1#1", .term = 1}, sim::Millis(100));
  });
  rig.world.RunUntil(sim::Seconds(1));
  EXPECT_EQ(result.status, core::StoreStatus::kTimeout);  // the client cannot know
  ASSERT_EQ(rig.store_observer.applied.size(), 1u);        // but the store applied it
  EXPECT_TRUE(rig.store.state().keys().contains("job"));
  EXPECT_EQ(rig.store_observer.completed, (std::vector<core::KvStatus>{core::KvStatus::kTimeout}));
}

TEST(SimStore, RoundTripTakesTwoHopsAndTheServiceTime) {
  Rig rig;
  core::StoreResult result;
  sim::Nanos done = -1;
  rig.world.Spawn(rig.client, [&] {
    result = rig.records().Create("job", core::LeaseRecord{.holder = "n1#1", .term = 1}, sim::Millis(100));
    done = rig.world.now();
  });
  rig.world.RunUntil(sim::Seconds(1));
  EXPECT_EQ(result.status, core::StoreStatus::kOk);
  EXPECT_EQ(result.current.version, 2);  // the key's mod revision: etcd's first write is revision 2
  EXPECT_EQ(done, sim::Millis(4));
}

TEST(SimLedger, ARequestThatNeverArrivesIsNeverApplied) {
  Rig rig;
  core::LedgerResult result;
  rig.network.SetBlocked(rig.client, rig.ledger_host, true);
  rig.world.Spawn(rig.client, [&] {
    core::SettlementBatch batch{.token = 1, .idempotency_key = "w0", .window = 0};
    batch.lease_deadline = rig.env->MonotonicNow() + sim::Seconds(5);
    result = rig.env->Commit(batch, sim::Millis(100));
  });
  rig.world.RunUntil(sim::Seconds(1));
  EXPECT_EQ(result.status, core::LedgerStatus::kTimeout);
  EXPECT_EQ(rig.ledger.state().LastAppliedWindow().last_window, -1);
}

// A second client, n2, that writes while n1 watches. Versions are the
// record key's mod revisions: 2, 3, 4, ... for its writes.
struct WatchRig : Rig {
  sim::HostId writer = world.AddHost({.name = "n2"});
  std::unique_ptr<SimNodeEnv> writer_env;
  WatchRig() {
    world.Start(writer);
    writer_env = std::make_unique<SimNodeEnv>(world, network, writer, 2, "n2#1", store, ledger, observer);
  }
  // n2 creates the record at 100 ms and renews it every 100 ms after.
  void WriteVersions(int count) {
    world.Spawn(writer, [this, count] {
      std::int64_t version = 0;
      for (int i = 0; i < count; ++i) {
        writer_env->SleepUntil(writer_env->MonotonicNow() + sim::Millis(100));
        const core::LeaseRecord record{.holder = "n2#1", .term = 1};
        core::StoreClient& writer_store = writer_env->store();
        const core::StoreResult written = version == 0
                                              ? writer_store.Create("job", record, sim::Millis(50))
                                              : writer_store.CompareAndSet("job", version, record, sim::Millis(50));
        version = written.current.version;
      }
    });
  }
  // n1 waits for changes from version 0 on, `waits` times, noting each news.
  std::vector<std::int64_t> Watch(int waits) {
    auto seen = std::make_shared<std::vector<std::int64_t>>();
    world.Spawn(client, [this, seen, waits] {
      std::int64_t known = 0;
      for (int i = 0; i < waits; ++i) {
        const core::StoreResult change = records().WaitForChange("job", known, sim::Millis(300));
        if (change.status != core::StoreStatus::kOk) continue;
        known = change.current.version;
        seen->push_back(known);
      }
    });
    world.RunUntil(sim::Seconds(3));
    return *seen;
  }
};

TEST(SimStoreWatch, AWatchReportsEveryLaterChangeInOrder) {
  WatchRig rig;
  ASSERT_TRUE(rig.records().CanWatch());
  rig.WriteVersions(3);
  EXPECT_EQ(rig.Watch(6), (std::vector<std::int64_t>{2, 3, 4}));
}

TEST(SimStoreWatch, ALostRegistrationIsSentAgainAtTheNextWait) {
  WatchRig rig;
  rig.network.SetBlocked(rig.client, rig.store_host, true);  // the first registration is lost
  rig.world.At(sim::Millis(50), [&] { rig.network.SetBlocked(rig.client, rig.store_host, false); });
  rig.WriteVersions(5);
  // The first wait (up to 300 ms) hears nothing; registered again at the
  // second, the watch reports what changed since and every change after.
  const std::vector<std::int64_t> seen = rig.Watch(8);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), 6);
  EXPECT_GE(seen.front(), 3);
}

TEST(SimStoreWatch, AnUnavailableStoreRefusesTheWatchAtOnce) {
  WatchRig rig;
  rig.store.SetOutage(StoreOutage::kUnavailable);
  core::StoreResult change;
  sim::Nanos done = -1;
  rig.world.Spawn(rig.client, [&] {
    change = rig.records().WaitForChange("job", 0, sim::Seconds(1));
    done = rig.world.now();
  });
  rig.world.RunUntil(sim::Seconds(2));
  EXPECT_EQ(change.status, core::StoreStatus::kUnavailable);
  EXPECT_EQ(done, sim::Millis(2));  // two hops, no wait
}

// What a watcher saw through WaitForChangeWhile with quiet timeouts in
// between: the answers (with the world's time), how often it was asked to
// go on, and the run's trace hash.
struct SteppedWatch {
  std::vector<std::pair<std::int64_t, sim::Nanos>> answers;
  int asked = 0;
  std::uint64_t trace_hash = 0;
  friend bool operator==(const SteppedWatch&, const SteppedWatch&) = default;
};

SteppedWatch WatchThroughQuietTimeouts(bool in_scheduler) {
  WatchRig rig;
  rig.WriteVersions(4);
  rig.world.At(sim::Millis(250), [&] { rig.network.SetBlocked(rig.store_host, rig.client, true); });
  rig.world.At(sim::Millis(420), [&] { rig.network.SetBlocked(rig.store_host, rig.client, false); });
  SteppedWatch seen;
  rig.world.Spawn(rig.client, [&] {
    base::Prng jitter(9);
    const std::function<core::Nanos()> timeout = [&] { return jitter.UniformRange(sim::Millis(10), sim::Millis(40)); };
    const std::function<bool()> again = [&] { return ++seen.asked % 7 != 0; };
    std::int64_t known = 0;
    for (int i = 0; i < 12; ++i) {
      core::StoreClient& records = rig.records();
      const core::StoreResult change = in_scheduler
                                           ? records.WaitForChangeWhile("job", known, timeout, again)
                                           : records.core::StoreClient::WaitForChangeWhile("job", known, timeout, again);
      if (change.status == core::StoreStatus::kOk) known = change.current.version;
      seen.answers.emplace_back(change.status == core::StoreStatus::kOk ? known : -1, rig.world.now());
    }
  });
  rig.world.RunUntil(sim::Seconds(3));
  seen.trace_hash = rig.world.trace().hash();
  return seen;
}

TEST(SimStoreWatch, WaitingAgainInTheSchedulerIsTheLoopItReplaces) {
  // The sim's WaitForChangeWhile starts the waits after quiet timeouts
  // without resuming the fiber; the caller must not be able to tell it from
  // the plain loop over WaitForChange (the default): same answers at the
  // same instants, same questions, same trace.
  const SteppedWatch stepped = WatchThroughQuietTimeouts(true);
  const SteppedWatch looped = WatchThroughQuietTimeouts(false);
  EXPECT_EQ(stepped, looped);
  EXPECT_GE(stepped.asked, 20);  // many quiet timeouts, several declined
  // Versions 1 and 2 heard; the reports of 3 and 4 were lost in the
  // partition (the elector reads afresh after such a silence).
  ASSERT_GE(stepped.answers.size(), 3u);
  EXPECT_EQ(stepped.answers[0].first, 2);
  EXPECT_EQ(stepped.answers[2].first, 3);
}

TEST(SimStoreWatch, TheStaleReadStoresClientsCannotWatch) {
  // They read a lagging member serializably, and poll: a lagging member
  // cannot keep a watch's promise of order.
  Rig rig(1'000);
  EXPECT_FALSE(rig.records().CanWatch());
  core::StoreResult change;
  rig.world.Spawn(rig.client, [&] { change = rig.records().WaitForChange("job", 0, sim::Seconds(1)); });
  rig.world.RunUntil(sim::Seconds(2));
  EXPECT_EQ(change.status, core::StoreStatus::kUnavailable);
}

}  // namespace
}  // namespace leasesim::backends
