#include "backends/replicated_store.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <set>
#include <utility>

namespace leasesim::backends {

struct RaftMessage {
  enum class Type { kPreVote, kPreVoteReply, kVote, kVoteReply, kAppend, kAppendReply };
  Type type = Type::kAppend;
  int from = 0;
  std::int64_t term = 0;
  // (pre)vote: the candidate's log; pre-vote: `proposed` is the term it would stand in.
  std::int64_t last_log_index = 0;
  std::int64_t last_log_term = 0;
  std::int64_t proposed = 0;
  bool granted = false;
  // append
  std::int64_t prev_index = 0;
  std::int64_t prev_term = 0;
  std::int64_t commit = 0;
  std::vector<ReplicaLogEntry> entries;
  std::int64_t round = 0;  // the leader's heartbeat round; echoed in the reply
  // append reply
  bool success = false;
  std::int64_t match = 0;  // success: last index matched; failure: where to retry from
};

struct ClientAnswer {
  enum class Kind {
    kResult,     // the operation's result
    kNotLeader,  // not applied here; `hint` leads, if known
    kRetry,      // this leader stepped down with the request pending: may yet commit; resend elsewhere
  };
  Kind kind = Kind::kResult;
  int hint = 0;
  core::StoreResult result;
  std::int64_t read_seq = -1;  // a read's place in the applied order
};

// One replica incarnation's memory. Event-driven: messages and timers run
// on the replica's host while this incarnation lives.
class ReplicaProcess final : public sim::ProcessState {
 public:
  using Route = std::function<void(const ClientAnswer&)>;

  ReplicaProcess(ReplicatedStore& store, int replica, sim::HostId host, std::uint64_t incarnation)
      : store_(store),
        me_(replica),
        host_(host),
        incarnation_(incarnation),
        prng_(store.world_.MakePrng("store/replica/" + std::to_string(replica) + "/" +
                                    std::to_string(incarnation))) {
    const int n = store_.replicas();
    next_.assign(static_cast<std::size_t>(n + 1), 1);
    match_.assign(static_cast<std::size_t>(n + 1), 0);
    acked_round_.assign(static_cast<std::size_t>(n + 1), 0);
    last_ack_.assign(static_cast<std::size_t>(n + 1), 0);
    const ReplicatedStoreConfig& config = store_.config();
    if (incarnation == 1 && config.initial_leader == me_) {
      ArmElection(config.election_timeout_min / 2);
    } else {
      ArmElection(RandomElectionTimeout());
    }
  }

  ReplicaRole role() const { return role_; }
  std::int64_t commit() const { return commit_; }
  std::int64_t applied() const { return applied_; }
  const LeaseStore& state_machine() const { return sm_; }

  // A client request arrived: act on it after the service time.
  void OnClientArrival(const StoreRequest& request, Route route) {
    const sim::Nanos at = store_.world_.now() + store_.DrawService();
    sim::World& world = store_.world_;
    world.At(at, [this, &world, request, route = std::move(route)]() mutable {
      world.RunOnHost(host_, incarnation_, [this, request, route = std::move(route)] {
        HandleClient(request, route);
      });
    });
  }

  void OnRaft(const RaftMessage& m) {
    switch (m.type) {
      case RaftMessage::Type::kPreVote: OnPreVote(m); break;
      case RaftMessage::Type::kPreVoteReply: OnPreVoteReply(m); break;
      case RaftMessage::Type::kVote: OnVote(m); break;
      case RaftMessage::Type::kVoteReply: OnVoteReply(m); break;
      case RaftMessage::Type::kAppend: OnAppend(m); break;
      case RaftMessage::Type::kAppendReply: OnAppendReply(m); break;
    }
  }

 private:
  static constexpr std::size_t kBatchMax = 64;

