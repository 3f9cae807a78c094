#pragma once
// A replicated, quorum-based coordination store in the simulated world: N
// replicas, each on a host of its own, elect a store leader by majority vote
// in terms of their own (with pre-vote and check-quorum, as etcd runs Raft),
// replicate every write through a log and commit it on a majority, and serve
// reads either linearizably (the leader confirms with a quorum that it still
// leads — the read index — before answering) or, in the unsafe mode, from
// whichever replica the client asks, out of its own state (the stale-read
// mistake). Replica traffic travels over the simulated network, so
// partitions, loss and region latency apply to it as to any message.
//
// What each replica keeps on disk (term, vote, log) survives a process
// crash, and what its fsyncs made durable survives a power loss (ReplicaDisk);
// what it keeps in memory (commit index, state machine, leader bookkeeping)
// does not, and is rebuilt from the log once the leader tells it what is
// committed. Every operation is applied at most once: the state machine
// remembers each request id's result, so a client may resend a request to
// the next store leader after a failover.
//
// The replicated state machine is the KV store of core::KvClient (KvState:
// revisions, txns, ranges, watches, TTL leases), served to client hosts by
// ReplicatedKvClient (core's record store is core::KvRecordStore over one)
// and recorded through a KvObserver at the store's own places: the commit
// order (log index · 2^20 for a logged op; reads served at applied index k
// take k · 2^20 + 1, + 2, ...). TTL leases are etcd's: only the leader's lessor expires them,
// on its host's monotonic clock, by proposing a revoke through the log; a
// new leader restarts every TTL (docs/STORE_MODEL.md, "The replicated store").

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/kv_state.h"
#include "backends/replicated_figures.h"
#include "base/enum_names.h"
#include "backends/sim_kv_server.h"
#include "backends/sim_services.h"
#include "core/env.h"
#include "sim/network.h"
#include "base/prng.h"
#include "base/units.h"
#include "sim/world.h"

