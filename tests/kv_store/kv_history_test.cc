// The KV store's pieces against each other: clients on the simulated store
// (backends/sim_kv_server.*) over a lossy network, with leases that the
// store ends on its own clock, record a history that the checker's KV model
// (checker/kv_store_model.*) must find linearizable; the same history with
// one recorded fact changed must not be. Here, not in backends/ or
// checker/, because it needs both (neither may see the other); the
// recorder is the runner's (runner/kv_recorder.h), as runs use it.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/sim_kv_server.h"
#include "checker/kv_store_model.h"
#include "runner/kv_recorder.h"

namespace leasesim {
namespace {

// A guarded update (core::KvGuardedPut) of `key`: a create when the
// client knows of no revision, else a CAS on the last one it learned
// (which the answer updates: the put's, or the key's as the range found it).
void GuardedUpdate(core::KvClient& kv, const std::string& key, std::string value, std::int64_t& known,
                   sim::Nanos timeout) {
  const core::KvCompareTarget target = known == 0 ? core::KvCompareTarget::kCreateRevision
                                                  : core::KvCompareTarget::kModRevision;
  const core::KvGuardedPutResult put = kv.GuardedPut(
      core::KvGuardedPut{.key = key, .target = target, .result = core::KvCompareResult::kEqual, .number = known,
                         .value = std::move(value)},
      timeout);
  if (put.status != core::KvStatus::kOk) return;
  known = put.succeeded ? put.revision : put.current ? put.current->mod_revision : 0;
}

// One client of an election-like workload: campaigns for keys on its own
// lease, keeps it alive (or not), reads the candidates, resigns. With
// `guarded_puts`, a campaign is a guarded update instead (on no lease).
void Campaign(sim::World& world, sim::HostId host, core::KvClient& kv, base::Prng prng, bool guarded_puts) {
  const sim::Nanos timeout = sim::Millis(30);
  core::KvLeaseId lease = core::kNoLease;
  std::int64_t known = 0;  // a revision the guarded updates learned
  const std::string keys[] = {"e/a", "e/b", "e/c"};
  for (int step = 0; step < 200; ++step) {
    world.SleepUntilLocal(world.MonotonicNow(host) + prng.UniformRange(0, sim::Millis(80)));
    const std::string& key = keys[prng.UniformBelow(3)];
    switch (prng.UniformBelow(10)) {
      case 0:
      case 1: lease = kv.LeaseGrant(sim::Millis(200), timeout).id; break;
      case 2:
      case 3:
      case 4: {
        if (guarded_puts) {
          GuardedUpdate(kv, key, "n" + std::to_string(host), known, timeout);
          break;
        }
        core::KvTxn campaign;  // create-if-absent on my lease, else read the holder
        campaign.compares.push_back(
            core::KvCompare{key, core::KvCompareTarget::kCreateRevision, core::KvCompareResult::kEqual, 0, {}});
        campaign.success.push_back(core::KvRequestOp::Put(key, "n" + std::to_string(host), lease));
        campaign.failure.push_back(core::KvRequestOp::Range(core::KvKeys::Single(key)));
        kv.Txn(campaign, timeout);
        break;
      }
      case 5: kv.LeaseKeepAlive(lease, timeout); break;
      case 6:
      case 7:
        kv.Range(core::KvRequestOp::Range(core::KvKeys::Prefix("e/"), core::KvSortBy::kCreateRevision, 2), timeout);
        break;
      case 8: kv.Txn(core::KvTxn{{}, {core::KvRequestOp::Delete(core::KvKeys::Single(key))}, {}}, timeout); break;
      default: kv.LeaseRevoke(lease, timeout); break;
    }
  }
}

// Five client hosts campaigning on one simulated store, recorded.
struct Election {
  // loss_ppm: of the network's messages (a lost one leaves an outcome unknown).
  Election(backends::KvServerConfig config, std::uint64_t seed, std::uint32_t loss_ppm, bool guarded_puts = false)
      : world(seed, false),
        network(world, world.MakePrng("net"),
                {.latency = {.base_ns = sim::Millis(1), .jitter_ns = sim::Millis(4)}, .loss_ppm = loss_ppm}),
        recorder(world, "store") {
    const sim::HostId store_host = world.AddHost({.name = "store", .drift_ppm = 100});
    world.Start(store_host);
    server = std::make_unique<backends::SimKvServer>(world, store_host, world.MakePrng("store"), config, recorder);
    server->Start();
    for (int node = 1; node <= 5; ++node) {
      const sim::HostId host = world.AddHost({.name = "n" + std::to_string(node)});
      world.Start(host);
      clients.push_back(std::make_unique<backends::SimKvClient>(world, network, host, node, "", *server, recorder));
      world.Spawn(host, [this, host, node, guarded_puts] {
        Campaign(world, host, *clients[static_cast<std::size_t>(node - 1)], world.MakePrng("n" + std::to_string(node)),
                 guarded_puts);
      });
    }
  }