  ReplicaDisk& disk() { return store_.mutable_disk(me_); }
  std::int64_t LastIndex() { return static_cast<std::int64_t>(disk().log.size()); }
  std::int64_t TermAt(std::int64_t index) {
    if (index <= 0 || index > LastIndex()) return 0;
    return disk().log[static_cast<std::size_t>(index - 1)].term;
  }
  int Majority() const { return store_.replicas() / 2 + 1; }
  sim::Nanos Local() const { return store_.world_.clock(host_).Monotonic(store_.world_.now()); }
  sim::Nanos RandomElectionTimeout() {
    const ReplicatedStoreConfig& config = store_.config();
    return prng_.UniformRange(config.election_timeout_min, config.election_timeout_max);
  }
  void Trace(const char* what, std::int64_t a = 0, std::int64_t b = 0) {
    store_.world_.trace().Record(store_.world_.now(), host_, what, a, b);
  }

  void ArmElection(sim::Nanos delay) {
    const std::uint64_t generation = ++election_generation_;
    store_.world_.AtLocal(host_, incarnation_, Local() + delay, [this, generation] {
      if (generation == election_generation_) OnElectionTimeout();
    });
  }

  void ArmHeartbeat() {
    const std::uint64_t generation = ++heartbeat_generation_;
    store_.world_.AtLocal(host_, incarnation_, Local() + store_.config().heartbeat, [this, generation] {
      if (generation == heartbeat_generation_) OnHeartbeat();
    });
  }

  void Send(int to, RaftMessage message) {
    message.from = me_;
    store_.SendRaft(me_, to, std::make_shared<const RaftMessage>(std::move(message)));
  }

  bool UpToDate(const RaftMessage& m) {
    const std::int64_t my_last_term = TermAt(LastIndex());
    if (m.last_log_term != my_last_term) return m.last_log_term > my_last_term;
    return m.last_log_index >= LastIndex();
  }

  bool HeardFromLeaderRecently() const {
    if (role_ == ReplicaRole::kLeader) return true;
    return leader_hint_ != 0 && Local() - last_leader_contact_ < store_.config().election_timeout_min;
  }

  // --- elections -------------------------------------------------------------
  void OnElectionTimeout() {
    if (role_ == ReplicaRole::kLeader) return;
    // Pre-vote first: a replica cut off from the others must not bump the
    // term and depose a healthy leader when it comes back.
    role_ = ReplicaRole::kPreCandidate;
    leader_hint_ = 0;
    votes_.clear();
    votes_.insert(me_);
    Trace("repl_prevote", disk().term + 1);
    for (int peer = 1; peer <= store_.replicas(); ++peer) {
      if (peer == me_) continue;
      RaftMessage m;
      m.type = RaftMessage::Type::kPreVote;
      m.term = disk().term;
      m.proposed = disk().term + 1;
      m.last_log_index = LastIndex();
      m.last_log_term = TermAt(LastIndex());
      Send(peer, std::move(m));
    }
    ArmElection(RandomElectionTimeout());
    if (static_cast<int>(votes_.size()) >= Majority()) StartElection();
  }

  void StartElection() {
    disk().term += 1;
    disk().voted_for = me_;
    role_ = ReplicaRole::kCandidate;
    votes_.clear();
    votes_.insert(me_);
    Trace("repl_candidate", disk().term);
    for (int peer = 1; peer <= store_.replicas(); ++peer) {
      if (peer == me_) continue;
      RaftMessage m;
      m.type = RaftMessage::Type::kVote;
      m.term = disk().term;
      m.last_log_index = LastIndex();
      m.last_log_term = TermAt(LastIndex());
      Send(peer, std::move(m));
    }
    ArmElection(RandomElectionTimeout());
    if (static_cast<int>(votes_.size()) >= Majority()) BecomeLeader();
  }

  void OnPreVote(const RaftMessage& m) {
    RaftMessage reply;
    reply.type = RaftMessage::Type::kPreVoteReply;
    reply.term = disk().term;
    reply.proposed = m.proposed;
    reply.granted = m.proposed > disk().term && !HeardFromLeaderRecently() && UpToDate(m);
    Send(m.from, std::move(reply));
  }