namespace leasesim::backends {

enum class ReadMode {
  kLinearizable,  // the leader answers after confirming its leadership with a quorum
  kUnsafe,        // any replica answers from its own state: may be stale
};
inline constexpr base::EnumNames<ReadMode, 2> kReadModeNames{
    {{ReadMode::kLinearizable, "linearizable"}, {ReadMode::kUnsafe, "unsafe"}}};

// The replicas' peer links, shaped on top of the network's own latency, loss
// and blocks as etcd's robustness tests shape the traffic between members
// through a proxy (etcd tests/robustness/failpoint/network.go: delayed,
// dropped and blackholed peer traffic): a long tail of extra delay, so that
// a reply of an older term can arrive after a new term began, and messages
// delivered a second time later on, as a retried RPC is. All zero (the
// default): Raft traffic travels exactly as any other message and nothing is
// drawn.
struct PeerLinkConfig {
  sim::LatencyModel extra;                // added to every Raft message's latency
  std::uint32_t redeliver_ppm = 0;        // chance a message is delivered again ...
  sim::Nanos redeliver_delay_max_ns = 0;  // ... up to this much after the first copy was sent
};

// Where in a replica's step a failpoint kills it, as etcd's robustness tests
// arm gofail failpoints in its raft loop (etcd server/etcdserver/raft.go:
// raftBeforeSave, raftAfterSave, raftBeforeLeaderSend/raftBeforeFollowerSend;
// tests/robustness/failpoint/gofail.go panics there). A step is one input a
// replica takes, or the batch of inputs that queued during an fsync
// (docs/REPLICATED_STORE.md "The disk").
enum class RaftFailpoint {
  kBeforeSave,  // the step wrote: the replica loses power before the fsync (its writes are gone)
  kAfterSave,   // the step's fsync completed: the process dies before the messages leave
  kAfterApply,  // the step applied committed entries: dies before its messages leave
  kBeforeSend,  // the step has messages to send: dies before they leave
  // A leader's step appended entries (its term's no-op, a client's write, a
  // lessor's revoke) and synced them: it dies before the appends carrying
  // them leave (etcd's raftBeforeLeaderSend), so they stay on its disk alone.
  kBeforeLeaderSend,
};
inline constexpr base::EnumNames<RaftFailpoint, 5> kRaftFailpointNames{
    {{RaftFailpoint::kBeforeSave, "before_save"},
     {RaftFailpoint::kAfterSave, "after_save"},
     {RaftFailpoint::kAfterApply, "after_apply"},
     {RaftFailpoint::kBeforeSend, "before_send"},
     {RaftFailpoint::kBeforeLeaderSend, "before_leader_send"}}};

struct ReplicatedStoreConfig {
  int replicas = 3;
  ReadMode read_mode = ReadMode::kLinearizable;
  // Time a replica takes to handle a client request before acting on it.
  sim::LatencyModel service;
  // A follower that hears from no leader for a uniform [min, max] draw of
  // its own clock starts an election; the leader sends a heartbeat (an empty
  // append) every `heartbeat` and steps down when a majority has not
  // answered for `election_timeout_min` (check-quorum).
  sim::Nanos election_timeout_min = sim::Millis(1000);
  sim::Nanos election_timeout_max = sim::Millis(2000);
  sim::Nanos heartbeat = sim::Millis(100);
  // A client resends a request to the next replica when it hears nothing
  // for this long (its call's own timeout still bounds the whole call).
  sim::Nanos client_attempt_timeout = sim::Millis(400);
  // 1-based replica whose first election timeout is the shortest, so that
  // it (very likely) becomes the first store leader; 0 = none.
  int initial_leader = 0;
  // Region of each replica (index 0 = replica 1); empty or -1 = not placed.
  std::vector<int> replica_region;
  // Entries one append carries at most (etcd raft's Config.MaxSizePerMsg,
  // counted in entries): a follower far behind catches up in several.
  std::int64_t append_batch_max = 64;
  // How long one fsync of a replica's disk takes. 0: a replica's writes are
  // durable at the end of the step that made them (nothing is ever lost);
  // above 0, a replica that wrote holds the messages that depend on the
  // write, and takes no new input, until the fsync completes (then it takes
  // the inputs that arrived meanwhile as one batch, with one fsync), and a
  // power loss (PowerLoss) drops what was not yet synced.
  sim::Nanos fsync = 0;
  // The mistake on purpose (false): a replica sends its replies without
  // waiting for the fsync, so a power loss can take back an acknowledged
  // append or a granted vote.
  bool reply_before_fsync = false;
  // The replicas' peer links (none shaped by default).
  PeerLinkConfig peer;
  // The KV state machine (its compaction window).
  KvStateConfig kv_state;
  // The leader's lessor loop: how often it looks for leases past their TTL
  // (etcd server/lease/lessor.go runLoop: every 500 ms), and how long it
  // waits before proposing the revoke of a lease it already proposed
  // (expiredLeaseRetryInterval, 3 s).
  sim::Nanos lessor_period = sim::Millis(500);
  sim::Nanos lessor_retry = sim::Seconds(3);
};

enum class ReplicaRole { kFollower, kPreCandidate, kCandidate, kLeader };
inline constexpr base::EnumNames<ReplicaRole, 4> kReplicaRoleNames{{{ReplicaRole::kFollower, "follower"},
                                                                    {ReplicaRole::kPreCandidate, "pre-candidate"},
                                                                    {ReplicaRole::kCandidate, "candidate"},
                                                                    {ReplicaRole::kLeader, "leader"}}};
inline const char* ReplicaRoleName(ReplicaRole role) { return kReplicaRoleNames.CName(role); }

struct ReplicaLogEntry {
  std::int64_t term = 0;
  bool noop = false;      // the entry a new leader appends to commit its term
  // The KV request (txn, lease grant, revoke; null in a no-op), shared: the
  // entry is copied to every follower. Keep-alives never enter the log (etcd
  // renews on the leader alone).
  std::shared_ptr<const KvRequest> kv;
  // kv is the leader's lessor revoking a lease whose TTL ran out on its
  // clock (etcd revokeExpiredLeases proposes a LeaseRevoke), not a client's.
  bool expiry = false;
};

// What a client asks a replica: a KV request or a KV watch (exactly one set).
struct ClientRequest {
  std::shared_ptr<const KvRequest> kv;
  std::shared_ptr<const KvWatchRequest> watch;
  // A KV txn with nothing but ranges: served through the read index, not the log.
  bool KvReadOnly() const;
  bool IsRead() const;
};

// A replica's disk: term, vote and log as the replica last wrote them (a
// process crash keeps these: the OS page cache outlives the process), and
// what its last fsync made durable (all a power loss keeps, as LazyFS's
// clear-cache drops every write not yet fsynced). The replica writes through
// the methods so the disk knows what is not yet durable.
struct ReplicaDisk {
  std::int64_t term = 0;
  int voted_for = 0;  // 1-based replica; 0 = none this term
  std::vector<ReplicaLogEntry> log;  // log[i] is entry i+1

