// The KV store served by the replicated (Raft) store (backends/replicated_store.h):
// clients on their own hosts (ReplicatedKvClient) against 3 replicas, with
// crashes, power losses and pauses. Each run is held against a reference
// model — a plain KvState fed the committed log in order — and judged by
// the checker's KV model (checker/kv_store_model.h) and Raft's invariants;
// and the lessor behaves as etcd's: only the leader expires a TTL, on its
// own clock, and a new leader restarts every TTL. Here, not in backends/,
// because it needs the runner's recorders and the checker.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/kv_state.h"
#include "backends/raft_invariants.h"
#include "backends/replicated_store.h"
#include "checker/kv_store_model.h"
#include "runner/kv_recorder.h"
#include "sim/network.h"

namespace leasesim {
namespace {

using backends::KvRequest;
using sim::Millis;
using sim::Nanos;
using sim::Seconds;

// A world with `clients` client hosts and a 3-replica store; replica 1
// very likely leads first.
struct KvCluster {
  KvCluster(std::uint64_t seed, int clients, backends::ReplicatedStoreConfig config, std::uint32_t loss_ppm = 0)
      : world(seed, true) {
    for (int client = 1; client <= clients; ++client) hosts.push_back(world.AddHost({.name = "c" + std::to_string(client)}));
    network = std::make_unique<sim::Network>(
        world, world.MakePrng("network"),
        sim::NetworkConfig{.latency = {.base_ns = Millis(1), .jitter_ns = Millis(2)}, .loss_ppm = loss_ppm});
    kv_recorder = std::make_unique<runner::KvRecorder>(world, "store");
    store = std::make_unique<backends::ReplicatedStore>(world, *network, config);
    for (int client = 1; client <= clients; ++client) {
      kv.push_back(std::make_unique<backends::ReplicatedKvClient>(*store, hosts[static_cast<std::size_t>(client - 1)],
                                                                  client, "n" + std::to_string(client), *kv_recorder));
    }
    for (sim::HostId host : hosts) world.Start(host);
    store->Start();
  }
  ~KvCluster() {
    for (sim::HostId host : hosts) world.Crash(host);  // unwind the fibers first
  }

  static backends::ReplicatedStoreConfig Config(sim::Nanos election_timeout_min, sim::Nanos fsync = 0) {
    backends::ReplicatedStoreConfig config;
    config.replicas = 3;
    config.service = {.base_ns = Millis(1)};
    config.election_timeout_min = election_timeout_min;
    config.election_timeout_max = 2 * election_timeout_min;
    config.heartbeat = Millis(50);
    config.client_attempt_timeout = Millis(200);
    config.initial_leader = 1;
    config.fsync = fsync;
    return config;
  }

  // Runs `task` as a fiber on client `client` (1-based) at true time `at`.
  void At(Nanos at, int client, std::function<void(core::KvClient&)> task) {
    world.At(at, [this, client, task = std::move(task)] {
      const auto index = static_cast<std::size_t>(client - 1);
      world.Spawn(hosts[index], [this, index, task] { task(*kv[index]); });
    });
  }

  void RestartCrashed() {
    for (int replica = 1; replica <= store->replicas(); ++replica) {
      if (world.state(store->host(replica)) == sim::HostState::kCrashed) world.Restart(store->host(replica));
    }
  }

  // When each lease the store ended on its own was recorded as ended (true time).
  std::map<core::KvLeaseId, Nanos> Expiries() const {
    std::map<core::KvLeaseId, Nanos> expiries;
    for (const checker::KvStoreOp& op : kv_recorder->ops()) {
      if (op.kind == checker::KvStoreOp::Kind::kLeaseExpire) expiries.emplace(op.lease, op.return_ns);
    }
    return expiries;
  }

  // The true time of the first trace event of this kind at or after `from`.
  std::optional<Nanos> FirstEvent(const std::string& kind, Nanos from) {
    for (const sim::TraceEvent& event : world.trace().events()) {
      if (event.time >= from && kind == event.kind) return event.time;
    }
    return std::nullopt;
  }