  void OnPreVoteReply(const RaftMessage& m) {
    if (m.term > disk().term && !m.granted) {
      BecomeFollower(m.term);
      return;
    }
    if (role_ != ReplicaRole::kPreCandidate || m.proposed != disk().term + 1 || !m.granted) return;
    votes_.insert(m.from);
    if (static_cast<int>(votes_.size()) >= Majority()) StartElection();
  }

  void OnVote(const RaftMessage& m) {
    RaftMessage reply;
    reply.type = RaftMessage::Type::kVoteReply;
    if (m.term > disk().term) BecomeFollower(m.term);
    if (m.term == disk().term && (disk().voted_for == 0 || disk().voted_for == m.from) && UpToDate(m)) {
      disk().voted_for = m.from;
      reply.granted = true;
      ArmElection(RandomElectionTimeout());
    }
    reply.term = disk().term;
    Send(m.from, std::move(reply));
  }

  void OnVoteReply(const RaftMessage& m) {
    if (m.term > disk().term) {
      BecomeFollower(m.term);
      return;
    }
    if (role_ != ReplicaRole::kCandidate || m.term != disk().term || !m.granted) return;
    votes_.insert(m.from);
    if (static_cast<int>(votes_.size()) >= Majority()) BecomeLeader();
  }

  void BecomeLeader() {
    assert(role_ == ReplicaRole::kCandidate);
    role_ = ReplicaRole::kLeader;
    leader_hint_ = me_;
    ++election_generation_;  // the election timer is off while leading
    const sim::Nanos now = Local();
    for (int peer = 1; peer <= store_.replicas(); ++peer) {
      next_[static_cast<std::size_t>(peer)] = LastIndex() + 1;
      match_[static_cast<std::size_t>(peer)] = 0;
      acked_round_[static_cast<std::size_t>(peer)] = 0;
      last_ack_[static_cast<std::size_t>(peer)] = now;  // grace until the first check-quorum
    }
    // A no-op of this term: committing it commits everything before it and
    // tells this leader what is committed (needed before serving reads).
    disk().log.push_back(ReplicaLogEntry{disk().term, true, {}});
    term_start_index_ = LastIndex();
    Trace("repl_leader", disk().term, LastIndex());
    store_.LeaderElected(me_, disk().term);
    Broadcast();
    ArmHeartbeat();
  }

  // A higher term was seen, or this leader lost its quorum, or a leader of
  // this term exists: follow.
  void BecomeFollower(std::int64_t term) {
    if (term > disk().term) {
      disk().term = term;
      disk().voted_for = 0;
    }
    if (role_ == ReplicaRole::kLeader) StepDown();
    if (role_ != ReplicaRole::kFollower) {
      role_ = ReplicaRole::kFollower;
      ArmElection(RandomElectionTimeout());
    }
  }

  void StepDown() {
    Trace("repl_step_down", disk().term);
    role_ = ReplicaRole::kFollower;
    leader_hint_ = 0;
    ++heartbeat_generation_;
    // Reads have no effect: refuse them. Pending writes may still commit
    // under the next leader: the client must resend (applied at most once).
    std::vector<PendingRead> reads = std::move(reads_);
    reads_.clear();
    for (PendingRead& read : reads) read.route(ClientAnswer{ClientAnswer::Kind::kNotLeader, 0, {}, -1});
    std::map<std::int64_t, Route> waiting = std::move(waiting_);
    waiting_.clear();
    for (auto& [op, route] : waiting) route(ClientAnswer{ClientAnswer::Kind::kRetry, 0, {}, -1});
    round_sent_at_.clear();
    ArmElection(RandomElectionTimeout());
  }