  void SetTerm(std::int64_t new_term, int vote);
  void Append(ReplicaLogEntry entry) { log.push_back(std::move(entry)); }
  // Drops entries after `last` (a conflict with the leader's log).
  void TruncateAfter(std::int64_t last);
  // Something written since the last Sync.
  bool dirty() const;
  // fsync: everything written is durable.
  void Sync();
  // A power loss: whatever was written since the last Sync is gone.
  void LoseUnsynced();
  // How many of the log's first entries are on stable storage as they are.
  std::int64_t synced_prefix() const { return static_cast<std::int64_t>(clean_); }
  std::int64_t synced_term() const { return synced_term_; }
  int synced_voted_for() const { return synced_voted_for_; }
  const std::vector<ReplicaLogEntry>& synced_log() const { return synced_log_; }

 private:
  std::int64_t synced_term_ = 0;
  int synced_voted_for_ = 0;
  std::vector<ReplicaLogEntry> synced_log_;
  // log[0, clean_) is the same as synced_log_[0, clean_): a sync copies
  // only from there on.
  std::size_t clean_ = 0;
};

struct RaftMessage;
struct ClientAnswer;
class RaftInvariants;    // backends/raft_invariants.h
class ReplicaProcess;   // one replica: backends/replica_process.h
class ReplicatedCall;   // one client call: backends/replicated_client.cc

// The store as a whole: its replicas' hosts and disks, the client side of a
// call (KvCall, WatchCall), and what the history and the figures record.
class ReplicatedStore {
 public:
  static constexpr std::int64_t kReadSlots = std::int64_t{1} << 20;

  // Adds one host per replica ("r1", "r2", ...) to the world and places it
  // in its region; Start() boots them.
  ReplicatedStore(sim::World& world, sim::Network& network, ReplicatedStoreConfig config, sim::Nanos wall_start = 0);
  ~ReplicatedStore();
  ReplicatedStore(const ReplicatedStore&) = delete;
  ReplicatedStore& operator=(const ReplicatedStore&) = delete;

  void Start();

  const ReplicatedStoreConfig& config() const { return config_; }
  int replicas() const { return config_.replicas; }
  sim::HostId host(int replica) const { return hosts_.at(static_cast<std::size_t>(replica - 1)); }
  // The replica a host runs, 0 when none.
  int ReplicaOfHost(sim::HostId host) const;

  // The replica that leads now (an up or paused leader in the highest term), if any.
  std::optional<int> Leader() const;
  // The lowest-numbered replica that is not crashed and does not lead.
  std::optional<int> Follower() const;

  // One KV call, from a fiber on `client` (ReplicatedKvClient): finds the
  // store leader (redirects, rotation on silence), resends after a failover,
  // and returns the result, status kUnavailable when the store definitely
  // did not apply it, kTimeout when it may have.
  KvReply KvCall(sim::HostId client, KvRequest request, core::Nanos timeout);
  // One long-polled watch, served by the store leader from its applied state.
  core::KvWatchResult WatchCall(sim::HostId client, KvWatchRequest request, core::Nanos timeout);
  // Where the KV store's applications and lease expiries are reported (one
  // observer for the store; its clients report their calls to it too).
  void UseKvObserver(KvObserver& observer);

  // A power loss on the replica: it dies, and its disk keeps only what its
  // last fsync made durable (Restart boots it again).
  void PowerLoss(int replica);
  // A failpoint on the replica: the first of its steps that reaches `point`
  // before `until` (true time) kills it there, and the replica stays down
  // until restarted. Needs fsync > 0 (with fsync = 0 a step's messages are
  // not held). Returns false when the replica is down.
  // With `restart_after_ns` above 0 the replica is in a crash loop: each
  // time the failpoint kills it, it boots again that much later with the
  // failpoint armed again, until `until` (a supervisor restarting a member
  // that keeps panicking at the same point). `chance_ppm` below a million:
  // each step that reaches the point dies there only with that chance
  // (gofail's `N%` terms), else goes on with the failpoint still armed.
  bool ArmFailpoint(int replica, RaftFailpoint point, sim::Nanos until, sim::Nanos restart_after_ns = 0,
                    std::uint32_t chance_ppm = base::kPpmOne);
  // A slow disk: the replica's fsyncs take `extra` longer until `until`
  // (etcd's raftBeforeSave/raftAfterSave sleep failpoints).
  void StallDisk(int replica, sim::Nanos extra, sim::Nanos until);
  // A slow peer link: every Raft message out of or into the replica takes a
  // draw of `extra` longer until `until` (etcd's DelayPeerNetwork).
  void DelayPeer(int replica, sim::LatencyModel extra, sim::Nanos until);
  // Raft's safety properties, checked as the replicas run.
  const RaftInvariants& invariants() const { return *invariants_; }

