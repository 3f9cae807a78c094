#include "backends/replicated_store.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "backends/raft_invariants.h"
#include "backends/replica_process.h"

namespace leasesim::backends {

// --- a replica's disk ---------------------------------------------------------

void ReplicaDisk::SetTerm(std::int64_t new_term, int vote) {
  term = new_term;
  voted_for = vote;
}

void ReplicaDisk::TruncateAfter(std::int64_t last) {
  assert(last >= 0);
  const auto keep = static_cast<std::size_t>(last);
  if (keep >= log.size()) return;
  log.resize(keep);
  clean_ = std::min(clean_, keep);
}

bool ReplicaDisk::dirty() const {
  return term != synced_term_ || voted_for != synced_voted_for_ || clean_ != log.size() ||
         clean_ != synced_log_.size();
}

void ReplicaDisk::Sync() {
  synced_term_ = term;
  synced_voted_for_ = voted_for;
  synced_log_.resize(clean_);
  synced_log_.insert(synced_log_.end(), log.begin() + static_cast<std::ptrdiff_t>(clean_), log.end());
  clean_ = log.size();
}

void ReplicaDisk::LoseUnsynced() {
  term = synced_term_;
  voted_for = synced_voted_for_;
  log = synced_log_;
  clean_ = log.size();
}

// --- the store ---------------------------------------------------------------

ReplicatedStore::ReplicatedStore(sim::World& world, sim::Network& network, ReplicatedStoreConfig config,
                                 sim::Nanos wall_start)
    : world_(world),
      network_(network),
      config_(std::move(config)),
      service_prng_(world.MakePrng("store/replicated")),
      faults_(static_cast<std::size_t>(config_.replicas)),
      peer_prng_(world.MakePrng("store/peer-links")),
      failpoint_prng_(world.MakePrng("store/failpoints")),
      invariants_(std::make_unique<RaftInvariants>(config_.replicas)) {
  assert(config_.replicas >= 1);
  assert(config_.replicas <= 15);
  assert(config_.election_timeout_min > 0);
  assert(config_.election_timeout_min <= config_.election_timeout_max);
  assert(config_.heartbeat > 0);
  assert(config_.heartbeat < config_.election_timeout_min);
  assert(config_.client_attempt_timeout > 0);
  assert(config_.fsync >= 0);
  assert(config_.append_batch_max >= 1);
  base::Prng clocks = world.MakePrng("store/replica-clocks");
  disks_.resize(static_cast<std::size_t>(config_.replicas));
  for (int replica = 1; replica <= config_.replicas; ++replica) {
    sim::HostConfig host_config;
    host_config.name = "r" + std::to_string(replica);
    host_config.monotonic_start = clocks.UniformRange(sim::Seconds(1), sim::Seconds(1'000'000));
    host_config.wall_start = wall_start;
    const sim::HostId id = world_.AddHost(host_config);
    hosts_.push_back(id);
    const std::size_t index = static_cast<std::size_t>(replica - 1);
    if (index < config_.replica_region.size() && config_.replica_region[index] >= 0) {
      network_.PlaceHost(id, config_.replica_region[index]);
    }
    world_.SetBoot(id, [this, replica](sim::HostId host, std::uint64_t incarnation) {
      return std::make_unique<ReplicaProcess>(*this, replica, host, incarnation);
    });
  }
}

ReplicatedStore::~ReplicatedStore() = default;

void ReplicatedStore::PowerLoss(int replica) {
  if (world_.state(host(replica)) != sim::HostState::kCrashed) world_.Crash(host(replica));
  ReplicaDisk& lost = mutable_disk(replica);
  lost.LoseUnsynced();
  world_.trace().Record(world_.now(), host(replica), "repl_power_loss", lost.term,
                        static_cast<std::int64_t>(lost.log.size()));
  invariants_->LogChanged(world_.now(), replica, lost, 1);
  invariants_->CheckDurable(world_.now(), disks_);
}

void ReplicatedStore::Start() {
  for (sim::HostId id : hosts_) world_.Start(id);
}

int ReplicatedStore::ReplicaOfHost(sim::HostId host_id) const {
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    if (hosts_[i] == host_id) return static_cast<int>(i) + 1;
  }
  return 0;
}

ReplicaProcess* ReplicatedStore::Process(int replica) const {
  return dynamic_cast<ReplicaProcess*>(world_.process(host(replica)));
}

ReplicaRole ReplicatedStore::role(int replica) const {
  const ReplicaProcess* process = Process(replica);
  return process == nullptr ? ReplicaRole::kFollower : process->role();
}

std::int64_t ReplicatedStore::commit_index(int replica) const {
  const ReplicaProcess* process = Process(replica);
  return process == nullptr ? 0 : process->commit();
}