  // --- replication -----------------------------------------------------------
  void OnHeartbeat() {
    if (role_ != ReplicaRole::kLeader) return;
    // Check-quorum: a leader a majority has not answered for an election
    // timeout steps down, so a minority side refuses clients at once.
    int live = 1;
    const sim::Nanos now = Local();
    for (int peer = 1; peer <= store_.replicas(); ++peer) {
      if (peer != me_ && now - last_ack_[static_cast<std::size_t>(peer)] < store_.config().election_timeout_min) {
        ++live;
      }
    }
    if (live < Majority()) {
      BecomeFollower(disk().term);
      return;
    }
    Broadcast();
    ArmHeartbeat();
  }

  void Broadcast() {
    const std::int64_t round = ++round_;
    round_sent_at_[round] = store_.world_.now();
    for (int peer = 1; peer <= store_.replicas(); ++peer) {
      if (peer != me_) SendAppend(peer, round);
    }
    if (store_.replicas() == 1) {
      AdvanceCommit();
      ServeReads();
    }
  }

  void SendAppend(int peer, std::int64_t round) {
    RaftMessage m;
    m.type = RaftMessage::Type::kAppend;
    m.term = disk().term;
    const std::int64_t next = next_[static_cast<std::size_t>(peer)];
    m.prev_index = next - 1;
    m.prev_term = TermAt(m.prev_index);
    const std::int64_t last = std::min(LastIndex(), m.prev_index + static_cast<std::int64_t>(kBatchMax));
    for (std::int64_t index = next; index <= last; ++index) {
      m.entries.push_back(disk().log[static_cast<std::size_t>(index - 1)]);
    }
    m.commit = commit_;
    m.round = round;
    Send(peer, std::move(m));
  }

  void OnAppend(const RaftMessage& m) {
    RaftMessage reply;
    reply.type = RaftMessage::Type::kAppendReply;
    reply.round = m.round;
    if (m.term < disk().term) {
      reply.term = disk().term;
      Send(m.from, std::move(reply));
      return;
    }
    if (m.term > disk().term || role_ != ReplicaRole::kFollower) BecomeFollower(m.term);
    assert(role_ == ReplicaRole::kFollower);
    if (leader_hint_ != m.from) Trace("repl_follow", m.term, m.from);
    leader_hint_ = m.from;
    last_leader_contact_ = Local();
    ArmElection(RandomElectionTimeout());
    reply.term = disk().term;
    if (m.prev_index > LastIndex() || TermAt(m.prev_index) != m.prev_term) {
      reply.success = false;
      reply.match = std::min(LastIndex(), m.prev_index - 1);
      Send(m.from, std::move(reply));
      return;
    }
    std::int64_t index = m.prev_index;
    for (const ReplicaLogEntry& entry : m.entries) {
      ++index;
      if (index <= LastIndex()) {
        if (TermAt(index) == entry.term) continue;
        assert(index > commit_ && "a committed entry is never overwritten");
        disk().log.resize(static_cast<std::size_t>(index - 1));
      }
      disk().log.push_back(entry);
    }
    const std::int64_t matched = m.prev_index + static_cast<std::int64_t>(m.entries.size());
    if (m.commit > commit_) {
      commit_ = std::max(commit_, std::min(m.commit, matched));
      Apply();
    }
    reply.success = true;
    reply.match = matched;
    Send(m.from, std::move(reply));
  }

  void OnAppendReply(const RaftMessage& m) {
    if (m.term > disk().term) {
      BecomeFollower(m.term);
      return;
    }
    if (role_ != ReplicaRole::kLeader || m.term != disk().term) return;
    const auto peer = static_cast<std::size_t>(m.from);
    last_ack_[peer] = Local();
    acked_round_[peer] = std::max(acked_round_[peer], m.round);
    if (m.success) {
      match_[peer] = std::max(match_[peer], m.match);
      next_[peer] = std::max(next_[peer], match_[peer] + 1);
      AdvanceCommit();
      if (next_[peer] <= LastIndex()) SendAppend(m.from, round_);
    } else {
      next_[peer] = std::max<std::int64_t>(1, std::min(next_[peer] - 1, m.match + 1));
      SendAppend(m.from, round_);
    }
    if (role_ == ReplicaRole::kLeader) ServeReads();
  }

