#include "backends/replicated_store.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/raft_invariants.h"
#include "core/kv_record_store.h"

namespace leasesim::backends {
namespace {

using sim::Millis;
using sim::Seconds;

// Where the store placed each KV call it applied or answered (by the
// observer's op id: the calls' order), as the recorder learns it.
class PlacesObserver final : public KvObserver {
 public:
  std::int64_t KvInvoked(int, std::string_view, const KvRequest&) override { return next_++; }
  void KvApplied(std::int64_t, const KvReply&) override { ADD_FAILURE() << "the replicated store gives places"; }
  void KvAppliedAt(std::int64_t op, const KvReply&, std::int64_t place) override { applied[op] = place; }
  void KvCompleted(std::int64_t, const KvReply&) override {}
  void KvLeaseExpired(const KvExpiry&) override {}
  std::map<std::int64_t, std::int64_t> applied;

 private:
  std::int64_t next_ = 0;
};

// The record's versions are its key's mod revisions: the store's revisions
// start at 1, as etcd's do, and each put takes the next.
constexpr std::int64_t kFirstWrite = 2;
constexpr std::int64_t kSecondWrite = 3;

core::LeaseRecord Record(const std::string& holder, std::int64_t term) {
  core::LeaseRecord record;
  record.holder = holder;
  record.term = term;
  record.duration_ns = Seconds(10);
  return record;
}

// A world with a client host and an N-replica store; replica 1 is the
// client's nearest (all latencies equal: the lowest number wins ties), and
// `initial_leader` (default 2) very likely leads first.
struct Cluster {
  explicit Cluster(int replicas = 3, ReadMode mode = ReadMode::kLinearizable, std::uint64_t seed = 7,
                   int initial_leader = 2, sim::Nanos fsync = 0, std::int64_t append_batch_max = 64)
      : world(seed, false) {
    client = world.AddHost({.name = "client"});
    network = std::make_unique<sim::Network>(world, world.MakePrng("network"),
                                             sim::NetworkConfig{.latency = {.base_ns = Millis(1), .jitter_ns = Millis(1)}});
    ReplicatedStoreConfig config;
    config.replicas = replicas;
    config.read_mode = mode;
    config.service = {.base_ns = Millis(1)};
    config.election_timeout_min = Millis(300);
    config.election_timeout_max = Millis(600);
    config.heartbeat = Millis(50);
    config.client_attempt_timeout = Millis(200);
    config.initial_leader = initial_leader;
    config.fsync = fsync;
    config.append_batch_max = append_batch_max;
    store = std::make_unique<ReplicatedStore>(world, *network, config);
    kv = std::make_unique<ReplicatedKvClient>(*store, client, 1, "n1#1", observer);
    records = std::make_unique<core::KvRecordStore>(*kv, core::KvRecordStoreOptions{.watch = false});
    world.Start(client);
    store->Start();
  }

  // Runs `op` on the client at true time `at`; its result lands in `out`.
  void At(sim::Nanos at, std::function<core::StoreResult()> op, std::optional<core::StoreResult>& out) {
    world.At(at, [this, op = std::move(op), &out] {
      world.Spawn(client, [op, &out] { out = op(); });
    });
  }
  // core's record store on the client (its calls are KV txns on key "k").
  std::function<core::StoreResult()> Create(const std::string& holder, core::Nanos timeout = Seconds(2)) {
    return [this, holder, timeout] { return records->Create("k", Record(holder, 1), timeout); };
  }
  std::function<core::StoreResult()> Cas(std::int64_t version, const std::string& holder,
                                         core::Nanos timeout = Seconds(2)) {
    return [this, version, holder, timeout] {
      return records->CompareAndSet("k", version, Record(holder, version + 1), timeout);
    };
  }
  std::function<core::StoreResult()> Read(core::Nanos timeout = Seconds(2)) {
    return [this, timeout] { return records->Read("k", timeout); };
  }
  // The record in the replica's state machine (not found when crashed or absent).
  core::VersionedRecord Local(int replica) const {
    const KvState* state = store->KvLocal(replica);
    if (state == nullptr || !state->keys().contains("k")) return {};
    const core::KvEntry& entry = state->keys().at("k");
    std::optional<core::LeaseRecord> record = core::DecodeLeaseRecord(entry.value);
    if (!record) return {};
    return core::VersionedRecord{true, entry.mod_revision, *record};
  }
  void Cut(int replica, bool blocked) {
    for (int other = 1; other <= store->replicas(); ++other) {
      if (other == replica) continue;
      network->SetBlocked(store->host(replica), store->host(other), blocked);
      network->SetBlocked(store->host(other), store->host(replica), blocked);
    }
  }

