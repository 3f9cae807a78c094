// The KV store's pieces against each other: clients on the simulated store
// (backends/sim_kv_server.*) over a lossy network, with leases that the
// store ends on its own clock, record a history that the checker's KV model
// (checker/kv_store_model.*) must find linearizable; the same history with
// one recorded fact changed must not be. Here, not in backends/ or
// checker/, because it needs both (neither may see the other); the
// recorder below is what the runner will own once scenarios use this store.

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

namespace leasesim {
namespace {

checker::KvStoreEntry ToEntry(const core::KvEntry& entry) {
  return checker::KvStoreEntry{entry.key, entry.value, entry.create_revision, entry.mod_revision, entry.version,
                               entry.lease};
}

// The two vocabularies name the same things in the same order.
static_assert(static_cast<int>(core::KvRequestOp::Kind::kDelete) ==
              static_cast<int>(checker::KvStoreRequest::Kind::kDelete));
static_assert(static_cast<int>(core::KvCompareTarget::kModRevision) ==
              static_cast<int>(checker::KvStoreCompareTarget::kModRevision));
static_assert(static_cast<int>(core::KvCompareResult::kGreater) ==
              static_cast<int>(checker::KvStoreCompareResult::kGreater));

checker::KvStoreOp::Kind ToKind(backends::KvRequest::Kind kind) {
  switch (kind) {
    case backends::KvRequest::Kind::kTxn: return checker::KvStoreOp::Kind::kTxn;
    case backends::KvRequest::Kind::kLeaseGrant: return checker::KvStoreOp::Kind::kLeaseGrant;
    case backends::KvRequest::Kind::kLeaseKeepAlive: return checker::KvStoreOp::Kind::kLeaseKeepAlive;
    case backends::KvRequest::Kind::kLeaseRevoke: return checker::KvStoreOp::Kind::kLeaseRevoke;
  }
  return checker::KvStoreOp::Kind::kTxn;
}

checker::KvStoreRequest ToRequest(const core::KvRequestOp& op) {
  checker::KvStoreRequest request;
  request.kind = static_cast<checker::KvStoreRequest::Kind>(op.kind);
  request.key = op.keys.key;
  request.end = op.keys.end;
  request.value = op.value;
  request.lease = op.lease;
  request.prev_kv = op.prev_kv;
  request.sort_by_create = op.sort_by == core::KvSortBy::kCreateRevision;
  request.limit = op.limit;
  return request;
}

std::vector<checker::KvStoreRequest> ToRequests(const std::vector<core::KvRequestOp>& ops) {
  std::vector<checker::KvStoreRequest> requests;
  for (const core::KvRequestOp& op : ops) requests.push_back(ToRequest(op));
  return requests;
}

// Builds the checker's history from what the simulated store reports.
class KvHistoryRecorder : public backends::KvObserver {
 public:
  explicit KvHistoryRecorder(sim::World& world) : world_(world) {}

  std::int64_t KvInvoked(int node, const backends::KvRequest& request) override {
    checker::KvStoreOp op;
    op.kind = ToKind(request.kind);
    op.process = node;
    op.lease = request.lease;
    op.ttl_ns = request.ttl;
    for (const core::KvCompare& compare : request.txn.compares) {
      op.compares.push_back(checker::KvStoreCompare{compare.key,
                                                    static_cast<checker::KvStoreCompareTarget>(compare.target),
                                                    static_cast<checker::KvStoreCompareResult>(compare.result),
                                                    compare.number, compare.value});
    }
    op.success = ToRequests(request.txn.success);
    op.failure = ToRequests(request.txn.failure);
    op.call_ns = world_.now();
    ops.push_back(std::move(op));
    applied_.emplace_back();
    return static_cast<std::int64_t>(ops.size() - 1);
  }
  void KvApplied(std::int64_t op, const backends::KvReply& reply) override {
    applied_[static_cast<std::size_t>(op)] = reply;
  }
  void KvCompleted(std::int64_t index, const backends::KvReply& reply) override {
    checker::KvStoreOp& op = ops[static_cast<std::size_t>(index)];
    const bool txn = op.kind == checker::KvStoreOp::Kind::kTxn;
    const core::KvStatus status = txn ? reply.txn.status : reply.lease.status;
    if (status == core::KvStatus::kTimeout) {
      op.outcome = checker::Outcome::kUnknown;
      // The store may have granted it: the id the store gave, if it did.
      const auto& applied = applied_[static_cast<std::size_t>(index)];
      if (op.kind == checker::KvStoreOp::Kind::kLeaseGrant && applied) op.lease = applied->lease.id;
      return;
    }
    op.return_ns = world_.now();
    const bool answered = status == core::KvStatus::kOk || status == core::KvStatus::kLeaseNotFound;
    op.outcome = answered ? checker::Outcome::kOk : checker::Outcome::kFail;
    op.lease_not_found = status == core::KvStatus::kLeaseNotFound;
    if (!txn) {
      op.lease = reply.lease.id;
      op.ttl_ns = reply.lease.ttl;
      op.revision = reply.lease.revision;
      return;
    }
    op.succeeded = reply.txn.succeeded;
    op.revision = reply.txn.revision;
    std::vector<checker::KvStoreRequest>& branch = op.succeeded ? op.success : op.failure;
    for (std::size_t i = 0; i < reply.txn.responses.size(); ++i) {
      for (const core::KvEntry& entry : reply.txn.responses[i].kvs) branch[i].kvs.push_back(ToEntry(entry));
      branch[i].count = reply.txn.responses[i].count;
      branch[i].more = reply.txn.responses[i].more;
    }
  }
  void KvLeaseExpired(const backends::KvExpiry& expiry) override {
    checker::KvStoreOp op;
    op.kind = checker::KvStoreOp::Kind::kLeaseExpire;
    op.outcome = checker::Outcome::kOk;
    op.lease = expiry.lease;
    op.revision = expiry.revision;
    op.call_ns = world_.now();
    op.return_ns = world_.now();
    ops.push_back(std::move(op));
    applied_.emplace_back();
  }