  void AdvanceCommit() {
    for (std::int64_t n = LastIndex(); n > commit_; --n) {
      if (TermAt(n) != disk().term) break;  // only entries of this term commit by counting
      int count = 1;
      for (int peer = 1; peer <= store_.replicas(); ++peer) {
        if (peer != me_ && match_[static_cast<std::size_t>(peer)] >= n) ++count;
      }
      if (count >= Majority()) {
        commit_ = n;
        break;
      }
    }
    Apply();
    if (commit_ >= term_start_index_) {
      for (PendingRead& read : reads_) {
        if (read.read_index < 0) read.read_index = commit_;
      }
    }
  }

  void Apply() {
    while (applied_ < commit_) {
      ++applied_;
      const ReplicaLogEntry& entry = disk().log[static_cast<std::size_t>(applied_ - 1)];
      if (entry.noop) {
        store_.EntryApplied(applied_, entry, false);
        continue;
      }
      const StoreRequest& request = entry.request;
      auto done = results_.find(request.op);
      const bool first = done == results_.end();
      if (first) {
        core::StoreResult result;
        switch (request.kind) {
          case StoreOpKind::kRead: result = sm_.Read(request.key); break;
          case StoreOpKind::kCreate: result = sm_.Create(request.key, request.record); break;
          case StoreOpKind::kCas:
            result = sm_.CompareAndSet(request.key, request.expected_version, request.record);
            break;
        }
        done = results_.emplace(request.op, result).first;
      }
      store_.EntryApplied(applied_, entry, first);
      auto waiting = waiting_.find(request.op);
      if (waiting != waiting_.end()) {
        Route route = std::move(waiting->second);
        waiting_.erase(waiting);
        route(ClientAnswer{ClientAnswer::Kind::kResult, me_, done->second, -1});
      }
    }
  }

  // --- clients ---------------------------------------------------------------
  void HandleClient(const StoreRequest& request, const Route& route) {
    const ReplicatedStoreConfig& config = store_.config();
    if (request.kind == StoreOpKind::kRead && config.read_mode == ReadMode::kUnsafe) {
      // The mistake on purpose: answer from whatever this replica has applied.
      const std::int64_t seq = store_.NextReadSeq(applied_);
      if (applied_ < store_.highest_applied_index_) store_.stale_reads_ += 1;
      route(ClientAnswer{ClientAnswer::Kind::kResult, me_, sm_.Read(request.key), seq});
      return;
    }
    if (role_ != ReplicaRole::kLeader) {
      route(ClientAnswer{ClientAnswer::Kind::kNotLeader, leader_hint_ == me_ ? 0 : leader_hint_, {}, -1});
      return;
    }
    if (request.kind == StoreOpKind::kRead) {
      // Read index: answer once a majority confirmed, in a round sent after
      // the read arrived, that this replica still leads, and once the state
      // machine has applied everything committed when it arrived.
      PendingRead read;
      read.request = request;
      read.route = route;
      read.read_index = commit_ >= term_start_index_ ? commit_ : -1;
      read.round = round_ + 1;
      reads_.push_back(std::move(read));
      Broadcast();
      ServeReads();
      return;
    }
    auto done = results_.find(request.op);
    if (done != results_.end()) {  // a resend of a request already applied
      route(ClientAnswer{ClientAnswer::Kind::kResult, me_, done->second, -1});
      return;
    }
    auto waiting = waiting_.find(request.op);
    if (waiting != waiting_.end()) {  // a resend of a request still in flight here
      waiting->second = route;
      return;
    }
    disk().log.push_back(ReplicaLogEntry{disk().term, false, request});
    waiting_[request.op] = route;
    Broadcast();
  }

