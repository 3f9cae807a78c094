#include "runner/store_fuzz.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <optional>
#include <utility>

#include "backends/raft_invariants.h"
#include "base/prng.h"
#include "base/units.h"
#include "checker/kv_store_model.h"
#include "core/kv_record_store.h"
#include "checker/store_checks.h"
#include "runner/kv_recorder.h"
#include "runner/recorder.h"
#include "sim/network.h"
#include "sim/world.h"

namespace leasesim::runner {
namespace {

using base::kNanosPerMilli;
using base::Millis;
using sim::Nanos;

// After the traffic and the faults: every fault healed, calls in flight end
// (their timeout is below this), the replicas catch up.
constexpr Nanos kQuiet = sim::Seconds(3);
constexpr Nanos kCallTimeout = Millis(1500);
// The record clients' one lease record (outside the KV clients' keys, k1, k2, ...).
constexpr char kRecordKey[] = "lease";

enum class StoreFault {
  kLeaderPartition,  // the store leader cut off from every other replica, both ways
  kPartition,        // a random minority of replicas cut off from the rest
  kOneWay,           // the leader's messages to the others dropped, or theirs to it
  kClog,             // the leader's links held, then delivered at once
  kCrash,            // a replica's process dies (its page cache survives); restarts later
  kPowerLoss,        // a replica loses power: its un-fsynced writes are gone; restarts later
  kPause,            // a replica stops the world
  kClockDrift,       // a replica's clock runs fast or slow
  kClientCut,        // a client cut off from the store leader
  kSlowPeer,         // a replica's peer messages, in and out, delayed (etcd's DelayPeerNetwork)
  kFailpoint,        // a replica dies at a point of its raft loop (etcd's gofail panics)
  kDiskStall,        // a replica's fsyncs slow down (etcd's raftBeforeSave sleep)
  kLeaderChurn,      // whoever leads dies before its appends leave, and boots again soon (a crash loop)
  kPauseMany,        // a majority or all of the replicas paused together, resumed at one instant
  kLinkClog,         // one peer link held for several elections, then delivered at once
};
constexpr int kStoreFaultKinds = 15;

const char* FaultName(StoreFault fault) {
  static const char* const kNames[kStoreFaultKinds] = {
      "leader_partition", "partition",   "one_way",    "clog",      "crash",        "power_loss",
      "pause",            "clock_drift", "client_cut", "slow_peer", "failpoint",    "disk_stall",
      "leader_churn",     "pause_many",  "link_clog"};
  return kNames[static_cast<int>(fault)];
}

// One seed's run: the world, the store, the clients and the nemesis.
class StoreFuzzRun {
 public:
  StoreFuzzRun(std::uint64_t seed, const StoreFuzzOptions& options);
  ~StoreFuzzRun();
  StoreFuzzRun(const StoreFuzzRun&) = delete;
  StoreFuzzRun& operator=(const StoreFuzzRun&) = delete;

  StoreFuzzResult Run();

 private:
  backends::ReplicatedStoreConfig DrawStore();
  void AddClients();
  void ClientLoop(int client);
  // One call of a record client's traffic, on its record store.
  // `seen`: the versions the client saw last and before that.
  core::StoreResult RecordCall(int client, base::Prng& prng, core::StoreClient& store,
                               const std::pair<std::int64_t, std::int64_t>& seen);
  void KvClientLoop(int client);
  // One KV call of a client's traffic; `lease` is the client's current lease.
  void KvCall(int client, base::Prng& prng, core::KvLeaseId& lease);
  core::KvTxn DrawTxn(int client, base::Prng& prng, core::KvLeaseId lease);
  void CountKv(core::KvStatus status);
  void PlanFaults();
  void Strike(StoreFault fault, Nanos duration);
  // The faults on one replica's process, disk and peer links (crash to disk_stall).
  void StrikeReplica(StoreFault fault, int target, Nanos duration);
  void DrawTiming(backends::ReplicatedStoreConfig& config);
  void DrawPeerLinks(backends::ReplicatedStoreConfig& config);
  int Target();
  // Cuts the replica's messages to every other replica (out) and theirs to it (in).
  void CutOff(int target, bool out, bool in, Nanos duration);
  void PartitionMinority(Nanos duration);
  // The faults on the cluster as a whole (leader_churn, pause_many, link_clog).
  void StrikeCluster(StoreFault fault, Nanos duration);
  void LeaderChurn(Nanos duration);
  void PauseMany();
  void ClogLink();
  void Block(sim::HostId from, sim::HostId to, Nanos duration);
  void Judge(StoreFuzzResult& result);
  void DropUnpersisted(std::vector<checker::KvStoreOp>& ops);