  sim::World world;
  std::vector<sim::HostId> hosts;
  std::unique_ptr<sim::Network> network;
  std::unique_ptr<runner::KvRecorder> kv_recorder;
  std::unique_ptr<backends::ReplicatedStore> store;
  std::vector<std::unique_ptr<backends::ReplicatedKvClient>> kv;
};

std::string Violations(const backends::RaftInvariants& invariants) {
  std::string text;
  for (const std::string& violation : invariants.violations()) text += "\n  " + violation;
  return text;
}

// The reference: a plain KvState fed the committed log of the replica that
// committed most, each request once (the first time its id appears), as
// the replicas' exactly-once rule applies it. Every replica that applied as
// far must hold the same keys, revision and leases; every client write
// that returned must have been answered what the reference answered it.
void ExpectReplicasMatchTheReference(const KvCluster& cluster) {
  const backends::ReplicatedStore& store = *cluster.store;
  int source = 0;
  for (int replica = 1; replica <= store.replicas(); ++replica) {
    if (store.KvLocal(replica) != nullptr &&
        (source == 0 || store.commit_index(replica) > store.commit_index(source))) {
      source = replica;
    }
  }
  ASSERT_NE(source, 0);
  backends::KvState reference;
  std::map<std::int64_t, backends::KvReply> answered;
  const std::vector<backends::ReplicaLogEntry>& log = store.disk(source).log;
  const std::int64_t committed = store.commit_index(source);
  for (std::int64_t index = 1; index <= committed; ++index) {
    const backends::ReplicaLogEntry& entry = log[static_cast<std::size_t>(index - 1)];
    if (entry.kv == nullptr || answered.contains(entry.kv->op)) continue;
    const KvRequest& request = *entry.kv;
    backends::KvReply reply;
    if (request.kind == KvRequest::Kind::kTxn) reply.txn = reference.Txn(request.txn);
    if (request.kind == KvRequest::Kind::kLeaseGrant) reply.lease = reference.LeaseGrant(request.ttl, 0);
    if (request.kind == KvRequest::Kind::kLeaseRevoke && entry.expiry) reference.Expire(request.lease);
    if (request.kind == KvRequest::Kind::kLeaseRevoke && !entry.expiry) reply.lease = reference.LeaseRevoke(request.lease);
    answered.emplace(request.op, reply);
  }
  int compared = 0;
  for (int replica = 1; replica <= store.replicas(); ++replica) {
    const backends::KvState* state = store.KvLocal(replica);
    if (state == nullptr || store.commit_index(replica) != committed) continue;
    ++compared;
    EXPECT_EQ(state->keys(), reference.keys()) << "r" << replica;
    EXPECT_EQ(state->revision(), reference.revision()) << "r" << replica;
    EXPECT_EQ(state->lease_count(), reference.lease_count()) << "r" << replica;
  }
  EXPECT_GE(compared, 2) << "a majority applied everything by the end";
  const std::vector<checker::KvStoreOp>& ops = cluster.kv_recorder->ops();
  for (std::size_t op = 0; op < ops.size(); ++op) {
    const auto reply = answered.find(static_cast<std::int64_t>(op));
    if (reply == answered.end() || ops[op].outcome != checker::Outcome::kOk) continue;
    if (ops[op].kind == checker::KvStoreOp::Kind::kTxn) {
      EXPECT_EQ(ops[op].succeeded, reply->second.txn.succeeded) << "op " << op;
      EXPECT_EQ(ops[op].revision, reply->second.txn.revision) << "op " << op;
    } else {
      EXPECT_EQ(ops[op].lease, reply->second.lease.id) << "op " << op;
    }
  }
}

// A client's random traffic: puts (some on its lease), compare-and-sets on
// the mod revision, ranges over the prefix, deletes, and its lease granted,
// kept alive and revoked.
void Traffic(sim::World& world, sim::HostId host, core::KvClient& kv, base::Prng prng, Nanos until) {
  const Nanos timeout = Millis(800);
  core::KvLeaseId lease = core::kNoLease;
  std::int64_t written = 0;
  while (world.now() < until) {
    world.SleepUntilLocal(world.MonotonicNow(host) + prng.UniformRange(0, Millis(60)));
    const std::string key = "k/" + std::to_string(prng.UniformRange(1, 4));
    const std::string value = "h" + std::to_string(host) + "-" + std::to_string(++written);
    switch (prng.UniformBelow(10)) {
      case 0: lease = kv.LeaseGrant(Millis(prng.UniformRange(300, 1500)), timeout).id; break;
      case 1: kv.LeaseKeepAlive(lease, timeout); break;
      case 2: kv.LeaseRevoke(lease, timeout); break;
      case 3:
      case 4: kv.Txn(core::KvTxn{{}, {core::KvRequestOp::Put(key, value, lease)}, {}}, timeout); break;
      case 5: {
        const core::KvTxnResult read = kv.Range(core::KvRequestOp::Range(core::KvKeys::Single(key)), timeout);
        const std::int64_t seen = read.responses.empty() || read.responses[0].kvs.empty()
                                      ? 0
                                      : read.responses[0].kvs[0].mod_revision;
        core::KvTxn cas;
        cas.compares.push_back(core::KvCompare{key, core::KvCompareTarget::kModRevision, core::KvCompareResult::kEqual, seen, {}});
        cas.success.push_back(core::KvRequestOp::Put(key, value));
        cas.failure.push_back(core::KvRequestOp::Range(core::KvKeys::Single(key)));
        kv.Txn(cas, timeout);
        break;
      }
      case 6:
      case 7: kv.Range(core::KvRequestOp::Range(core::KvKeys::Prefix("k/")), timeout); break;
      case 8: kv.Txn(core::KvTxn{{}, {core::KvRequestOp::Delete(core::KvKeys::Single(key))}, {}}, timeout); break;
      default: kv.Range(core::KvRequestOp::Range(core::KvKeys::Prefix("k/"), core::KvSortBy::kCreateRevision, 2), timeout);
    }
  }
}

TEST(KvReplicated, TrafficThroughCrashesAndPowerLossMatchesTheReference) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    KvCluster cluster(seed, 4, KvCluster::Config(Millis(300), Millis(2)), 10'000);
    for (int client = 1; client <= 4; ++client) {
      const sim::HostId host = cluster.hosts[static_cast<std::size_t>(client - 1)];
      cluster.At(Millis(100), client, [&cluster, host, client](core::KvClient& kv) {
        Traffic(cluster.world, host, kv, cluster.world.MakePrng("traffic/" + std::to_string(client)), Seconds(14));
      });
    }
    // The leader crashes; a follower loses power; the (new) leader loses power.
    cluster.world.At(Seconds(3), [&] { cluster.world.Crash(cluster.store->host(cluster.store->Leader().value_or(1))); });
    cluster.world.At(Seconds(5), [&] { cluster.RestartCrashed(); });
    cluster.world.At(Seconds(7), [&] { cluster.store->PowerLoss(cluster.store->Follower().value_or(1)); });
    cluster.world.At(Seconds(8), [&] { cluster.RestartCrashed(); });
    cluster.world.At(Seconds(10), [&] { cluster.store->PowerLoss(cluster.store->Leader().value_or(2)); });
    cluster.world.At(Seconds(11), [&] { cluster.RestartCrashed(); });
    cluster.world.RunUntil(Seconds(18));
    EXPECT_TRUE(cluster.store->invariants().violations().empty()) << Violations(cluster.store->invariants());
    ExpectReplicasMatchTheReference(cluster);
    EXPECT_FALSE(cluster.Expiries().empty()) << "seed " << seed << ": some leases must run out";
    const checker::LinResult result = checker::CheckKvStore(cluster.kv_recorder->TakeOps());
    EXPECT_EQ(result.verdict, checker::LinVerdict::kLinearizable) << "seed " << seed << ": " << result.explanation;
  }
}

// Grants a lease of `ttl` and puts "held" on it at true time `at` from
// client 1; the lease's id lands in `lease`.
void GrantAndPut(KvCluster& cluster, Nanos at, Nanos ttl, core::KvLeaseId& lease) {
  cluster.At(at, 1, [&lease, ttl](core::KvClient& kv) {
    lease = kv.LeaseGrant(ttl, Seconds(2)).id;
    kv.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("held", "1", lease)}, {}}, Seconds(2));
  });
}