  sim::World world;
  sim::HostId client = 0;
  std::unique_ptr<sim::Network> network;
  PlacesObserver observer;
  std::unique_ptr<ReplicatedStore> store;
  std::unique_ptr<ReplicatedKvClient> kv;
  std::unique_ptr<core::KvRecordStore> records;
};

TEST(ReplicatedStore, ElectsOneLeaderAndCommitsAWriteOnEveryReplica) {
  Cluster cluster;
  std::optional<core::StoreResult> created;
  cluster.At(Seconds(2), cluster.Create("a"), created);
  cluster.world.RunUntil(Seconds(4));
  ASSERT_EQ(cluster.store->Leader(), 2);
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->status, core::StoreStatus::kOk);
  EXPECT_EQ(created->current.version, kFirstWrite);
  for (int replica = 1; replica <= 3; ++replica) {
    EXPECT_EQ(cluster.Local(replica).record.holder, "a") << "replica " << replica;
  }
  // Applied in commit order: log index (1 is the leader's no-op) times the read slots.
  EXPECT_EQ(cluster.observer.applied.at(0), 2 * ReplicatedStore::kReadSlots);
  int leaders = 0;
  for (int replica = 1; replica <= 3; ++replica) leaders += cluster.store->role(replica) == ReplicaRole::kLeader;
  EXPECT_EQ(leaders, 1);
}

TEST(ReplicatedStore, AWriteCommitsWithOneFollowerDown) {
  Cluster cluster;
  cluster.world.At(Seconds(1), [&] { cluster.world.Crash(cluster.store->host(3)); });
  std::optional<core::StoreResult> created;
  cluster.At(Seconds(2), cluster.Create("a"), created);
  cluster.world.RunUntil(Seconds(4));
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->status, core::StoreStatus::kOk);
}

TEST(ReplicatedStore, AMinorityRefusesWritesAndTheMajorityMovesOn) {
  Cluster cluster;
  std::optional<core::StoreResult> created;
  cluster.At(Seconds(2), cluster.Create("a"), created);
  // The leader (2) is cut off from both followers; the client can still
  // reach every replica. A write sent to the old leader must not commit.
  cluster.world.At(Seconds(3), [&] {
    cluster.Cut(2, true);
  });
  std::optional<core::StoreResult> minority;
  cluster.world.At(Seconds(3) + Millis(10), [&] {
    cluster.world.Spawn(cluster.client, [&] {
      // Straight to the old leader, as a client with a stale hint would.
      minority = cluster.Cas(kFirstWrite, "minority", Millis(150))();
    });
  });
  std::optional<core::StoreResult> majority;
  cluster.At(Seconds(6), cluster.Cas(kFirstWrite, "b"), majority);
  cluster.world.At(Seconds(8), [&] { cluster.Cut(2, false); });
  cluster.world.RunUntil(Seconds(10));
  ASSERT_TRUE(minority.has_value());
  EXPECT_NE(minority->status, core::StoreStatus::kOk);
  ASSERT_TRUE(majority.has_value());
  // The minority's write was never committed: the majority's CAS on version 1 won.
  EXPECT_EQ(majority->status, core::StoreStatus::kOk);
  EXPECT_EQ(majority->current.record.holder, "b");
  EXPECT_NE(cluster.store->Leader(), std::nullopt);
  EXPECT_GT(cluster.store->term(1), 1);
  // After the heal every replica holds the majority's value (the old leader's
  // uncommitted entry was overwritten).
  for (int replica = 1; replica <= 3; ++replica) {
    EXPECT_EQ(cluster.Local(replica).record.holder, "b") << "replica " << replica;
  }
  EXPECT_GE(cluster.store->elections(), 2);
}