  // Figures: store elections and election time, client-observed
  // unavailability, request latency (all integers, ms where named so).
  void AddFigures(std::map<std::string, std::int64_t>& figures) const;

  // --- introspection, for tests ----------------------------------------------
  ReplicaRole role(int replica) const;
  std::int64_t term(int replica) const { return disk(replica).term; }
  std::int64_t commit_index(int replica) const;
  const ReplicaDisk& disk(int replica) const { return disks_.at(static_cast<std::size_t>(replica - 1)); }
  // The replica's KV state machine (nullptr when crashed).
  const KvState* KvLocal(int replica) const;
  std::int64_t elections() const { return figures_.elections(); }

 private:
  friend class ReplicaProcess;
  friend class ReplicatedCall;

  ReplicaProcess* Process(int replica) const;
  ReplicaDisk& mutable_disk(int replica) { return disks_.at(static_cast<std::size_t>(replica - 1)); }
  // Sends a Raft message between replicas over the network, through the
  // shaped peer links (config.peer, DelayPeer).
  void SendRaft(int from, int to, std::shared_ptr<const RaftMessage> message);
  void Transmit(int from, int to, sim::Nanos delay, std::shared_ptr<const RaftMessage> message);
  sim::Nanos PeerDelay(int from, int to);
  // A replica's step reached `point`: true when an armed failpoint kills it
  // there (the kill runs as an event of its own; the replica halts at once).
  bool FailpointHit(int replica, RaftFailpoint point);
  sim::Nanos FsyncLatency(int replica) const;
  // A replica's time to handle one client request (config.service).
  sim::Nanos DrawService();
  // A replica applied committed entry `index` (first time anywhere: recorded):
  // for a KV entry, with its reply and, for a lessor's revoke, the lease it ended.
  void EntryApplied(std::int64_t index, const ReplicaLogEntry& entry, bool first_for_op,
                    const KvReply* kv_reply = nullptr, const KvExpiry* expiry = nullptr);
  std::int64_t NextReadSeq(std::int64_t applied_index);
  int NearestReplica(sim::HostId client) const;

  struct ClientStats {
    std::uint64_t incarnation = 0;
    int leader_hint = 0;
    sim::Nanos outage_since = -1;  // true time of the first failed call since the last success
  };

  sim::World& world_;
  sim::Network& network_;
  ReplicatedStoreConfig config_;
  KvObserver* kv_observer_ = nullptr;
  base::Prng service_prng_;
  std::vector<sim::HostId> hosts_;
  std::vector<ReplicaDisk> disks_;
  std::int64_t highest_applied_index_ = 0;
  std::map<std::int64_t, std::int64_t> reads_at_index_;
  std::map<sim::HostId, ClientStats> clients_;
  std::map<sim::HostId, int> nearest_;  // cache: client host -> replica

  // Per replica (index 0 = replica 1): the shaped links and the faults armed on it.
  struct ReplicaFaults {
    std::optional<RaftFailpoint> failpoint;
    sim::Nanos failpoint_until = 0;
    sim::Nanos failpoint_restart_after_ns = 0;  // 0: a struck replica stays down
    std::uint32_t failpoint_chance_ppm = base::kPpmOne;
    sim::Nanos disk_stall = 0;
    sim::Nanos disk_stall_until = 0;
    sim::LatencyModel peer_delay;
    sim::Nanos peer_delay_until = 0;
  };
  std::vector<ReplicaFaults> faults_;
  base::Prng peer_prng_;
  base::Prng failpoint_prng_;  // drawn only for failpoints armed with a chance

  ReplicatedStoreFigures figures_;
  std::unique_ptr<RaftInvariants> invariants_;
};

// core::KvClient for tasks (fibers) on a client host, served by the
// replicated store: each call finds the store leader and resends to the
// next replica on silence (ReplicatedStore::KvCall); its calls are
// reported to the store's KvObserver.
class ReplicatedKvClient final : public KvRequestClient {
 public:
  // `process`: the incarnation's identity, for the history.
  ReplicatedKvClient(ReplicatedStore& store, sim::HostId host, int node, std::string process, KvObserver& observer);

  core::KvWatchResult Watch(const core::KvKeys& keys, std::int64_t start_revision, core::Nanos timeout) override;

 private:
  KvReply Call(KvRequest request, core::Nanos timeout) override;

  ReplicatedStore& store_;
  sim::HostId host_;
  int node_;
  std::string process_;
  KvObserver& observer_;
};

}  // namespace leasesim::backends