// etcd's lessor runs on the primary alone and on its host's monotonic
// clock: while the leader is paused nothing expires (the followers do not
// expire leases); once it resumes, its loop finds the lease past its TTL.
TEST(KvReplicated, ATtlOnAPausedLeaderEndsOnlyWhenItResumes) {
  KvCluster cluster(11, 1, KvCluster::Config(Millis(1000)));
  core::KvLeaseId lease = core::kNoLease;
  GrantAndPut(cluster, Seconds(3), Millis(400), lease);
  const Nanos pause = Seconds(3) + Millis(100);
  const Nanos resume = pause + Millis(900);  // shorter than any election timeout: no new leader
  int leader = 0;
  cluster.world.At(pause, [&] {
    leader = cluster.store->Leader().value_or(0);
    cluster.world.Pause(cluster.store->host(leader));
  });
  cluster.world.At(resume, [&] { cluster.world.Unpause(cluster.store->host(leader)); });
  cluster.world.RunUntil(Seconds(6));
  ASSERT_NE(lease, core::kNoLease);
  ASSERT_NE(leader, 0);
  EXPECT_EQ(cluster.store->Leader(), leader) << "the pause must not cost the leadership";
  const auto expiries = cluster.Expiries();
  ASSERT_TRUE(expiries.contains(lease));
  EXPECT_GE(expiries.at(lease), resume) << "nothing expires while the leader is paused";
  EXPECT_LE(expiries.at(lease), resume + Millis(100)) << "the resumed lessor revokes at once";
  EXPECT_FALSE(cluster.store->KvLocal(1)->keys().contains("held"));
  EXPECT_TRUE(cluster.store->invariants().violations().empty()) << Violations(cluster.store->invariants());
}