TEST(ReplicatedStore, ALeaderCrashKeepsCommittedWrites) {
  Cluster cluster;
  std::optional<core::StoreResult> created, renewed, read;
  cluster.At(Seconds(2), cluster.Create("a"), created);
  cluster.At(Seconds(2) + Millis(500), cluster.Cas(kFirstWrite, "a"), renewed);
  cluster.world.At(Seconds(3), [&] { cluster.world.Crash(cluster.store->host(2)); });
  cluster.At(Seconds(3) + Millis(10), cluster.Read(), read);
  cluster.world.At(Seconds(6), [&] { cluster.world.Restart(cluster.store->host(2)); });
  cluster.world.RunUntil(Seconds(8));
  ASSERT_TRUE(renewed.has_value());
  ASSERT_EQ(renewed->status, core::StoreStatus::kOk);
  ASSERT_TRUE(read.has_value());
  // The read waited out the failover and saw the committed renewal.
  EXPECT_EQ(read->status, core::StoreStatus::kOk);
  EXPECT_EQ(read->current.version, kSecondWrite);
  ASSERT_TRUE(cluster.store->Leader().has_value());
  EXPECT_NE(cluster.store->Leader(), 2);
  // The restarted replica rebuilt its state from the log it kept on disk.
  EXPECT_EQ(cluster.Local(2).version, kSecondWrite);
}

TEST(ReplicatedStore, AResendAfterAFailoverIsAppliedOnce) {
  Cluster cluster;
  std::optional<core::StoreResult> created;
  cluster.At(Seconds(2), cluster.Create("a"), created);
  // The create reaches the leader, which crashes before answering; the
  // client resends to the next leader.
  cluster.world.At(Seconds(2) + Millis(3), [&] { cluster.world.Crash(cluster.store->host(2)); });
  cluster.world.RunUntil(Seconds(6));
  ASSERT_TRUE(created.has_value());
  // Either it committed before the crash (and the resend returns the same
  // result) or it is applied once by the new leader: the first write either way.
  if (created->status == core::StoreStatus::kOk) {
    EXPECT_EQ(created->current.version, kFirstWrite);
  }
  for (int replica : {1, 3}) {
    const core::VersionedRecord local = cluster.Local(replica);
    if (local.found) {
      EXPECT_EQ(local.version, kFirstWrite);
    }
  }
}

TEST(ReplicatedStore, UnsafeReadsServeAStaleValueFromACutOffFollower) {
  Cluster cluster(3, ReadMode::kUnsafe);
  std::optional<core::StoreResult> created, renewed, stale;
  cluster.At(Seconds(2), cluster.Create("a"), created);
  cluster.world.At(Seconds(3), [&] { cluster.Cut(1, true); });
  cluster.At(Seconds(4), cluster.Cas(kFirstWrite, "b"), renewed);
  cluster.At(Seconds(5), cluster.Read(), stale);
  cluster.world.RunUntil(Seconds(6));
  ASSERT_TRUE(renewed.has_value());
  ASSERT_EQ(renewed->status, core::StoreStatus::kOk);
  ASSERT_TRUE(stale.has_value());
  ASSERT_EQ(stale->status, core::StoreStatus::kOk);
  // Replica 1 (the client's nearest) never heard of the CAS.
  EXPECT_EQ(stale->current.version, kFirstWrite);
  EXPECT_EQ(stale->current.record.holder, "a");
  std::map<std::string, std::int64_t> figures;
  cluster.store->AddFigures(figures);
  EXPECT_GE(figures.at("store_stale_reads"), 1);
}

TEST(ReplicatedStore, LinearizableReadsGoToTheLeaderAndSeeTheLatestWrite) {
  Cluster cluster(3, ReadMode::kLinearizable);
  std::optional<core::StoreResult> created, renewed, fresh;
  cluster.At(Seconds(2), cluster.Create("a"), created);
  cluster.world.At(Seconds(3), [&] { cluster.Cut(1, true); });
  cluster.At(Seconds(4), cluster.Cas(kFirstWrite, "b"), renewed);
  cluster.At(Seconds(5), cluster.Read(), fresh);
  cluster.world.RunUntil(Seconds(6));
  ASSERT_TRUE(fresh.has_value());
  ASSERT_EQ(fresh->status, core::StoreStatus::kOk);
  EXPECT_EQ(fresh->current.version, kSecondWrite);
  EXPECT_EQ(fresh->current.record.holder, "b");
  // The read sits after the CAS in the applied order.
  EXPECT_GT(cluster.observer.applied.at(2), cluster.observer.applied.at(1));
}