  std::int64_t ConfirmedRound() const {
    if (role_ != ReplicaRole::kLeader) return 0;
    std::vector<std::int64_t> rounds;
    for (int peer = 1; peer <= store_.replicas(); ++peer) {
      if (peer != me_) rounds.push_back(acked_round_[static_cast<std::size_t>(peer)]);
    }
    if (rounds.empty()) return round_;
    std::sort(rounds.begin(), rounds.end(), std::greater<>());
    // The leader counts itself: Majority()-1 followers must have acknowledged.
    return rounds[static_cast<std::size_t>(Majority() - 2)];
  }

  void ServeReads() {
    const std::int64_t confirmed = ConfirmedRound();
    if (confirmed > 0) {
      auto it = round_sent_at_.find(confirmed);
      if (it != round_sent_at_.end()) store_.LeaderConfirmed(it->second);
      round_sent_at_.erase(round_sent_at_.begin(), round_sent_at_.lower_bound(confirmed));
    }
    std::vector<PendingRead> waiting;
    std::vector<PendingRead> ready;
    for (PendingRead& read : reads_) {
      if (read.round <= confirmed && read.read_index >= 0 && applied_ >= read.read_index) {
        ready.push_back(std::move(read));
      } else {
        waiting.push_back(std::move(read));
      }
    }
    reads_ = std::move(waiting);
    for (PendingRead& read : ready) {
      const std::int64_t seq = store_.NextReadSeq(applied_);
      read.route(ClientAnswer{ClientAnswer::Kind::kResult, me_, sm_.Read(read.request.key), seq});
    }
  }

  struct PendingRead {
    StoreRequest request;
    Route route;
    std::int64_t read_index = -1;  // -1: not known until this leader commits in its term
    std::int64_t round = 0;
  };

  ReplicatedStore& store_;
  int me_;
  sim::HostId host_;
  std::uint64_t incarnation_;
  sim::Prng prng_;

  ReplicaRole role_ = ReplicaRole::kFollower;
  int leader_hint_ = 0;
  sim::Nanos last_leader_contact_ = 0;
  std::int64_t commit_ = 0;
  std::int64_t applied_ = 0;
  LeaseStore sm_;
  std::map<std::int64_t, core::StoreResult> results_;  // by request id: applied at most once
  std::set<int> votes_;
  std::uint64_t election_generation_ = 0;
  std::uint64_t heartbeat_generation_ = 0;