  sim::World world;
  sim::Network network;
  runner::KvRecorder recorder;
  std::unique_ptr<backends::SimKvServer> server;
  std::vector<std::unique_ptr<backends::SimKvClient>> clients;
};

backends::KvServerConfig StoreConfig(bool redis) {
  backends::KvServerConfig config{.service = {.base_ns = sim::Millis(1), .jitter_ns = sim::Millis(2)}};
  if (redis) {
    config.ttl_clock = backends::KvTtlClock::kWall;
    config.expiry_period = sim::Millis(100);
    config.expire_on_access = true;
  }
  return config;
}

std::size_t CountExpiriesWithDeletions(const std::vector<checker::KvStoreOp>& ops) {
  std::size_t count = 0;
  for (const checker::KvStoreOp& op : ops) count += op.kind == checker::KvStoreOp::Kind::kLeaseExpire && op.revision > 0;
  return count;
}

TEST(KvHistory, AnElectionOnTheSimulatedStoreIsLinearizable) {
  for (const bool redis : {false, true}) {
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      Election election(StoreConfig(redis), seed, 30'000);
      election.world.RunUntil(sim::Seconds(20));
      const std::vector<checker::KvStoreOp> ops = election.recorder.TakeOps();
      ASSERT_GT(CountExpiriesWithDeletions(ops), 0u) << "the workload must let leases run out";
      ASSERT_TRUE(std::any_of(ops.begin(), ops.end(), [](const checker::KvStoreOp& op) {
        return op.outcome == checker::Outcome::kUnknown;
      })) << "the lossy network must leave some outcomes unknown";
      const checker::LinResult result = checker::CheckKvStore(ops);
      EXPECT_EQ(result.verdict, checker::LinVerdict::kLinearizable)
          << (redis ? "redis" : "etcd") << " seed " << seed << ": " << result.explanation;
      EXPECT_EQ(result.partitions, 1u);  // leases link the keys
    }
  }
}

TEST(KvHistory, GuardedPutsAreRecordedAsTheirTxns) {
  // The simulated client sends a guarded update in its own shape; the
  // history holds the txn it stands for, which the checker's model judges
  // (a wrong expansion reads as a store that answered what it never held).
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    Election election(StoreConfig(false), seed, 30'000, /*guarded_puts=*/true);
    election.world.RunUntil(sim::Seconds(20));
    const std::vector<checker::KvStoreOp> ops = election.recorder.TakeOps();
    const auto guarded = [](const checker::KvStoreOp& op, bool succeeded) {
      return op.outcome == checker::Outcome::kOk && op.kind == checker::KvStoreOp::Kind::kTxn &&
             op.compares.size() == 1 && op.success.size() == 1 && op.failure.size() == 1 &&
             op.success[0].lease == core::kNoLease && op.succeeded == succeeded;
    };
    ASSERT_TRUE(std::any_of(ops.begin(), ops.end(), [&](const checker::KvStoreOp& op) { return guarded(op, true); }));
    ASSERT_TRUE(std::any_of(ops.begin(), ops.end(), [&](const checker::KvStoreOp& op) {
      return guarded(op, false) && !op.failure[0].kvs.empty();
    })) << "some guarded update must find the key changed";
    const checker::LinResult result = checker::CheckKvStore(ops);
    EXPECT_EQ(result.verdict, checker::LinVerdict::kLinearizable) << "seed " << seed << ": " << result.explanation;
  }
}

RC_GTEST_PROP(KvHistoryProperty, ElectionsOnTheSimulatedStoreAreLinearizable, ()) {
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto redis = *rc::gen::arbitrary<bool>();
  Election election(StoreConfig(redis), seed, 30'000);
  election.world.RunUntil(sim::Seconds(10));
  const checker::LinResult result = checker::CheckKvStore(election.recorder.TakeOps());
  RC_ASSERT(result.verdict == checker::LinVerdict::kLinearizable);
}

TEST(KvHistory, ForgettingAnExpiryOrChangingAReadBreaksIt) {
  // No message lost: no outcome unknown, so no call can stand in for what
  // is taken away.
  Election election(StoreConfig(false), 3, 0);
  election.world.RunUntil(sim::Seconds(20));
  const std::vector<checker::KvStoreOp> recorded = election.recorder.TakeOps();
  std::vector<checker::KvStoreOp> forgot = recorded;
  const auto expiry = std::find_if(forgot.begin(), forgot.end(), [](const checker::KvStoreOp& op) {
    return op.kind == checker::KvStoreOp::Kind::kLeaseExpire && op.revision > 0;
  });
  ASSERT_NE(expiry, forgot.end());
  forgot.erase(expiry);  // its deletions now happen nowhere
  EXPECT_EQ(checker::CheckKvStore(forgot).verdict, checker::LinVerdict::kNotLinearizable);

  std::vector<checker::KvStoreOp> misread = recorded;
  const auto read = std::find_if(misread.begin(), misread.end(), [](const checker::KvStoreOp& op) {
    return op.outcome == checker::Outcome::kOk && op.kind == checker::KvStoreOp::Kind::kTxn && !op.succeeded &&
           !op.failure.empty() && !op.failure[0].kvs.empty();
  });
  ASSERT_NE(read, misread.end());
  read->failure[0].kvs[0].value += "?";  // a holder nobody wrote
  EXPECT_EQ(checker::CheckKvStore(misread).verdict, checker::LinVerdict::kNotLinearizable);
}

}  // namespace
}  // namespace leasesim