TEST(ReplicatedStore, ADeposedLeaderCannotServeALinearizableRead) {
  Cluster cluster(3, ReadMode::kLinearizable);
  std::optional<core::StoreResult> created, renewed;
  cluster.At(Seconds(2), cluster.Create("a"), created);
  cluster.world.At(Seconds(3), [&] { cluster.Cut(2, true); });  // the leader
  cluster.At(Seconds(5), cluster.Cas(kFirstWrite, "b"), renewed);       // committed by the majority
  std::optional<core::StoreResult> read;
  cluster.world.At(Seconds(5) + Millis(500), [&] {
    cluster.world.Spawn(cluster.client, [&] {
      read = cluster.Read(Seconds(1))();
    });
  });
  cluster.world.RunUntil(Seconds(7));
  ASSERT_TRUE(renewed.has_value());
  ASSERT_EQ(renewed->status, core::StoreStatus::kOk);
  ASSERT_TRUE(read.has_value());
  // Whoever answered, the answer is not the stale version 1.
  if (read->status == core::StoreStatus::kOk) {
    EXPECT_EQ(read->current.version, kSecondWrite);
  }
}

TEST(ReplicatedStore, FiveReplicasSurviveTwoCrashes) {
  Cluster cluster(5);
  std::optional<core::StoreResult> created, renewed;
  cluster.At(Seconds(2), cluster.Create("a"), created);
  cluster.world.At(Seconds(3), [&] {
    cluster.world.Crash(cluster.store->host(2));
    cluster.world.Crash(cluster.store->host(4));
  });
  cluster.At(Seconds(3) + Millis(10), cluster.Cas(kFirstWrite, "b"), renewed);
  cluster.world.RunUntil(Seconds(8));
  ASSERT_TRUE(renewed.has_value());
  EXPECT_EQ(renewed->status, core::StoreStatus::kOk);
  EXPECT_EQ(renewed->current.version, kSecondWrite);
}

// With an fsync of 20 ms a write waits for the leader's disk and then a
// follower's before it commits; once answered, it survives a power loss of
// any one replica (and the replica that lost power catches up).
TEST(ReplicatedStore, AnAnsweredWriteWaitedForTheDisksAndSurvivesAPowerLoss) {
  for (int lost = 1; lost <= 3; ++lost) {
    Cluster cluster(3, ReadMode::kLinearizable, 7, 2, Millis(20));
    std::optional<core::StoreResult> created, read;
    sim::Nanos answered = 0;
    cluster.world.At(Seconds(2), [&] {
      cluster.world.Spawn(cluster.client, [&] {
        created = cluster.Create("a")();
        answered = cluster.world.now();
        cluster.store->PowerLoss(lost);
      });
    });
    cluster.world.At(Seconds(3), [&] { cluster.world.Restart(cluster.store->host(lost)); });
    cluster.At(Seconds(5), cluster.Read(), read);
    cluster.world.RunUntil(Seconds(7));
    ASSERT_TRUE(created.has_value());
    ASSERT_EQ(created->status, core::StoreStatus::kOk);
    EXPECT_GE(answered - Seconds(2), Millis(40)) << "the leader's fsync, then a follower's";
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->current.record.holder, "a") << "power loss on r" << lost;
    EXPECT_TRUE(cluster.store->invariants().violations().empty()) << cluster.store->invariants().violations().front();
    EXPECT_EQ(cluster.Local(lost).record.holder, "a");
  }
}

// A single replica commits by itself: only once its own fsync is done (etcd
// issue #14370: a one-member cluster answered a write it had not persisted,
// and lost it in a crash).
TEST(ReplicatedStore, ASingleReplicaAnswersAWriteOnlyOnceItIsOnDisk) {
  Cluster cluster(1, ReadMode::kLinearizable, 7, 1, Millis(20));
  std::optional<core::StoreResult> created, read;
  cluster.world.At(Seconds(2), [&] {
    cluster.world.Spawn(cluster.client, [&] {
      created = cluster.Create("a")();
      cluster.store->PowerLoss(1);
    });
  });
  cluster.world.At(Seconds(3), [&] { cluster.world.Restart(cluster.store->host(1)); });
  cluster.At(Seconds(5), cluster.Read(), read);
  cluster.world.RunUntil(Seconds(7));
  ASSERT_TRUE(created.has_value());
  ASSERT_EQ(created->status, core::StoreStatus::kOk);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->current.record.holder, "a");
  EXPECT_TRUE(cluster.store->invariants().violations().empty()) << cluster.store->invariants().violations().front();
}