  StoreFuzzOptions options_;
  std::uint64_t seed_;
  sim::World world_;
  base::Prng plan_;
  std::vector<sim::HostId> client_hosts_;
  std::unique_ptr<sim::Network> network_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<KvRecorder> kv_recorder_;
  std::unique_ptr<backends::ReplicatedStore> store_;
  std::vector<std::unique_ptr<backends::ReplicatedKvClient>> kv_clients_;  // one per client, record clients first
  std::vector<std::unique_ptr<core::KvRecordStore>> record_stores_;     // one per record client
  // Per KV client: the mod revision it last saw of each key (its CAS guess).
  std::vector<std::map<std::string, std::int64_t>> seen_;
  std::int64_t values_written_ = 0;
  std::map<std::string, std::int64_t> counts_;
};

StoreFuzzRun::StoreFuzzRun(std::uint64_t seed, const StoreFuzzOptions& options)
    : options_(options), seed_(seed), world_(seed, false), plan_(world_.MakePrng("store-fuzz/plan")) {
  assert(options_.clients >= 0);
  assert(options_.record_clients >= 0);
  assert(options_.clients + options_.record_clients >= 1);
  assert(options_.keys >= 1);
  AddClients();
  sim::NetworkConfig net;
  net.latency = {.base_ns = Millis(1), .jitter_ns = Millis(3), .tail_ppm = 10'000, .tail_ns = Millis(60)};
  net.loss_ppm = static_cast<std::uint32_t>(plan_.UniformRange(0, 20'000));
  net.duplicate_ppm = static_cast<std::uint32_t>(plan_.UniformRange(0, 10'000));
  net.reorder_ppm = static_cast<std::uint32_t>(plan_.UniformRange(0, 20'000));
  net.reorder_delay_ns_max = Millis(30);
  network_ = std::make_unique<sim::Network>(world_, world_.MakePrng("network"), net);
  recorder_ = std::make_unique<Recorder>(world_, client_hosts_);
  kv_recorder_ = std::make_unique<KvRecorder>(world_, "store");
  // The record clients' calls are also the record store's history (as in a
  // scenario's run), judged by the record store's model as well.
  kv_recorder_->ProjectRecord(kRecordKey, *recorder_);
  store_ = std::make_unique<backends::ReplicatedStore>(world_, *network_, DrawStore());
  for (int client = 1; client <= static_cast<int>(client_hosts_.size()); ++client) {
    const sim::HostId host = client_hosts_[static_cast<std::size_t>(client - 1)];
    kv_clients_.push_back(
        std::make_unique<backends::ReplicatedKvClient>(*store_, host, client, world_.host_name(host), *kv_recorder_));
    if (client > options_.record_clients) continue;
    // core's record store as the lease nodes use it on this store: polling, no watch.
    record_stores_.push_back(
        std::make_unique<core::KvRecordStore>(*kv_clients_.back(), core::KvRecordStoreOptions{.watch = false}));
  }
}

StoreFuzzRun::~StoreFuzzRun() {
  // The client fibers reference the store and the recorder: unwind them first.
  for (sim::HostId host : client_hosts_) world_.Crash(host);
}

backends::ReplicatedStoreConfig StoreFuzzRun::DrawStore() {
  backends::ReplicatedStoreConfig config;
  // One run in ten a single replica, as etcd's robustness scenarios run a
  // one-member cluster beside three: it commits by its own fsync alone.
  if (options_.replicas > 0) {
    config.replicas = options_.replicas;
  } else {
    const std::int64_t size = plan_.UniformRange(0, 99);
    config.replicas = size < 10 ? 1 : size < 55 ? 3 : 5;
  }
  config.read_mode = options_.read_mode;
  config.service = {.base_ns = 200'000, .jitter_ns = 800'000};
  DrawTiming(config);
  DrawPeerLinks(config);
  config.client_attempt_timeout = Millis(200);
  config.fsync = options_.fsync >= 0 ? options_.fsync : plan_.UniformRange(Millis(1), Millis(8));
  config.reply_before_fsync = options_.reply_before_fsync;
  // Half the runs catch a lagging follower up a few entries at a time, so an
  // acknowledgement can cover entries of an older term alone (what Raft's
  // commit rule, Figure 8, is about).
  base::Prng batch = world_.MakePrng("store-fuzz/batch");
  config.append_batch_max = batch.ChancePpm(500'000) ? 64 : batch.UniformRange(1, 4);
  return config;
}

// Short timeouts, many elections in a run: half the runs the store's
// 300-600 ms; the other half an election timeout drawn from 100-400 ms (its
// range as wide again, at most), so that elections start while the peer
// links still hold messages of the last term. The heartbeat is a sixth of
// the minimum, as etcd's defaults are a tenth (100 ms, 1 s).
void StoreFuzzRun::DrawTiming(backends::ReplicatedStoreConfig& config) {
  base::Prng timing = world_.MakePrng("store-fuzz/timing");
  if (timing.ChancePpm(500'000)) {
    config.election_timeout_min = Millis(300);
    config.election_timeout_max = Millis(600);
    config.heartbeat = Millis(50);
    return;
  }
  config.election_timeout_min = timing.UniformRange(100, 400) * kNanosPerMilli;
  config.election_timeout_max = config.election_timeout_min + timing.UniformRange(Millis(20), config.election_timeout_min);
  config.heartbeat = config.election_timeout_min / 6;
}

// The peer links, as etcd's robustness tests shape member traffic through a
// proxy: a third of the runs as the network alone; the others with a long
// tail (0.5-5% of Raft messages held 0.2-2 s more: a vote or append reply
// then arrives after a new term began) and 0-3% of them delivered a second
// time up to a second later (a retried RPC).
void StoreFuzzRun::DrawPeerLinks(backends::ReplicatedStoreConfig& config) {
  base::Prng links = world_.MakePrng("store-fuzz/peer-links");
  if (links.ChancePpm(333'333)) return;
  config.peer.extra.tail_ppm = static_cast<std::uint32_t>(links.UniformRange(5'000, 50'000));
  config.peer.extra.tail_ns = links.UniformRange(200, 2000) * kNanosPerMilli;
  config.peer.redeliver_ppm = static_cast<std::uint32_t>(links.UniformRange(0, 30'000));
  config.peer.redeliver_delay_max_ns = Millis(1000);
}

void StoreFuzzRun::AddClients() {
  base::Prng clocks = world_.MakePrng("store-fuzz/clocks");
  // Record clients first (c1..), then the KV clients.
  for (int client = 1; client <= options_.record_clients + options_.clients; ++client) {
    sim::HostConfig config;
    config.name = (client <= options_.record_clients ? "c" : "kv") + std::to_string(client);
    config.monotonic_start = clocks.UniformRange(sim::Seconds(1), sim::Seconds(1'000'000));
    client_hosts_.push_back(world_.AddHost(config));
  }
  seen_.resize(client_hosts_.size());
}


// A record client's traffic, as etcd's robustness traffic mixes its
// requests: reads (40%), creates (15%) and compare-and-sets (45%) of the one
// lease record, through core's record store (core::KvRecordStore: each a
// txn on its key), each with a record no other write uses, the CAS mostly
// guarded by the version it last saw (else the one before); a short think
// time between calls.
void StoreFuzzRun::ClientLoop(int client) {
  const sim::HostId host = client_hosts_[static_cast<std::size_t>(client - 1)];
  base::Prng prng = world_.MakePrng("store-fuzz/client/" + std::to_string(client));
  core::StoreClient& store = *record_stores_[static_cast<std::size_t>(client - 1)];
  std::pair<std::int64_t, std::int64_t> seen{0, 0};  // the version seen last, and the one before
  while (world_.now() < options_.duration) {
    world_.SleepUntilLocal(world_.MonotonicNow(host) + prng.UniformRange(0, Millis(30)));
    const core::StoreResult result = RecordCall(client, prng, store, seen);
    switch (result.status) {
      case core::StoreStatus::kOk:
      case core::StoreStatus::kConflict:
        ++counts_["ops_ok"];
        if (result.current.version > 0 && result.current.version != seen.first) {
          seen = {result.current.version, seen.first};
        }
        break;
      case core::StoreStatus::kTimeout: ++counts_["ops_unknown"]; break;
      default: ++counts_["ops_failed"]; break;
    }
  }
}

core::StoreResult StoreFuzzRun::RecordCall(int client, base::Prng& prng, core::StoreClient& store,
                                           const std::pair<std::int64_t, std::int64_t>& seen) {
  const std::int64_t kind = prng.UniformRange(0, 99);
  if (kind < 40) return store.Read(kRecordKey, kCallTimeout);
  const std::int64_t value = ++values_written_;
  core::LeaseRecord record;
  record.holder = "c" + std::to_string(client) + "-" + std::to_string(value);
  record.term = value;
  record.duration_ns = sim::Seconds(1);
  if (kind < 55) return store.Create(kRecordKey, record, kCallTimeout);
  // A wrong guess is a version the record had (its versions are mod
  // revisions: one it never had might be the next write's, which the
  // record's history cannot name when the CAS is sent).
  const std::int64_t expected = prng.ChancePpm(800'000) ? seen.first : seen.second;
  return store.CompareAndSet(kRecordKey, expected, record, kCallTimeout);
}

// A KV client's traffic, as etcd's robustness traffic mixes its requests
// (etcd tests/robustness/traffic/etcd.go: get, put, delete, multi-op txns,
// compare-and-set on the mod revision, lease grant, put with a lease,
// lease revoke; plus keep-alives as clientv3 sends them): every write a
// value no other write uses, the CAS mostly guarded by the mod revision it
// last read; a short think time between calls.
void StoreFuzzRun::KvClientLoop(int client) {
  const sim::HostId host = client_hosts_[static_cast<std::size_t>(client - 1)];
  base::Prng prng = world_.MakePrng("store-fuzz/kv-client/" + std::to_string(client));
  core::KvLeaseId lease = core::kNoLease;
  while (world_.now() < options_.duration) {
    world_.SleepUntilLocal(world_.MonotonicNow(host) + prng.UniformRange(0, Millis(30)));
    KvCall(client, prng, lease);
  }
}

void StoreFuzzRun::KvCall(int client, base::Prng& prng, core::KvLeaseId& lease) {
  core::KvClient& kv = *kv_clients_[static_cast<std::size_t>(client - 1)];
  const std::int64_t kind = prng.UniformRange(0, 99);
  if (kind < 5) {
    const core::KvLeaseResult granted = kv.LeaseGrant(prng.UniformRange(300, 2000) * kNanosPerMilli, kCallTimeout);
    CountKv(granted.status);
    if (granted.status == core::KvStatus::kOk) lease = granted.id;
    return;
  }
  if (kind < 13) {
    CountKv(kv.LeaseKeepAlive(lease, kCallTimeout).status);
    return;
  }
  if (kind < 16) {
    CountKv(kv.LeaseRevoke(lease, kCallTimeout).status);
    return;
  }
  const core::KvTxnResult result = kv.Txn(DrawTxn(client, prng, lease), kCallTimeout);
  CountKv(result.status);
  if (result.status != core::KvStatus::kOk) return;
  std::map<std::string, std::int64_t>& seen = seen_[static_cast<std::size_t>(client - 1)];
  for (const core::KvResponseOp& response : result.responses) {
    for (const core::KvEntry& entry : response.kvs) seen[entry.key] = entry.mod_revision;
  }
}

// A txn of the traffic: a range (one key, or the prefix sorted by create
// revision with a limit), a put (on the client's lease a third of the
// time), a compare-and-set, a two-key txn guarded by a version, or a delete.
core::KvTxn StoreFuzzRun::DrawTxn(int client, base::Prng& prng, core::KvLeaseId lease) {
  const auto key = [&] { return "k" + std::to_string(prng.UniformRange(1, options_.keys)); };
  const std::string value = "kv" + std::to_string(client) + "-" + std::to_string(++values_written_);
  const std::int64_t kind = prng.UniformRange(0, 99);
  core::KvTxn txn;
  if (kind < 30) {
    txn.success.push_back(core::KvRequestOp::Range(core::KvKeys::Single(key())));
  } else if (kind < 40) {
    txn.success.push_back(core::KvRequestOp::Range(core::KvKeys::Prefix("k"), core::KvSortBy::kCreateRevision,
                                                   prng.UniformRange(0, 2)));
  } else if (kind < 60) {
    txn.success.push_back(core::KvRequestOp::Put(key(), value, prng.ChancePpm(330'000) ? lease : core::kNoLease));
  } else if (kind < 85) {
    const std::string guarded = key();
    const std::int64_t seen = seen_[static_cast<std::size_t>(client - 1)][guarded];
    const std::int64_t guess = prng.ChancePpm(800'000) ? seen : std::max<std::int64_t>(0, seen + prng.UniformRange(-1, 1));
    txn.compares.push_back(
        core::KvCompare{guarded, core::KvCompareTarget::kModRevision, core::KvCompareResult::kEqual, guess, {}});
    txn.success.push_back(core::KvRequestOp::Put(guarded, value));
    txn.failure.push_back(core::KvRequestOp::Range(core::KvKeys::Single(guarded)));
  } else if (kind < 93) {
    const std::string first = key();
    const std::string second = first == "k1" ? "k2" : "k1";
    txn.compares.push_back(core::KvCompare{first, core::KvCompareTarget::kVersion, core::KvCompareResult::kLess,
                                           prng.UniformRange(1, 4), {}});
    txn.success.push_back(core::KvRequestOp::Put(first, value));
    txn.success.push_back(core::KvRequestOp::Put(second, value + "b"));
    txn.failure.push_back(core::KvRequestOp::Range(core::KvKeys::Single(first)));
    txn.failure.push_back(core::KvRequestOp::Delete(core::KvKeys::Single(second)));
  } else {
    txn.success.push_back(core::KvRequestOp::Delete(core::KvKeys::Single(key())));
  }
  return txn;
}

void StoreFuzzRun::CountKv(core::KvStatus status) {
  ++counts_["kv_ops"];
  switch (status) {
    case core::KvStatus::kOk:
    case core::KvStatus::kLeaseNotFound: ++counts_["ops_ok"]; break;
    case core::KvStatus::kTimeout: ++counts_["ops_unknown"]; break;
    default: ++counts_["ops_failed"]; break;
  }
}

// The nemesis: a fault every 0.2-2.5 s (in a third of the runs every
// 0.1-0.8 s, so that faults overlap: a failover under a slow link, a crash
// during an election) until the traffic ends, each healed within 0.2-4 s
// and by the end of the traffic at the latest.
void StoreFuzzRun::PlanFaults() {
  const Nanos gap_max = plan_.ChancePpm(333'333) ? Millis(800) : Millis(2500);
  const Nanos gap_min = gap_max == Millis(800) ? Millis(100) : Millis(200);
  Nanos at = plan_.UniformRange(Millis(200), Millis(1500));
  while (at < options_.duration) {
    const auto fault = static_cast<StoreFault>(plan_.UniformRange(0, kStoreFaultKinds - 1));
    const Nanos duration = std::min(plan_.UniformRange(Millis(200), Millis(4000)), options_.duration - at);
    world_.At(at, [this, fault, duration] { Strike(fault, duration); });
    at += plan_.UniformRange(gap_min, gap_max);
  }
}

// The replica a fault strikes: the store leader half the time (a random
// replica when none leads), else any replica.
int StoreFuzzRun::Target() {
  const std::optional<int> leader = store_->Leader();
  if (leader && plan_.ChancePpm(500'000)) return *leader;
  return static_cast<int>(plan_.UniformRange(1, store_->replicas()));
}

void StoreFuzzRun::Block(sim::HostId from, sim::HostId to, Nanos duration) {
  network_->SetBlocked(from, to, true);
  world_.At(world_.now() + duration, [this, from, to] { network_->SetBlocked(from, to, false); });
}

void StoreFuzzRun::Strike(StoreFault fault, Nanos duration) {
  ++counts_[std::string("fault_") + FaultName(fault)];
  const int target = Target();
  const sim::HostId host = store_->host(target);
  world_.trace().Record(world_.now(), host, "store_fuzz_fault", static_cast<std::int64_t>(fault), duration);
  const Nanos heal = world_.now() + duration;
  switch (fault) {
    case StoreFault::kLeaderPartition: CutOff(target, true, true, duration); break;
    case StoreFault::kOneWay: {
      const bool out = plan_.ChancePpm(500'000);
      CutOff(target, out, !out, duration);
      break;
    }
    case StoreFault::kPartition: PartitionMinority(duration); break;
    case StoreFault::kClog:
      for (int other = 1; other <= store_->replicas(); ++other) {
        if (other == target) continue;
        network_->ClogUntil(host, store_->host(other), heal);
        network_->ClogUntil(store_->host(other), host, heal);
      }
      break;
    case StoreFault::kClientCut: {
      const sim::HostId client = client_hosts_[plan_.UniformBelow(client_hosts_.size())];
      Block(client, host, duration);
      Block(host, client, duration);
      break;
    }
    case StoreFault::kLeaderChurn:
    case StoreFault::kPauseMany:
    case StoreFault::kLinkClog: StrikeCluster(fault, duration); break;
    default: StrikeReplica(fault, target, duration); break;
  }
}

void StoreFuzzRun::StrikeCluster(StoreFault fault, Nanos duration) {
  switch (fault) {
    case StoreFault::kLeaderChurn: LeaderChurn(duration); break;
    case StoreFault::kPauseMany: PauseMany(); break;
    case StoreFault::kLinkClog: ClogLink(); break;
    default: assert(false && "not a cluster fault"); break;
  }
}

// Leader churn, as a member that panics at etcd's raftBeforeLeaderSend
// failpoint under a supervisor that restarts it: for the fault's duration
// every replica dies at a leader step that appended entries, before the
// appends leave, and boots again 100-1000 ms later (still armed). Half the
// faults strike the first such step (gofail's plain panic): each new
// leader's no-op is left on its own disk alone, the next leader, of a higher
// term, writes other entries at the same indexes, and the first comes back
// with a log of an older term — the order of leader changes Raft's Figure 8
// is about. The other half strike each such step with a 2-20% chance
// (gofail's `N%` term): a leader lives for a few writes, replicating some,
// truncating its followers' stale tails, and dies with others unsent, so
// leaderships are short and the replies of one arrive in the next.
void StoreFuzzRun::LeaderChurn(Nanos duration) {
  ++counts_["failpoint_before_leader_send"];
  const Nanos until = world_.now() + duration;
  const Nanos restart_after = plan_.UniformRange(100, 1000) * kNanosPerMilli;
  const bool first_step = plan_.ChancePpm(500'000);
  const auto chance = static_cast<std::uint32_t>(first_step ? base::kPpmOne : plan_.UniformRange(20'000, 200'000));
  for (int replica = 1; replica <= store_->replicas(); ++replica) {
    store_->ArmFailpoint(replica, backends::RaftFailpoint::kBeforeLeaderSend, until, restart_after, chance);
  }
}

// Jepsen's pause nemesis on a majority or on all nodes (a hypervisor or a
// shared disk stalling several members at once): the replicas are paused for
// one to three election timeouts and resumed at the same instant, so their
// overdue election timers fire together: concurrent pre-votes and
// candidacies in one term, split votes, and vote replies of a failed round
// still in flight when the next one starts.
void StoreFuzzRun::PauseMany() {
  const int n = store_->replicas();
  const int count = plan_.ChancePpm(500'000) ? n : n / 2 + 1;
  std::vector<int> order;
  for (int replica = 1; replica <= n; ++replica) order.push_back(replica);
  for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[plan_.UniformBelow(i + 1)]);
  const Nanos timeout = store_->config().election_timeout_max;
  const Nanos resume = std::min(world_.now() + plan_.UniformRange(timeout, 3 * timeout), options_.duration);
  for (int i = 0; i < count; ++i) {
    const sim::HostId host = store_->host(order[static_cast<std::size_t>(i)]);
    world_.Pause(host);
    world_.At(resume, [this, host] { world_.Unpause(host); });
  }
}

// A clogged peer link (a stalled TCP stream between two members, its bytes
// delivered in a burst when it recovers): one direction of one link, or
// both, held 1-6 s — several election timeouts — while the rest of the
// cluster goes on, then delivered at once: vote and append replies of terms
// long past reach a replica that has moved on through several elections.
void StoreFuzzRun::ClogLink() {
  const int n = store_->replicas();
  if (n < 2) return;
  // Half the time a link into the store leader: a follower's replies to it
  // (acknowledgements, votes) are the ones held.
  const std::optional<int> leader = store_->Leader();
  int to = leader && plan_.ChancePpm(500'000) ? *leader : static_cast<int>(plan_.UniformRange(1, n));
  int from = static_cast<int>(plan_.UniformRange(1, n - 1));
  if (from >= to) ++from;
  const Nanos until = std::min(world_.now() + plan_.UniformRange(1000, 6000) * kNanosPerMilli, options_.duration);
  network_->ClogUntil(store_->host(from), store_->host(to), until);
  if (plan_.ChancePpm(330'000)) network_->ClogUntil(store_->host(to), store_->host(from), until);
}

void StoreFuzzRun::StrikeReplica(StoreFault fault, int target, Nanos duration) {
  const sim::HostId host = store_->host(target);
  const Nanos heal = world_.now() + duration;
  switch (fault) {
    case StoreFault::kCrash: world_.Crash(host); break;
    case StoreFault::kPowerLoss: store_->PowerLoss(target); break;
    case StoreFault::kPause: world_.Pause(host); break;
    case StoreFault::kClockDrift: {
      const std::int64_t magnitude = plan_.UniformRange(200'000, 800'000);
      world_.SetDriftPpm(host, plan_.ChancePpm(500'000) ? magnitude : -magnitude);
      world_.At(heal, [this, host] { world_.SetDriftPpm(host, 0); });
      break;
    }
    case StoreFault::kSlowPeer: {
      const Nanos base = plan_.UniformRange(20, 200) * kNanosPerMilli;
      store_->DelayPeer(target, {.base_ns = base, .jitter_ns = 2 * base, .tail_ppm = 100'000, .tail_ns = Millis(1000)},
                        heal);
      break;
    }
    case StoreFault::kFailpoint: {
      const auto point = static_cast<backends::RaftFailpoint>(plan_.UniformRange(0, 4));
      ++counts_[std::string("failpoint_") + backends::kRaftFailpointNames.CName(point)];
      store_->ArmFailpoint(target, point, heal);
      break;
    }
    case StoreFault::kDiskStall: store_->StallDisk(target, plan_.UniformRange(20, 500) * kNanosPerMilli, heal); break;
    default: assert(false && "not a replica fault"); break;
  }
  // A replica the fault killed (a failpoint may never strike) boots again when healed.
  if (fault == StoreFault::kCrash || fault == StoreFault::kPowerLoss || fault == StoreFault::kFailpoint) {
    world_.At(heal, [this, host] { world_.Restart(host); });
  }
  if (fault == StoreFault::kPause) world_.At(heal, [this, host] { world_.Unpause(host); });
}

void StoreFuzzRun::CutOff(int target, bool out, bool in, Nanos duration) {
  const sim::HostId host = store_->host(target);
  for (int other = 1; other <= store_->replicas(); ++other) {
    if (other == target) continue;
    if (out) Block(host, store_->host(other), duration);
    if (in) Block(store_->host(other), host, duration);
  }
}

void StoreFuzzRun::PartitionMinority(Nanos duration) {
  const int n = store_->replicas();
  if (n < 3) return;  // no minority to cut off
  std::vector<sim::HostId> order;
  for (int replica = 1; replica <= n; ++replica) order.push_back(store_->host(replica));
  for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[plan_.UniformBelow(i + 1)]);
  auto minority = static_cast<std::size_t>(plan_.UniformRange(1, (n - 1) / 2));
  // Half the time the store leader's side is the minority, as large as a
  // minority gets (its zone cut off, Jepsen's majorities-ring minority with
  // the primary): it goes on appending the writes its clients send, and its
  // followers there acknowledge entries the majority side never sees.
  const std::optional<int> leader = store_->Leader();
  if (leader && plan_.ChancePpm(500'000)) {
    std::swap(order[0], *std::find(order.begin(), order.end(), store_->host(*leader)));
    minority = static_cast<std::size_t>((n - 1) / 2);
  }
  for (std::size_t a = 0; a < minority; ++a) {
    for (std::size_t b = minority; b < order.size(); ++b) {
      Block(order[a], order[b], duration);
      Block(order[b], order[a], duration);
    }
  }
}

StoreFuzzResult StoreFuzzRun::Run() {
  store_->Start();
  for (std::size_t i = 0; i < client_hosts_.size(); ++i) {
    world_.Start(client_hosts_[i]);
    const int client = static_cast<int>(i) + 1;
    if (client <= options_.record_clients) {
      world_.Spawn(client_hosts_[i], [this, client] { ClientLoop(client); });
    } else {
      world_.Spawn(client_hosts_[i], [this, client] { KvClientLoop(client); });
    }
  }
  PlanFaults();
  world_.RunUntil(options_.duration + kQuiet);
  StoreFuzzResult result;
  result.seed = seed_;
  result.trace_hash = world_.trace().hash();
  Judge(result);
  return result;
}

// As etcd's robustness suite patches a history with the requests its WAL
// persisted (tests/robustness/validate/patch_history.go,
// patchLinearizableOperations: a failed put that was never persisted is
// dropped): a KV call of unknown outcome that the store never applied had
// no effect and is marked failed, so the linearizability search need not
// try it at every point after its call. The store reports every entry's
// first application (a replica applying another entry at an index already
// applied breaks state machine safety, which the invariants report).
// Keep-alives never enter the log and stay as they are.
void StoreFuzzRun::DropUnpersisted(std::vector<checker::KvStoreOp>& ops) {
  for (checker::KvStoreOp& op : ops) {
    if (op.outcome != checker::Outcome::kUnknown || op.applied_seq >= 0) continue;
    if (op.kind == checker::KvStoreOp::Kind::kLeaseKeepAlive) continue;
    op.outcome = checker::Outcome::kFail;
    ++counts_["kv_unknown_never_applied"];
  }
}

void StoreFuzzRun::Judge(StoreFuzzResult& result) {
  const backends::RaftInvariants& invariants = store_->invariants();
  for (const std::string& violation : invariants.violations()) result.problems.push_back("raft: " + violation);
  checker::History history = recorder_->Finish({}, {});
  checker::StoreCheckOptions check;
  check.lin.budget = options_.search_budget;
  checker::Verdict verdict;
  checker::CheckStoreLinearizable(history, check, verdict);
  for (const checker::Violation& violation : verdict.violations) {
    result.problems.push_back(violation.kind + ": " + violation.message);
  }
  result.linearizability_unknown = verdict.linearizability_unknown;
  std::vector<checker::KvStoreOp> kv_ops = kv_recorder_->TakeOps();
  DropUnpersisted(kv_ops);
  const checker::LinResult kv = checker::CheckKvStore(kv_ops, check.lin);
  if (kv.verdict == checker::LinVerdict::kNotLinearizable) {
    result.problems.push_back("not_linearizable (kv): " + kv.explanation);
  }
  if (kv.verdict == checker::LinVerdict::kUnknown) result.linearizability_unknown = true;
  result.counts = counts_;
  result.counts["kv_lease_expiries"] = std::count_if(kv_ops.begin(), kv_ops.end(), [](const checker::KvStoreOp& op) {
    return op.kind == checker::KvStoreOp::Kind::kLeaseExpire;
  });
  result.counts["entries_applied"] = invariants.applied_entries();
  result.counts["invariant_checks"] = invariants.checks();
  result.counts["store_leaders_elected"] = store_->elections();
  result.counts["replicas"] = store_->replicas();
  result.counts["fsync_us"] = store_->config().fsync / 1000;
}

}  // namespace

const std::vector<std::string>& StoreFuzzFaultKinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> names;
    for (int kind = 0; kind < kStoreFaultKinds; ++kind) names.emplace_back(FaultName(static_cast<StoreFault>(kind)));
    return names;
  }();
  return kinds;
}

StoreFuzzResult RunStoreFuzz(std::uint64_t seed, const StoreFuzzOptions& options) {
  StoreFuzzRun run(seed, options);
  return run.Run();
}

}  // namespace leasesim::runner