// The same lease without a pause ends about its TTL after the grant: the
// control for the test above and the one below.
TEST(KvReplicated, ATtlEndsOnTimeUnderAHealthyLeader) {
  KvCluster cluster(11, 1, KvCluster::Config(Millis(1000)));
  core::KvLeaseId lease = core::kNoLease;
  GrantAndPut(cluster, Seconds(3), Millis(400), lease);
  cluster.world.RunUntil(Seconds(6));
  const auto expiries = cluster.Expiries();
  ASSERT_TRUE(expiries.contains(lease));
  EXPECT_GE(expiries.at(lease), Seconds(3) + Millis(400));
  EXPECT_LE(expiries.at(lease), Seconds(3) + Millis(400) + Millis(600)) << "one lessor period and a commit";
}

// etcd lessor.Promote(election timeout): a new leader gives every lease
// its whole TTL again plus the election timeout, counted from when it
// applied its term's no-op — the old leader's countdown is lost with it.
TEST(KvReplicated, ANewLeaderRestartsEveryTtl) {
  KvCluster cluster(5, 1, KvCluster::Config(Millis(1000)));
  core::KvLeaseId lease = core::kNoLease;
  const Nanos ttl = Millis(1500);
  GrantAndPut(cluster, Seconds(3), ttl, lease);
  const Nanos crash = Seconds(3) + Millis(700);
  cluster.world.At(crash, [&] { cluster.world.Crash(cluster.store->host(cluster.store->Leader().value())); });
  cluster.world.RunUntil(Seconds(12));
  ASSERT_NE(lease, core::kNoLease);
  const std::optional<Nanos> promoted = cluster.FirstEvent("repl_lessor_promote", crash);
  ASSERT_TRUE(promoted.has_value()) << "a new leader took over the lease";
  const auto expiries = cluster.Expiries();
  ASSERT_TRUE(expiries.contains(lease));
  const Nanos restarted_deadline = *promoted + Millis(1000) + ttl;
  EXPECT_GT(expiries.at(lease), Seconds(3) + ttl + Millis(1000)) << "the old countdown did not carry over";
  EXPECT_GE(expiries.at(lease), restarted_deadline);
  EXPECT_LE(expiries.at(lease), restarted_deadline + Millis(600));
  EXPECT_TRUE(cluster.store->invariants().violations().empty()) << Violations(cluster.store->invariants());
}