// Figure 8 of the Raft paper, scripted: the commit rule ("only entries of
// the leader's own term commit by counting replicas") is what keeps an entry
// of an older term, once on a majority, from being committed and then
// overwritten. Appends of one entry let an acknowledgement cover the old
// entry alone. r1 leads and appends X that nobody receives; B (r2 or r3)
// wins the next term and is cut off before its no-op leaves; r1 comes back,
// leads again, and gets X onto C — with the rule it must not count X as
// committed until its own no-op is on C too, so when r1 is cut off at once
// and B returns, C (holding r1's newer entry) refuses B. Breaking the rule
// lets r1 apply X and B overwrite it: the invariants report it.
TEST(ReplicatedStore, AnEntryOfAnOlderTermIsNotCommittedByCounting) {
  Cluster cluster(3, ReadMode::kLinearizable, 7, 1, 0, 1);
  std::optional<core::StoreResult> created, lost;
  cluster.At(Seconds(2), cluster.Create("a"), created);
  cluster.world.At(Seconds(3), [&] { cluster.Cut(1, true); });
  cluster.world.At(Seconds(3) + Millis(10), [&] {
    cluster.world.Spawn(cluster.client, [&] {
      lost = cluster.Cas(kFirstWrite, "x", Millis(150))();
    });
  });
  int phase = 0;
  int b = 0;
  std::int64_t x_index = 0;
  std::function<void()> poll = [&] {
    const std::optional<int> leader = cluster.store->Leader();
    if (phase == 0 && leader && *leader != 1) {  // B won: cut it off before its no-op reaches C
      b = *leader;
      cluster.Cut(b, true);
      phase = 1;
      cluster.world.At(cluster.world.now() + Seconds(1), [&] {
        x_index = static_cast<std::int64_t>(cluster.store->disk(1).log.size());
        cluster.Cut(1, false);
        phase = 2;
      });
    } else if (phase == 2 && cluster.store->commit_index(1) >= x_index) {  // r1 counts X committed
      cluster.Cut(1, true);
      phase = 3;
      cluster.world.At(cluster.world.now() + Seconds(1), [&] { cluster.Cut(b, false); });
    }
    if (phase != 3) cluster.world.At(cluster.world.now() + sim::kNanosPerMilli / 10, poll);
  };
  cluster.world.At(Seconds(3) + Millis(20), poll);
  cluster.world.RunUntil(Seconds(12));
  ASSERT_EQ(phase, 3) << "the script did not play out";
  ASSERT_TRUE(lost.has_value());
  EXPECT_NE(lost->status, core::StoreStatus::kOk);
  EXPECT_TRUE(cluster.store->invariants().violations().empty()) << cluster.store->invariants().violations().front();
}

// etcd's robustness failpoints, modelled: armed on the leader, the first
// step that reaches the point kills it there. Before the save, the step's
// write (the client's entry) is gone with the power; after it, the entry is
// on the leader's disk but no append left. Either way the client's resend
// commits at the next leader, once.
TEST(ReplicatedStore, AFailpointKillsTheLeaderWithinTheStepThatReachesIt) {
  for (const RaftFailpoint point :
       {RaftFailpoint::kBeforeSave, RaftFailpoint::kAfterSave, RaftFailpoint::kBeforeLeaderSend}) {
    Cluster cluster(3, ReadMode::kLinearizable, 7, 2, Millis(20));
    std::optional<core::StoreResult> created, read;
    std::size_t leader_log = 0;
    cluster.world.At(Seconds(2) - Millis(5), [&] {
      ASSERT_EQ(cluster.store->Leader(), 2);
      leader_log = cluster.store->disk(2).log.size();
      EXPECT_TRUE(cluster.store->ArmFailpoint(2, point, Seconds(3)));
    });
    cluster.At(Seconds(2), cluster.Create("a"), created);
    cluster.world.At(Seconds(2) + Millis(100), [&] {
      EXPECT_EQ(cluster.world.state(cluster.store->host(2)), sim::HostState::kCrashed) << kRaftFailpointNames.CName(point);
      const std::size_t expected = point == RaftFailpoint::kBeforeSave ? leader_log : leader_log + 1;
      EXPECT_EQ(cluster.store->disk(2).log.size(), expected) << kRaftFailpointNames.CName(point);
      EXPECT_EQ(cluster.store->disk(1).log.size(), leader_log) << "no append left the dying leader";
    });
    cluster.At(Seconds(5), cluster.Read(), read);
    cluster.world.RunUntil(Seconds(7));
    ASSERT_TRUE(created.has_value());
    EXPECT_EQ(created->status, core::StoreStatus::kOk);
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(read->current.record.holder, "a");
    EXPECT_EQ(read->current.version, kFirstWrite);
    EXPECT_TRUE(cluster.store->invariants().violations().empty()) << cluster.store->invariants().violations().front();
  }
}