std::optional<int> ReplicatedStore::Leader() const {
  std::optional<int> leader;
  std::int64_t best = -1;
  for (int replica = 1; replica <= config_.replicas; ++replica) {
    if (world_.state(host(replica)) == sim::HostState::kCrashed) continue;
    if (role(replica) != ReplicaRole::kLeader) continue;
    if (disk(replica).term > best) {
      best = disk(replica).term;
      leader = replica;
    }
  }
  return leader;
}

std::optional<int> ReplicatedStore::Follower() const {
  const std::optional<int> leader = Leader();
  for (int replica = 1; replica <= config_.replicas; ++replica) {
    if (replica == leader) continue;
    if (world_.state(host(replica)) != sim::HostState::kCrashed) return replica;
  }
  return std::nullopt;
}

void ReplicatedStore::SendRaft(int from, int to, std::shared_ptr<const RaftMessage> message) {
  const PeerLinkConfig& peer = config_.peer;
  if (peer.redeliver_ppm > 0 && peer_prng_.ChancePpm(peer.redeliver_ppm)) {
    // The second copy: a retried RPC, sent again later (a new draw of the
    // links' delay; it may overtake nothing or arrive a term late).
    const sim::Nanos again = peer_prng_.UniformRange(0, peer.redeliver_delay_max_ns);
    world_.trace().Record(world_.now(), host(from), "repl_redeliver", to, again);
    Transmit(from, to, again + PeerDelay(from, to), message);
  }
  Transmit(from, to, PeerDelay(from, to), std::move(message));
}

// A message held `delay` by the peer links, then handed to the network (which
// drops it if the link is blocked then).
void ReplicatedStore::Transmit(int from, int to, sim::Nanos delay, std::shared_ptr<const RaftMessage> message) {
  auto send = [this, from, to, message = std::move(message)] {
    network_.Send(host(from), host(to), sim::kAnyIncarnation, [this, to, message] {
      if (ReplicaProcess* process = Process(to)) process->OnRaft(*message);
    });
  };
  if (delay == 0) {
    send();
    return;
  }
  world_.At(world_.now() + delay, std::move(send));
}

// Nothing is drawn while no link is shaped, so a store without shaped links
// runs exactly as before they existed.
sim::Nanos ReplicatedStore::PeerDelay(int from, int to) {
  const auto draw = [this](const sim::LatencyModel& model) {
    sim::Nanos delay = model.base_ns;
    if (model.jitter_ns > 0) delay += peer_prng_.UniformRange(0, model.jitter_ns);
    if (model.tail_ppm > 0 && peer_prng_.ChancePpm(model.tail_ppm)) delay += peer_prng_.UniformRange(0, model.tail_ns);
    return delay;
  };
  sim::Nanos delay = draw(config_.peer.extra);
  for (const int replica : {from, to}) {
    const ReplicaFaults& faults = faults_.at(static_cast<std::size_t>(replica - 1));
    if (world_.now() < faults.peer_delay_until) delay += draw(faults.peer_delay);
  }
  return delay;
}

bool ReplicatedStore::ArmFailpoint(int replica, RaftFailpoint point, sim::Nanos until, sim::Nanos restart_after_ns,
                                   std::uint32_t chance_ppm) {
  assert(restart_after_ns >= 0);
  assert(chance_ppm >= 1);
  assert(chance_ppm <= base::kPpmOne);
  if (world_.state(host(replica)) == sim::HostState::kCrashed) return false;
  ReplicaFaults& faults = faults_.at(static_cast<std::size_t>(replica - 1));
  faults.failpoint = point;
  faults.failpoint_until = until;
  faults.failpoint_restart_after_ns = restart_after_ns;
  faults.failpoint_chance_ppm = chance_ppm;
  world_.trace().Record(world_.now(), host(replica), "repl_failpoint_armed", static_cast<std::int64_t>(point), until);
  return true;
}

void ReplicatedStore::StallDisk(int replica, sim::Nanos extra, sim::Nanos until) {
  assert(extra >= 0);
  ReplicaFaults& faults = faults_.at(static_cast<std::size_t>(replica - 1));
  faults.disk_stall = extra;
  faults.disk_stall_until = until;
}

void ReplicatedStore::DelayPeer(int replica, sim::LatencyModel extra, sim::Nanos until) {
  ReplicaFaults& faults = faults_.at(static_cast<std::size_t>(replica - 1));
  faults.peer_delay = extra;
  faults.peer_delay_until = until;
}