// Keep-alives go to the leader, and through a failover: a lease kept alive
// every 300 ms of a 1 s TTL never ends, whoever leads.
TEST(KvReplicated, KeepAlivesHoldALeaseThroughAFailover) {
  KvCluster cluster(3, 1, KvCluster::Config(Millis(300)));
  core::KvLeaseId lease = core::kNoLease;
  int renewed = 0;
  int refused = 0;
  cluster.At(Seconds(2), 1, [&](core::KvClient& kv) {
    lease = kv.LeaseGrant(Seconds(1), Seconds(1)).id;
    const sim::HostId host = cluster.hosts[0];
    while (cluster.world.now() < Seconds(8)) {
      cluster.world.SleepUntilLocal(cluster.world.MonotonicNow(host) + Millis(300));
      const core::KvLeaseResult result = kv.LeaseKeepAlive(lease, Millis(250));
      renewed += result.status == core::KvStatus::kOk;
      refused += result.status == core::KvStatus::kLeaseNotFound;
    }
  });
  cluster.world.At(Seconds(4), [&] { cluster.world.Crash(cluster.store->host(cluster.store->Leader().value())); });
  cluster.world.RunUntil(Seconds(9));
  ASSERT_NE(lease, core::kNoLease);
  EXPECT_FALSE(cluster.Expiries().contains(lease));
  EXPECT_EQ(refused, 0);
  EXPECT_GT(renewed, 15);
}

// etcd's compaction: a watch from a revision the store no longer keeps is
// told to read again (kCompacted); the client reads, and watches from the
// read's revision + 1 — and gets the next change, served by the leader.
TEST(KvReplicated, AWatchThatFellBehindReadsAgain) {
  backends::ReplicatedStoreConfig config = KvCluster::Config(Millis(300));
  config.kv_state.history_revisions = 5;
  KvCluster cluster(9, 2, config);
  core::KvWatchResult compacted;
  core::KvWatchResult caught_up;
  std::int64_t read_revision = 0;
  cluster.At(Seconds(2), 1, [&](core::KvClient& kv) {
    for (int i = 0; i < 20; ++i) kv.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("w/a", std::to_string(i))}, {}}, Seconds(1));
    compacted = kv.Watch(core::KvKeys::Prefix("w/"), 2, Seconds(1));
    read_revision = kv.Range(core::KvRequestOp::Range(core::KvKeys::Prefix("w/")), Seconds(1)).revision;
    caught_up = kv.Watch(core::KvKeys::Prefix("w/"), read_revision + 1, Seconds(3));
  });
  cluster.At(Seconds(4), 2, [](core::KvClient& kv) {
    kv.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("w/b", "new")}, {}}, Seconds(1));
  });
  cluster.world.RunUntil(Seconds(8));
  EXPECT_EQ(compacted.status, core::KvStatus::kCompacted);
  EXPECT_GT(compacted.compact_revision, 2);
  ASSERT_EQ(caught_up.status, core::KvStatus::kOk);
  ASSERT_EQ(caught_up.events.size(), 1u);
  EXPECT_EQ(caught_up.events[0].kv.key, "w/b");
  EXPECT_EQ(caught_up.events[0].kv.mod_revision, read_revision + 1);
}

// A watch waiting on a leader that crashes times out (no news, which proves
// nothing); the next watch goes to another replica, which redirects it to
// the new leader, and it sees what was written meanwhile.
TEST(KvReplicated, AWatchOutlivesALeaderCrash) {
  KvCluster cluster(13, 2, KvCluster::Config(Millis(300)));
  core::KvWatchResult lost;
  core::KvWatchResult found;
  std::int64_t start = 0;
  cluster.At(Seconds(2), 1, [&](core::KvClient& kv) {
    start = kv.Range(core::KvRequestOp::Range(core::KvKeys::Prefix("w/")), Seconds(1)).revision + 1;
    lost = kv.Watch(core::KvKeys::Prefix("w/"), start, Seconds(1));
    found = kv.Watch(core::KvKeys::Prefix("w/"), start, Seconds(3));
  });
  cluster.world.At(Seconds(2) + Millis(200), [&] { cluster.world.Crash(cluster.store->host(cluster.store->Leader().value())); });
  cluster.At(Seconds(3) + Millis(500), 2, [](core::KvClient& kv) {
    kv.Txn(core::KvTxn{{}, {core::KvRequestOp::Put("w/x", "after")}, {}}, Seconds(2));
  });
  cluster.world.RunUntil(Seconds(8));
  EXPECT_EQ(lost.status, core::KvStatus::kTimeout);
  ASSERT_EQ(found.status, core::KvStatus::kOk);
  ASSERT_FALSE(found.events.empty());
  EXPECT_EQ(found.events[0].kv.key, "w/x");
}

}  // namespace
}  // namespace leasesim