// Leader churn: before_leader_send armed on every replica in a crash loop.
// The leader dies with the write it took, each next leader with its no-op,
// each boots again 300 ms later; once the failpoints expire the store elects
// a leader that lives, every replica is up, and every invariant held.
TEST(ReplicatedStore, ACrashLoopAtBeforeLeaderSendKillsEachNewLeaderUntilItExpires) {
  Cluster cluster(3, ReadMode::kLinearizable, 7, 2, Millis(5));
  cluster.world.At(Seconds(2), [&] {
    for (int replica = 1; replica <= 3; ++replica) {
      EXPECT_TRUE(cluster.store->ArmFailpoint(replica, RaftFailpoint::kBeforeLeaderSend, Seconds(4), Millis(300)));
    }
  });
  std::optional<core::StoreResult> churned, created, read;
  cluster.At(Seconds(2) + Millis(100), cluster.Create("a"), churned);
  std::int64_t elections_before = 0;
  cluster.world.At(Seconds(2), [&] { elections_before = cluster.store->elections(); });
  cluster.At(Seconds(6), cluster.Create("b"), created);
  cluster.At(Seconds(7), cluster.Read(), read);
  cluster.world.RunUntil(Seconds(9));
  EXPECT_GE(cluster.store->elections() - elections_before, 2) << "each new leader died at its no-op";
  for (int replica = 1; replica <= 3; ++replica) {
    EXPECT_EQ(cluster.world.state(cluster.store->host(replica)), sim::HostState::kUp) << replica;
  }
  ASSERT_TRUE(created.has_value());
  EXPECT_TRUE(created->status == core::StoreStatus::kOk || created->status == core::StoreStatus::kConflict);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->status, core::StoreStatus::kOk);
  EXPECT_TRUE(cluster.store->invariants().violations().empty()) << cluster.store->invariants().violations().front();
}

// A slow peer link (etcd's DelayPeerNetwork) on the leader: its appends and
// the acknowledgements arrive late and out of order, a new leader may be
// elected meanwhile, and late replies of the old term arrive in the new
// one; writes still commit once, and every invariant holds.
TEST(ReplicatedStore, ASlowPeerLinkDelaysButBreaksNothing) {
  Cluster cluster(3, ReadMode::kLinearizable, 11, 2, Millis(2));
  cluster.world.At(Seconds(2), [&] {
    cluster.store->DelayPeer(2, {.base_ns = Millis(100), .jitter_ns = Millis(400), .tail_ppm = 200'000,
                                 .tail_ns = Seconds(1)},
                             Seconds(6));
  });
  std::vector<std::optional<core::StoreResult>> results(8);
  for (int i = 0; i < 8; ++i) {
    const auto at = Seconds(2) + Millis(500) * i;
    if (i == 0) {
      cluster.At(at, cluster.Create("w0"), results[0]);
    } else {
      // The i-th write, if all before it took effect.
      cluster.At(at, cluster.Cas(kFirstWrite + i - 1, "w" + std::to_string(i)), results[static_cast<std::size_t>(i)]);
    }
  }
  cluster.world.RunUntil(Seconds(10));
  EXPECT_TRUE(cluster.store->invariants().violations().empty()) << cluster.store->invariants().violations().front();
  int ok = 0;
  for (const auto& result : results) ok += result.has_value() && result->status == core::StoreStatus::kOk ? 1 : 0;
  EXPECT_GT(ok, 0);
}

TEST(ReplicatedStore, TheSameSeedGivesTheSameTrace) {
  auto run = [](std::uint64_t seed) {
    Cluster cluster(3, ReadMode::kLinearizable, seed, 0);
    std::optional<core::StoreResult> created;
    cluster.At(Seconds(2), cluster.Create("a"), created);
    cluster.world.At(Seconds(3), [&] { cluster.world.Crash(cluster.store->host(1)); });
    cluster.world.RunUntil(Seconds(6));
    return cluster.world.trace().hash();
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

}  // namespace
}  // namespace leasesim::backends