  std::vector<checker::KvStoreOp> ops;

 private:
  sim::World& world_;
  std::vector<std::optional<backends::KvReply>> applied_;
};

// One client of an election-like workload: campaigns for keys on its own
// lease, keeps it alive (or not), reads the candidates, resigns.
void Campaign(sim::World& world, sim::HostId host, core::KvClient& kv, sim::Prng prng) {
  const sim::Nanos timeout = sim::Millis(30);
  core::KvLeaseId lease = core::kNoLease;
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
  Election(backends::KvServerConfig config, std::uint64_t seed, std::uint32_t loss_ppm)
      : world(seed, false),
        network(world, world.MakePrng("net"),
                {.latency = {.base_ns = sim::Millis(1), .jitter_ns = sim::Millis(4)}, .loss_ppm = loss_ppm}),
        recorder(world) {
    const sim::HostId store_host = world.AddHost({.name = "store", .drift_ppm = 100});
    world.Start(store_host);
    server = std::make_unique<backends::SimKvServer>(world, store_host, world.MakePrng("store"), config, recorder);
    server->Start();
    for (int node = 1; node <= 5; ++node) {
      const sim::HostId host = world.AddHost({.name = "n" + std::to_string(node)});
      world.Start(host);
      clients.push_back(std::make_unique<backends::SimKvClient>(world, network, host, node, *server, recorder));
      world.Spawn(host, [this, host, node] {
        Campaign(world, host, *clients[static_cast<std::size_t>(node - 1)], world.MakePrng("n" + std::to_string(node)));
      });
    }
  }

  sim::World world;
  sim::Network network;
  KvHistoryRecorder recorder;
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
      const std::vector<checker::KvStoreOp>& ops = election.recorder.ops;
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

RC_GTEST_PROP(KvHistoryProperty, ElectionsOnTheSimulatedStoreAreLinearizable, ()) {
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const auto redis = *rc::gen::arbitrary<bool>();
  Election election(StoreConfig(redis), seed, 30'000);
  election.world.RunUntil(sim::Seconds(10));
  const checker::LinResult result = checker::CheckKvStore(election.recorder.ops);
  RC_ASSERT(result.verdict == checker::LinVerdict::kLinearizable);
}

TEST(KvHistory, ForgettingAnExpiryOrChangingAReadBreaksIt) {
  // No message lost: no outcome unknown, so no call can stand in for what
  // is taken away.
  Election election(StoreConfig(false), 3, 0);
  election.world.RunUntil(sim::Seconds(20));
  std::vector<checker::KvStoreOp> forgot = election.recorder.ops;
  const auto expiry = std::find_if(forgot.begin(), forgot.end(), [](const checker::KvStoreOp& op) {
    return op.kind == checker::KvStoreOp::Kind::kLeaseExpire && op.revision > 0;
  });
  ASSERT_NE(expiry, forgot.end());
  forgot.erase(expiry);  // its deletions now happen nowhere
  EXPECT_EQ(checker::CheckKvStore(forgot).verdict, checker::LinVerdict::kNotLinearizable);

  std::vector<checker::KvStoreOp> misread = election.recorder.ops;
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