  // Leader only.
  std::vector<std::int64_t> next_;
  std::vector<std::int64_t> match_;
  std::vector<std::int64_t> acked_round_;
  std::vector<sim::Nanos> last_ack_;
  std::int64_t round_ = 0;
  std::map<std::int64_t, sim::Nanos> round_sent_at_;
  std::int64_t term_start_index_ = 0;
  std::vector<PendingRead> reads_;
  std::map<std::int64_t, Route> waiting_;  // request id -> the client to answer
};

// --- the store ---------------------------------------------------------------

ReplicatedStore::ReplicatedStore(sim::World& world, sim::Network& network, ReplicatedStoreConfig config,
                                 SimObserver& observer, sim::Nanos wall_start)
    : world_(world),
      network_(network),
      config_(std::move(config)),
      observer_(observer),
      service_prng_(world.MakePrng("store/replicated")) {
  assert(config_.replicas >= 1 && config_.replicas <= 15);
  assert(config_.election_timeout_min > 0 && config_.election_timeout_min <= config_.election_timeout_max);
  assert(config_.heartbeat > 0 && config_.heartbeat < config_.election_timeout_min);
  assert(config_.client_attempt_timeout > 0);
  sim::Prng clocks = world.MakePrng("store/replica-clocks");
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

core::StoreResult ReplicatedStore::ReadLocal(int replica, const std::string& key) const {
  const ReplicaProcess* process = Process(replica);
  if (process == nullptr) return {core::StoreStatus::kUnavailable, {}};
  return process->state_machine().Read(key);
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
  network_.Send(host(from), host(to), sim::kAnyIncarnation, [this, to, message = std::move(message)] {
    if (ReplicaProcess* process = Process(to)) process->OnRaft(*message);
  });
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

void ReplicatedStore::EntryApplied(std::int64_t index, const ReplicaLogEntry& entry, bool first_for_op) {
  if (index <= highest_applied_index_) return;  // another replica applied it first
  highest_applied_index_ = index;
  if (entry.noop || !first_for_op) return;
  observer_.StoreApplied(entry.request.op, index * kReadSlots);
  world_.trace().Record(world_.now(), -1, "repl_commit", entry.request.op, index);
}

std::int64_t ReplicatedStore::NextReadSeq(std::int64_t applied_index) {
  std::int64_t& count = reads_at_index_[applied_index];
  if (count + 1 >= kReadSlots) return -1;  // no place left: the checker searches instead
  count += 1;
  return applied_index * kReadSlots + count;
}

void ReplicatedStore::LeaderElected(int replica, std::int64_t term) {
  (void)replica;
  elections_ += 1;
  highest_elected_term_ = std::max(highest_elected_term_, term);
  if (first_leader_at_ < 0) {
    first_leader_at_ = world_.now();
    return;
  }
  if (last_confirmed_ < 0) return;
  const sim::Nanos gap = world_.now() - last_confirmed_;
  election_gap_max_ = std::max(election_gap_max_, gap);
  election_gap_sum_ += gap;
  election_gaps_ += 1;
}

void ReplicatedStore::LeaderConfirmed(sim::Nanos round_sent_at) {
  last_confirmed_ = std::max(last_confirmed_, round_sent_at);
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

core::StoreResult ReplicatedStore::Call(sim::HostId client, StoreRequest request, core::Nanos timeout) {
  assert(world_.in_fiber());
  assert(timeout > 0);
  struct CallState {
    bool done = false;
    core::StoreResult result;
    std::int64_t read_seq = -1;
    int answered_by = 0;
    int attempt = 0;
    bool answered = false;
    ClientAnswer answer;
    sim::WaitToken token;
  };
  const std::uint64_t incarnation = world_.incarnation(client);
  ClientStats& stats = clients_[client];
  if (stats.incarnation != incarnation) stats = ClientStats{incarnation, 0, -1};
  const bool is_read = request.kind == StoreOpKind::kRead;
  const bool unsafe_read = is_read && config_.read_mode == ReadMode::kUnsafe;
  const sim::Nanos invoked = world_.now();
  auto local = [this, client] { return world_.clock(client).Monotonic(world_.now()); };
  const sim::Nanos deadline = local() + timeout;
  auto next = [this](int replica) { return replica % config_.replicas + 1; };
  int target = unsafe_read || stats.leader_hint == 0 ? NearestReplica(client) : stats.leader_hint;
  auto state = std::make_shared<CallState>();
  bool maybe_applied = false;
  bool silent = false;  // some attempt got no answer at all
  for (int attempt = 1;; ++attempt) {
    if (state->done || local() >= deadline) break;
    if (attempt > 1) resends_ += 1;
    state->attempt = attempt;
    state->answered = false;
    state->token = world_.PrepareWait();
    const sim::HostId to = host(target);
    const int replica = target;
    network_.Send(client, to, sim::kAnyIncarnation, [this, replica, client, incarnation, state, attempt, request] {
      ReplicaProcess* process = Process(replica);
      if (process == nullptr) return;
      process->OnClientArrival(request, [this, replica, client, incarnation, state,
                                         attempt](const ClientAnswer& answer) {
        network_.Send(host(replica), client, incarnation, [this, replica, state, attempt, answer] {
          if (answer.kind == ClientAnswer::Kind::kResult) {
            if (state->done) return;  // a resend's answer; the first one counted
            state->done = true;
            state->result = answer.result;
            state->read_seq = answer.read_seq;
            state->answered_by = replica;
          } else if (attempt == state->attempt) {
            state->answered = true;
            state->answer = answer;
          } else {
            return;
          }
          world_.Signal(state->token);
        });
      });
    });
    world_.Wait(state->token, std::min(deadline, local() + config_.client_attempt_timeout));
    if (state->done) break;
    if (!state->answered) {
      // Silence: the replica is down, cut off or slow. A write may have been
      // appended there; try the next replica (a resend is applied at most once).
      silent = true;
      if (!is_read) maybe_applied = true;
      stats.leader_hint = 0;
      target = next(target);
      continue;
    }
    const ClientAnswer answer = state->answer;
    redirects_ += 1;
    if (answer.kind == ClientAnswer::Kind::kRetry && !is_read) maybe_applied = true;
    if (answer.hint != 0 && answer.hint != target) {
      stats.leader_hint = answer.hint;
      target = answer.hint;
      continue;
    }
    // Nobody known to lead (an election is on): wait a heartbeat, then ask the next.
    stats.leader_hint = 0;
    target = next(target);
    const sim::Nanos pause = std::min(deadline, local() + config_.heartbeat);
    if (!state->done) world_.SleepUntilLocal(pause);
  }
  core::StoreResult result;
  if (state->done) {
    result = state->result;
    if (is_read && state->read_seq >= 0) observer_.StoreApplied(request.op, state->read_seq);
    if (!unsafe_read) stats.leader_hint = state->answered_by;
  } else {
    result.status = maybe_applied || silent ? core::StoreStatus::kTimeout : core::StoreStatus::kUnavailable;
  }
  const bool answered = result.status == core::StoreStatus::kOk || result.status == core::StoreStatus::kConflict;
  if (answered) {
    calls_ok_ += 1;
    const sim::Nanos took = world_.now() - invoked;
    call_ok_ns_sum_ += took;
    call_ok_ns_max_ = std::max(call_ok_ns_max_, took);
    if (stats.outage_since >= 0) {
      const sim::Nanos outage = world_.now() - stats.outage_since;
      outage_max_ = std::max(outage_max_, outage);
      outage_sum_ += outage;
      stats.outage_since = -1;
    }
  } else {
    calls_failed_ += 1;
    if (stats.outage_since < 0) stats.outage_since = invoked;
  }
  return result;
}

void ReplicatedStore::AddFigures(std::map<std::string, std::int64_t>& figures) const {
  constexpr sim::Nanos ms = sim::kNanosPerMilli;
  figures["store_leaders_elected"] = elections_;
  figures["store_highest_term"] = highest_elected_term_;
  figures["store_first_leader_ms"] = first_leader_at_ < 0 ? -1 : first_leader_at_ / ms;
  figures["store_failovers"] = election_gaps_;
  figures["store_election_ms_max"] = election_gap_max_ / ms;
  figures["store_election_ms_mean"] = election_gaps_ == 0 ? 0 : election_gap_sum_ / election_gaps_ / ms;
  figures["store_calls_answered"] = calls_ok_;
  figures["store_calls_failed"] = calls_failed_;
  figures["store_call_ms_mean"] = calls_ok_ == 0 ? 0 : call_ok_ns_sum_ / calls_ok_ / ms;
  figures["store_call_ms_max"] = call_ok_ns_max_ / ms;
  figures["store_client_unavailable_ms_max"] = outage_max_ / ms;
  figures["store_client_unavailable_ms_sum"] = outage_sum_ / ms;
  figures["store_client_redirects"] = redirects_;
  figures["store_client_resends"] = resends_;
  if (config_.read_mode == ReadMode::kUnsafe) figures["store_stale_reads"] = stale_reads_;
}

}  // namespace leasesim::backends