bool ReplicatedStore::FailpointHit(int replica, RaftFailpoint point) {
  ReplicaFaults& faults = faults_.at(static_cast<std::size_t>(replica - 1));
  if (faults.failpoint != point) return false;
  if (world_.now() >= faults.failpoint_until) {
    faults.failpoint.reset();
    return false;
  }
  const std::uint32_t chance = faults.failpoint_chance_ppm;
  if (chance < base::kPpmOne && !failpoint_prng_.ChancePpm(chance)) return false;  // still armed
  faults.failpoint.reset();
  world_.trace().Record(world_.now(), host(replica), "repl_failpoint", static_cast<std::int64_t>(point));
  // The replica is inside its step: it halts now and dies in an event of its
  // own, so nothing of the step outlives the failpoint.
  world_.At(world_.now(), [this, replica, point] {
    if (point == RaftFailpoint::kBeforeSave) {
      PowerLoss(replica);
    } else if (world_.state(host(replica)) != sim::HostState::kCrashed) {
      world_.Crash(host(replica));
    }
  });
  if (faults.failpoint_restart_after_ns > 0) {
    const sim::Nanos until = faults.failpoint_until;
    const sim::Nanos restart_after = faults.failpoint_restart_after_ns;
    world_.At(world_.now() + restart_after, [this, replica, point, until, restart_after, chance] {
      world_.Restart(host(replica));
      if (world_.now() < until) ArmFailpoint(replica, point, until, restart_after, chance);
    });
  }
  return true;
}

sim::Nanos ReplicatedStore::FsyncLatency(int replica) const {
  const ReplicaFaults& faults = faults_.at(static_cast<std::size_t>(replica - 1));
  return config_.fsync + (world_.now() < faults.disk_stall_until ? faults.disk_stall : 0);
}

sim::Nanos ReplicatedStore::DrawService() {
  const sim::LatencyModel& model = config_.service;
  sim::Nanos latency = model.base_ns;
  if (model.jitter_ns > 0) latency += service_prng_.UniformRange(0, model.jitter_ns);
  if (model.tail_ppm > 0 && service_prng_.ChancePpm(model.tail_ppm)) {
    latency += service_prng_.UniformRange(0, model.tail_ns);
  }
  return latency;
}

void ReplicatedStore::EntryApplied(std::int64_t index, const ReplicaLogEntry& entry, bool first_for_op,
                                   const KvReply* kv_reply, const KvExpiry* expiry) {
  if (index <= highest_applied_index_) return;  // another replica applied it first
  highest_applied_index_ = index;
  if (entry.noop || !first_for_op) return;
  assert(entry.kv != nullptr);
  if (entry.expiry) {
    world_.trace().Record(world_.now(), -1, "repl_kv_expire", entry.kv->lease, index);
  } else {
    world_.trace().Record(world_.now(), -1, "repl_kv_commit", entry.kv->op, index);
  }
  if (kv_observer_ == nullptr) return;
  // A lessor's revoke of a lease already gone (a client revoked it, or an
  // earlier proposal ended it) changed nothing: not an expiry.
  if (entry.expiry) {
    if (expiry != nullptr) kv_observer_->KvLeaseExpiredAt(*expiry, index * kReadSlots);
    return;
  }
  assert(kv_reply != nullptr);
  kv_observer_->KvAppliedAt(entry.kv->op, *kv_reply, index * kReadSlots);
}

void ReplicatedStore::UseKvObserver(KvObserver& observer) {
  assert(kv_observer_ == nullptr || kv_observer_ == &observer);
  kv_observer_ = &observer;
}

const KvState* ReplicatedStore::KvLocal(int replica) const {
  const ReplicaProcess* process = Process(replica);
  return process == nullptr ? nullptr : &process->kv_state();
}

bool ClientRequest::KvReadOnly() const {
  if (kv == nullptr || kv->kind != KvRequest::Kind::kTxn) return false;
  const auto range = [](const core::KvRequestOp& op) { return op.kind == core::KvRequestOp::Kind::kRange; };
  return std::all_of(kv->txn.success.begin(), kv->txn.success.end(), range) &&
         std::all_of(kv->txn.failure.begin(), kv->txn.failure.end(), range);
}

bool ClientRequest::IsRead() const {
  return watch != nullptr || KvReadOnly();
}

std::int64_t ReplicatedStore::NextReadSeq(std::int64_t applied_index) {
  std::int64_t& count = reads_at_index_[applied_index];
  if (count + 1 >= kReadSlots) return -1;  // no place left: the checker searches instead
  count += 1;
  return applied_index * kReadSlots + count;
}

int ReplicatedStore::NearestReplica(sim::HostId client) const {
  auto cached = nearest_.find(client);
  if (cached != nearest_.end()) return cached->second;
  int best = 1;
  sim::Nanos best_latency = sim::kNeverNanos;
  for (int replica = 1; replica <= config_.replicas; ++replica) {
    const sim::LatencyModel& model = network_.LatencyBetween(client, host(replica));
    const sim::Nanos expected = model.base_ns + model.jitter_ns / 2;
    if (expected < best_latency) {
      best_latency = expected;
      best = replica;
    }
  }
  const_cast<ReplicatedStore*>(this)->nearest_[client] = best;
  return best;
}

void ReplicatedStore::AddFigures(std::map<std::string, std::int64_t>& figures) const {
  figures_.AddTo(figures, config_.read_mode == ReadMode::kUnsafe);
}

}  // namespace leasesim::backends
