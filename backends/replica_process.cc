#include "backends/replica_process.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "backends/raft_invariants.h"

namespace leasesim::backends {

ReplicaProcess::ReplicaProcess(ReplicatedStore& store, int replica, sim::HostId host, std::uint64_t incarnation)
    : store_(store),
      me_(replica),
      host_(host),
      incarnation_(incarnation),
      prng_(store.world_.MakePrng("store/replica/" + std::to_string(replica) + "/" +
                                  std::to_string(incarnation))),
      kv_(store.config().kv_state) {
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

void ReplicaProcess::OnClientArrival(const ClientRequest& request, Route route) {
  const sim::Nanos at = store_.world_.now() + store_.DrawService();
  sim::World& world = store_.world_;
  // Host and incarnation are copied now: a crash before `at` destroys this
  // replica, and RunOnHost then drops the request (ASan: use after free).
  world.At(at, [this, &world, host = host_, incarnation = incarnation_, request, route = std::move(route)]() mutable {
    world.RunOnHost(host, incarnation, [this, request, route = std::move(route)] {
      if (syncing_) {
        Defer([this, request, route] { HandleClient(request, route); });
        return;
      }
      Step([this, &request, &route] { HandleClient(request, route); });
    });
  });
}

void ReplicaProcess::OnRaft(const RaftMessage& m) {
  if (halted_) return;
  if (syncing_) {
    Defer([this, copy = m] { StepRaft(copy); });
    return;
  }
  Step([this, &m] { StepRaft(m); });
}

void ReplicaProcess::StepRaft(const RaftMessage& m) {
  switch (m.type) {
    case RaftMessage::Type::kPreVote: OnPreVote(m); break;
    case RaftMessage::Type::kPreVoteReply: OnPreVoteReply(m); break;
    case RaftMessage::Type::kVote: OnVote(m); break;
    case RaftMessage::Type::kVoteReply: OnVoteReply(m); break;
    case RaftMessage::Type::kAppend: OnAppend(m); break;
    case RaftMessage::Type::kAppendReply: OnAppendReply(m); break;
  }
}

// --- the disk ---------------------------------------------------------------

template <class F>
void ReplicaProcess::Step(F&& step) {
  if (halted_) return;
  if (syncing_) {
    Defer(std::forward<F>(step));
    return;
  }
  assert(!in_step_);  // inputs come from events, never from inside a step
  in_step_ = true;
  step();
  in_step_ = false;
  EndStep();
}

// Raft §5 (persistent state is "updated on stable storage before responding
// to RPCs") as etcd's raft loop applies it (etcd-io/raft doc.go: no message
// is sent "until the latest HardState has been persisted to disk, and all
// Entries written by any previous Ready batch"; raft.go keeps the replies
// that depend on an append in msgsAfterAppend): what the step wrote is
// synced before its messages leave.
void ReplicaProcess::EndStep() {
  if (store_.config().fsync == 0) {
    applied_in_step_ = false;
    if (!disk().dirty()) return;
    disk().Sync();  // durable at once: nothing ever waits
    store_.invariants_->VoteSynced(store_.world_.now(), me_, disk());
    Synced();
    return;
  }
  if (!disk().dirty()) {
    SyncDone(false);
    return;
  }
  if (Failpoint(RaftFailpoint::kBeforeSave)) return;
  syncing_ = true;
  Trace("repl_fsync", LastIndex());
  store_.world_.AtLocal(host_, incarnation_, Local() + store_.FsyncLatency(me_), [this] { SyncDone(true); });
}

bool ReplicaProcess::Failpoint(RaftFailpoint point) {
  if (!store_.FailpointHit(me_, point)) return false;
  halted_ = true;
  outbox_.clear();
  deferred_.clear();
  return true;
}

void ReplicaProcess::SyncDone(bool wrote) {
  if (halted_) return;
  disk().Sync();
  store_.invariants_->VoteSynced(store_.world_.now(), me_, disk());
  syncing_ = false;
  if (wrote && Failpoint(RaftFailpoint::kAfterSave)) return;
  // A leader writes only what it appends: the appends in the outbox carry it.
  if (wrote && role_ == ReplicaRole::kLeader && !outbox_.empty() && Failpoint(RaftFailpoint::kBeforeLeaderSend)) {
    return;
  }
  Synced();
  const bool applied = applied_in_step_;
  applied_in_step_ = false;
  if (applied && Failpoint(RaftFailpoint::kAfterApply)) return;
  if (!outbox_.empty() && Failpoint(RaftFailpoint::kBeforeSend)) return;
  std::vector<std::pair<int, RaftMessage>> outbox = std::move(outbox_);
  outbox_.clear();
  for (auto& [to, message] : outbox) store_.SendRaft(me_, to, std::make_shared<const RaftMessage>(std::move(message)));
  if (own_vote_term_ != 0) {
    // The fsync just completed holds the vote: counted first in the next batch.
    assert(deferred_.size() < kDeferredMax);
    deferred_.push_front([this, term = std::exchange(own_vote_term_, 0)] { CountOwnVote(term); });
  }
  TakeDeferred();
}

void ReplicaProcess::Defer(std::function<void()> input) {
  assert(deferred_.size() < kDeferredMax);
  deferred_.push_back(std::move(input));
}

// etcd's raft node steps every message that arrived since the last Ready
// into memory, and the server saves the Ready's HardState and entries with
// one fsync before it sends the Ready's messages (server/etcdserver/raft.go:
// `rd := <-r.Ready()`, `r.storage.Save(rd.HardState, rd.Entries)`, then
// `r.transport.Send`; raft's node.go: Ready is "the current point-in-time
// state", Advance asks for the next). So the inputs that queued during an
// fsync are one batch, stepped in their order into memory, and one fsync
// covers all they wrote before any message they produced leaves. (One fsync
// per queued input made a long disk stall thousands of fsyncs in a row.)
void ReplicaProcess::TakeDeferred() {
  if (deferred_.empty() || halted_) return;
  assert(!syncing_);
  assert(!in_step_);
  std::deque<std::function<void()>> batch = std::move(deferred_);
  deferred_.clear();
  const std::size_t count = batch.size();
  assert(count <= kDeferredMax);
  in_step_ = true;
  for (std::size_t i = 0; i < count; ++i) batch[i]();
  in_step_ = false;
  // Nothing arrives while the batch runs (inputs are events), and no step
  // halts the replica (failpoints strike in EndStep and SyncDone).
  assert(deferred_.empty());
  assert(!halted_);
  EndStep();
}

// A leader's own fsync can complete a majority (with one replica it is the
// majority): a write commits, and a read may be served, only once the
// leader's disk holds it (etcd issue #14370: a one-member cluster answered
// writes it had not persisted).
void ReplicaProcess::Synced() {
  if (role_ != ReplicaRole::kLeader) return;
  AdvanceCommit();
  if (role_ == ReplicaRole::kLeader) ServeReads();
}

void ReplicaProcess::LogChanged(std::int64_t from) {
  store_.invariants_->LogChanged(store_.world_.now(), me_, disk(), from);
}

std::int64_t ReplicaProcess::TermAt(std::int64_t index) {
  if (index <= 0 || index > LastIndex()) return 0;
  return disk().log[static_cast<std::size_t>(index - 1)].term;
}

sim::Nanos ReplicaProcess::RandomElectionTimeout() {
  const ReplicatedStoreConfig& config = store_.config();
  return prng_.UniformRange(config.election_timeout_min, config.election_timeout_max);
}

void ReplicaProcess::Trace(const char* what, std::int64_t a, std::int64_t b) {
  store_.world_.trace().Record(store_.world_.now(), host_, what, a, b);
}

// --- the timers -------------------------------------------------------------

// etcd's raft keeps no timer per reset: one tick loop counts
// electionElapsed, which a reset sets to 0, after drawing a new randomized
// timeout (etcd-io/raft raft.go: reset → resetRandomizedElectionTimeout), and
// tickElection campaigns once it reaches that timeout. Here time is not
// ticked, but the same holds: a reset draws the timeout and moves the
// deadline; one timer per duty wakes for it. (A timer per reset, retired
// only by a generation number, left one queued per append taken: after a
// disk stall a replica held about a million, each deferred when a pause
// caught it — store-fuzz --duration-s 60 seed 69.)
void ReplicaProcess::ArmElection(sim::Nanos delay) { SetDeadline(Duty::kElection, delay); }

void ReplicaProcess::ArmHeartbeat() { SetDeadline(Duty::kHeartbeat, store_.config().heartbeat); }

void ReplicaProcess::StopDuty(Duty duty) { TimerOf(duty).on = false; }

sim::Nanos ReplicaProcess::ShortestDelay(Duty duty) const {
  const ReplicatedStoreConfig& config = store_.config();
  return duty == Duty::kElection ? config.election_timeout_min : config.heartbeat;
}

void ReplicaProcess::SetDeadline(Duty duty, sim::Nanos delay) {
  DutyTimer& timer = TimerOf(duty);
  timer.on = true;
  timer.deadline = Local() + delay;
  if (!timer.pending) {
    ArmDutyTimer(duty);
    return;
  }
  // The pending timer fires in time and moves on to the deadline.
  assert(timer.fires_at <= timer.deadline);
}

// The timer fires at the deadline, or sooner if a reset could bring the
// deadline nearer before then (no reset sets it closer than ShortestDelay):
// so it never fires late, and one timer is enough. A crash drops it with
// the incarnation (AtLocal runs nothing for another incarnation); the next
// incarnation arms its own. A pause holds an early firing like any other
// work: the host resumes past the deadline and the duty runs then, where
// the early firing stands among the held work.
void ReplicaProcess::ArmDutyTimer(Duty duty) {
  DutyTimer& timer = TimerOf(duty);
  assert(!timer.pending);
  timer.pending = true;
  timer.fires_at = std::min(timer.deadline, Local() + ShortestDelay(duty));
  store_.world_.AtLocal(host_, incarnation_, timer.fires_at, [this, duty] {
    Step([this, duty] { DutyTimerFired(duty); });
  });
}

void ReplicaProcess::DutyTimerFired(Duty duty) {
  DutyTimer& timer = TimerOf(duty);
  assert(timer.pending);
  timer.pending = false;
  if (!timer.on) return;
  if (Local() < timer.deadline) {
    ArmDutyTimer(duty);
    return;
  }
  timer.on = false;  // the duty arms it again if it goes on
  if (duty == Duty::kElection) {
    OnElectionTimeout();
  } else {
    OnHeartbeat();
  }
}

void ReplicaProcess::Send(int to, RaftMessage message) {
  message.from = me_;
  const ReplicatedStoreConfig& config = store_.config();
  if (in_step_ && config.fsync > 0 && !config.reply_before_fsync) {
    outbox_.emplace_back(to, std::move(message));  // leaves once the step's writes are synced
    return;
  }
  store_.SendRaft(me_, to, std::make_shared<const RaftMessage>(std::move(message)));
}

bool ReplicaProcess::UpToDate(const RaftMessage& m) {
  const std::int64_t my_last_term = TermAt(LastIndex());
  if (m.last_log_term != my_last_term) return m.last_log_term > my_last_term;
  return m.last_log_index >= LastIndex();
}

bool ReplicaProcess::HeardFromLeaderRecently() const {
  if (role_ == ReplicaRole::kLeader) return true;
  return leader_hint_ != 0 && Local() - last_leader_contact_ < store_.config().election_timeout_min;
}

// --- elections --------------------------------------------------------------

void ReplicaProcess::OnElectionTimeout() {
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

void ReplicaProcess::StartElection() {
  disk().SetTerm(disk().term + 1, me_);
  role_ = ReplicaRole::kCandidate;
  votes_.clear();
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
  // etcd raft.go campaign: the candidate "should account for this self vote
  // once the vote has been durably persisted" (its own MsgVoteResp waits in
  // msgsAfterAppend). Counted at once, a lone replica led, and appended
  // clients' writes of its term, before the term was on disk: a power loss
  // took both, and it led the same term again with other entries. With
  // fsync = 0 the vote is durable at once; reply_before_fsync, the mistake,
  // counts it at once too.
  const ReplicatedStoreConfig& config = store_.config();
  if (config.fsync == 0 || config.reply_before_fsync) {
    CountOwnVote(disk().term);
  } else {
    own_vote_term_ = disk().term;
  }
}

void ReplicaProcess::CountOwnVote(std::int64_t term) {
  if (role_ != ReplicaRole::kCandidate || disk().term != term) return;  // the election moved on
  votes_.insert(me_);
  if (static_cast<int>(votes_.size()) >= Majority()) BecomeLeader();
}

void ReplicaProcess::OnPreVote(const RaftMessage& m) {
  RaftMessage reply;
  reply.type = RaftMessage::Type::kPreVoteReply;
  reply.term = disk().term;
  reply.proposed = m.proposed;
  reply.granted = m.proposed > disk().term && !HeardFromLeaderRecently() && UpToDate(m);
  Send(m.from, std::move(reply));
}

void ReplicaProcess::OnPreVoteReply(const RaftMessage& m) {
  if (m.term > disk().term && !m.granted) {
    BecomeFollower(m.term);
    return;
  }
  if (role_ != ReplicaRole::kPreCandidate || m.proposed != disk().term + 1 || !m.granted) return;
  votes_.insert(m.from);
  if (static_cast<int>(votes_.size()) >= Majority()) StartElection();
}

void ReplicaProcess::OnVote(const RaftMessage& m) {
  RaftMessage reply;
  reply.type = RaftMessage::Type::kVoteReply;
  if (m.term > disk().term) BecomeFollower(m.term);
  if (m.term == disk().term && (disk().voted_for == 0 || disk().voted_for == m.from) && UpToDate(m)) {
    disk().SetTerm(disk().term, m.from);
    reply.granted = true;
    ArmElection(RandomElectionTimeout());
  }
  reply.term = disk().term;
  Send(m.from, std::move(reply));
}

void ReplicaProcess::OnVoteReply(const RaftMessage& m) {
  if (m.term > disk().term) {
    BecomeFollower(m.term);
    return;
  }
  if (role_ != ReplicaRole::kCandidate || m.term != disk().term || !m.granted) return;
  votes_.insert(m.from);
  if (static_cast<int>(votes_.size()) >= Majority()) BecomeLeader();
}

void ReplicaProcess::BecomeLeader() {
  assert(role_ == ReplicaRole::kCandidate);
  role_ = ReplicaRole::kLeader;
  leader_hint_ = me_;
  StopDuty(Duty::kElection);  // off while leading
  const sim::Nanos now = Local();
  for (int peer = 1; peer <= store_.replicas(); ++peer) {
    next_[static_cast<std::size_t>(peer)] = LastIndex() + 1;
    match_[static_cast<std::size_t>(peer)] = 0;
    acked_round_[static_cast<std::size_t>(peer)] = 0;
    last_ack_[static_cast<std::size_t>(peer)] = now;  // grace until the first check-quorum
  }
  // A no-op of this term: committing it commits everything before it and
  // tells this leader what is committed (needed before serving reads).
  store_.invariants_->LeaderElected(store_.world_.now(), me_, disk().term, disk());
  disk().Append(ReplicaLogEntry{disk().term, true, nullptr});
  LogChanged(LastIndex());
  term_start_index_ = LastIndex();
  Trace("repl_leader", disk().term, LastIndex());
  store_.figures_.LeaderElected(store_.world_.now(), disk().term);
  Broadcast();
  ArmHeartbeat();
}

void ReplicaProcess::BecomeFollower(std::int64_t term) {
  if (term > disk().term) disk().SetTerm(term, 0);
  if (role_ == ReplicaRole::kLeader) StepDown();
  if (role_ != ReplicaRole::kFollower) {
    role_ = ReplicaRole::kFollower;
    ArmElection(RandomElectionTimeout());
  }
}

void ReplicaProcess::StepDown() {
  Trace("repl_step_down", disk().term);
  role_ = ReplicaRole::kFollower;
  leader_hint_ = 0;
  StopDuty(Duty::kHeartbeat);
  // Reads have no effect: refuse them. Pending writes may still commit
  // under the next leader: the client must resend (applied at most once).
  std::vector<PendingRead> reads = std::move(reads_);
  reads_.clear();
  for (PendingRead& read : reads) read.route(ClientAnswer::Redirect(ClientAnswer::Kind::kNotLeader, 0));
  std::vector<Watcher> watchers = std::move(watchers_);
  watchers_.clear();
  for (Watcher& watcher : watchers) watcher.route(ClientAnswer::Redirect(ClientAnswer::Kind::kNotLeader, 0));
  std::map<std::int64_t, Route> kv_waiting = std::move(kv_waiting_);
  kv_waiting_.clear();
  for (auto& [op, route] : kv_waiting) route(ClientAnswer::Redirect(ClientAnswer::Kind::kRetry, 0));
  Demote();
  round_sent_at_.clear();
  ArmElection(RandomElectionTimeout());
}

// --- replication ------------------------------------------------------------

void ReplicaProcess::OnHeartbeat() {
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

void ReplicaProcess::Broadcast() {
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

void ReplicaProcess::SendAppend(int peer, std::int64_t round) {
  store_.invariants_->LeaderActs(store_.world_.now(), me_, disk().term);
  RaftMessage m;
  m.type = RaftMessage::Type::kAppend;
  m.term = disk().term;
  const std::int64_t next = next_[static_cast<std::size_t>(peer)];
  m.prev_index = next - 1;
  m.prev_term = TermAt(m.prev_index);
  const std::int64_t last = std::min(LastIndex(), m.prev_index + store_.config().append_batch_max);
  for (std::int64_t index = next; index <= last; ++index) {
    m.entries.push_back(disk().log[static_cast<std::size_t>(index - 1)]);
  }
  m.commit = commit_;
  m.round = round;
  Send(peer, std::move(m));
}

void ReplicaProcess::OnAppend(const RaftMessage& m) {
  RaftMessage reply;
  reply.type = RaftMessage::Type::kAppendReply;
  reply.round = m.round;
  if (m.term < disk().term) {
    reply.term = disk().term;
    Send(m.from, std::move(reply));
    return;
  }
  if (m.term > disk().term || role_ != ReplicaRole::kFollower) BecomeFollower(m.term);
  // A leader that stayed one here would lead beside the sender: the
  // invariants report it (election safety, leader append-only), the run goes on.
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
  std::int64_t changed_from = 0;
  for (const ReplicaLogEntry& entry : m.entries) {
    ++index;
    if (index <= LastIndex()) {
      if (TermAt(index) == entry.term) continue;
      if (index <= commit_) store_.invariants_->CommittedOverwritten(store_.world_.now(), me_, index, commit_);
      if (role_ == ReplicaRole::kLeader) store_.invariants_->LeaderTruncates(store_.world_.now(), me_, disk().term, index);
      disk().TruncateAfter(index - 1);
    }
    if (changed_from == 0) changed_from = index;
    disk().Append(entry);
  }
  if (changed_from != 0) LogChanged(changed_from);
  const std::int64_t matched = m.prev_index + static_cast<std::int64_t>(m.entries.size());
  if (m.commit > commit_) {
    commit_ = std::max(commit_, std::min(m.commit, matched));
    Apply();
  }
  reply.success = true;
  reply.match = matched;
  Send(m.from, std::move(reply));
}

void ReplicaProcess::OnAppendReply(const RaftMessage& m) {
  if (m.term > disk().term) {
    BecomeFollower(m.term);
    return;
  }
  if (role_ != ReplicaRole::kLeader || m.term != disk().term) return;
  const auto peer = static_cast<std::size_t>(m.from);
  last_ack_[peer] = Local();
  acked_round_[peer] = std::max(acked_round_[peer], m.round);
  if (m.success) {
    const std::int64_t matched_before = match_[peer];
    match_[peer] = std::max(match_[peer], m.match);
    next_[peer] = std::max(next_[peer], match_[peer] + 1);
    AdvanceCommit();
    // etcd raft's stepLeader (MsgAppResp): only an acknowledgement that
    // moved the follower's match on sends more (tracker/progress.go
    // MaybeUpdate "returns false if the given n index comes from an
    // outdated message", and then nothing is sent). Were every stale or
    // duplicate acknowledgement to send the unacknowledged tail again, the
    // appends in flight would never shrink while the follower lags (a
    // heartbeat's append resends what was lost).
    if (match_[peer] > matched_before && next_[peer] <= LastIndex()) SendAppend(m.from, round_);
  } else {
    next_[peer] = std::max<std::int64_t>(1, std::min(next_[peer] - 1, m.match + 1));
    SendAppend(m.from, round_);
  }
  if (role_ == ReplicaRole::kLeader) ServeReads();
}

void ReplicaProcess::AdvanceCommit() {
  for (std::int64_t n = LastIndex(); n > commit_; --n) {
    if (TermAt(n) != disk().term) break;  // only entries of this term commit by counting
    // The leader counts itself once the entry is on its disk.
    int count = n <= disk().synced_prefix() ? 1 : 0;
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

void ReplicaProcess::Apply() {
  // commit_ <= LastIndex() unless a committed entry was overwritten (which
  // the invariants report): apply only what the log holds.
  while (applied_ < std::min(commit_, LastIndex())) {
    ++applied_;
    applied_in_step_ = true;
    const ReplicaLogEntry& entry = disk().log[static_cast<std::size_t>(applied_ - 1)];
    store_.invariants_->Applied(store_.world_.now(), me_, disk().term, applied_, entry, store_.disks_);
    if (entry.noop) {
      store_.EntryApplied(applied_, entry, false);
      // etcd server/etcdserver/server.go applyEntryNormal: an empty entry
      // applied by the leader ("finished applying all entries from the last
      // term") promotes its lessor.
      if (role_ == ReplicaRole::kLeader) Promote();
      continue;
    }
    ApplyKv(entry);
  }
}

void ReplicaProcess::ApplyKv(const ReplicaLogEntry& entry) {
  const KvRequest& request = *entry.kv;
  const std::int64_t before = kv_.revision();
  auto done = kv_results_.find(request.op);
  const bool first = done == kv_results_.end();
  std::optional<KvExpiry> expired;
  if (first) done = kv_results_.emplace(request.op, ApplyKvRequest(entry, expired)).first;
  store_.EntryApplied(applied_, entry, first, &done->second, expired ? &*expired : nullptr);
  if (request.kind == KvRequest::Kind::kLeaseRevoke) {
    revoking_.erase(request.lease);
    AnswerRenewals(request.lease);
  }
  if (request.kind == KvRequest::Kind::kLeaseGrant) ArmLessor();  // the loop may have idled without a lease
  auto waiting = kv_waiting_.find(request.op);
  if (waiting != kv_waiting_.end()) {
    Route route = std::move(waiting->second);
    kv_waiting_.erase(waiting);
    route(ClientAnswer::Kv(me_, done->second));
  }
  if (kv_.revision() != before) NotifyWatchers();
}

KvReply ReplicaProcess::ApplyKvRequest(const ReplicaLogEntry& entry, std::optional<KvExpiry>& expired) {
  const KvRequest& request = *entry.kv;
  KvReply reply;
  switch (request.kind) {
    case KvRequest::Kind::kTxn: reply.txn = kv_.Txn(request.txn); break;
    // Every replica keeps the lease; only the primary's deadline counts
    // (etcd's Grant refreshes it on the primary, sets it to forever elsewhere).
    case KvRequest::Kind::kLeaseGrant: reply.lease = kv_.LeaseGrant(request.ttl, Local()); break;
    case KvRequest::Kind::kLeaseRevoke:
      if (entry.expiry) {
        expired = kv_.Expire(request.lease);
        reply.lease = core::KvLeaseResult{core::KvStatus::kOk, request.lease, 0, kv_.revision()};
      } else {
        reply.lease = kv_.LeaseRevoke(request.lease);
      }
      break;
    case KvRequest::Kind::kLeaseKeepAlive: assert(false); break;  // renewed on the leader, never logged
    // ReplicatedKvClient sends a guarded update as its txn (KvClient's default).
    case KvRequest::Kind::kGuardedPut: assert(false); break;
  }
  return reply;
}

// --- the lessor ---------------------------------------------------------------

// etcd server/lease/lessor.go Promote(extend), called with the election
// timeout: each lease's expiry becomes now + extend + its TTL (refresh) —
// the time a lease had left under the old leader is not known here, so it
// gets its whole TTL again, plus the time the old leader may still have
// believed it led. (With at least leaseRevokeRate = 1000 leases etcd also
// spreads the expiries out; this model's stores hold far fewer.)
void ReplicaProcess::Promote() {
  primary_ = true;
  kv_.RestartDeadlines(Local() + store_.config().election_timeout_min);
  if (kv_.lease_count() > 0) Trace("repl_lessor_promote", disk().term, static_cast<std::int64_t>(kv_.lease_count()));
  StartLessor();
}

// etcd lessor.Demote: every expiry becomes forever (a follower's TTLs are
// not watched: primary_ is false), and a Renew waiting for a revocation
// returns ErrNotPrimary, which the client retries at the new leader.
void ReplicaProcess::Demote() {
  primary_ = false;
  revoking_.clear();
  std::multimap<core::KvLeaseId, Route> renewing = std::move(renewing_);
  renewing_.clear();
  for (auto& [lease, route] : renewing) route(ClientAnswer::Redirect(ClientAnswer::Kind::kNotLeader, 0));
}

// The loop starts when this incarnation first leads (its first client
// write, or its promotion) and runs on the host's monotonic clock (Go's
// time.After), so a paused leader revokes nothing while paused and, on
// resume, what is due.
void ReplicaProcess::StartLessor() {
  if (!lessor_started_) {
    lessor_started_ = true;
    lessor_anchor_ = Local();
  }
  ArmLessor();
}

// A round of the loop with no lease held finds nothing to revoke (etcd's
// revokeExpiredLeases over an empty lease map): the loop idles then, with
// no timer, and resumes on the phase it would have had ticking all along
// (as the KV server's expiry loop does, backends/sim_kv_server.h).
void ReplicaProcess::ArmLessor() {
  if (!lessor_started_ || lessor_armed_ || kv_.lease_count() == 0) return;
  const sim::Nanos now = Local();
  const sim::Nanos period = store_.config().lessor_period;
  assert(now >= lessor_anchor_);
  lessor_armed_ = true;
  store_.world_.AtLocal(host_, incarnation_, lessor_anchor_ + ((now - lessor_anchor_) / period + 1) * period, [this] {
    lessor_armed_ = false;
    lessor_anchor_ = Local();
    Step([this] { RevokeExpired(); });
    ArmLessor();
  });
}

// etcd revokeExpiredLeases/findExpiredLeases: the primary takes the leases
// past their expiry (at most leaseRevokeRate / 2 per loop), and the server
// proposes a LeaseRevoke for each through Raft; a lease proposed already
// is proposed again only after expiredLeaseRetryInterval.
void ReplicaProcess::RevokeExpired() {
  if (!primary_ || role_ != ReplicaRole::kLeader) return;
  constexpr std::size_t kRevokesPerLoop = 500;
  const sim::Nanos now = Local();
  bool proposed = false;
  for (const core::KvLeaseId lease : kv_.DueLeases(now, kRevokesPerLoop)) {
    const auto earlier = revoking_.find(lease);
    if (earlier != revoking_.end() && now - earlier->second < store_.config().lessor_retry) continue;
    revoking_[lease] = now;
    auto request = std::make_shared<KvRequest>();
    request->op = -lease;  // one id per lease: a second proposal applies as a duplicate
    request->kind = KvRequest::Kind::kLeaseRevoke;
    request->lease = lease;
    disk().Append(ReplicaLogEntry{disk().term, false, std::move(request), true});
    LogChanged(LastIndex());
    Trace("repl_lessor_revoke", lease, LastIndex());
    proposed = true;
  }
  if (proposed) Broadcast();
}

void ReplicaProcess::AnswerRenewals(core::KvLeaseId lease) {
  auto [first, last] = renewing_.equal_range(lease);
  std::vector<Route> routes;
  for (auto it = first; it != last; ++it) routes.push_back(std::move(it->second));
  renewing_.erase(first, last);
  for (const Route& route : routes) {
    KvReply reply;
    reply.lease = core::KvLeaseResult{core::KvStatus::kLeaseNotFound, lease, 0, kv_.revision()};
    route(AnswerFromState(std::move(reply)));
  }
}

// --- clients ----------------------------------------------------------------

void ReplicaProcess::HandleClient(const ClientRequest& request, const Route& route) {
  committed_at_arrival_ = store_.invariants_->applied_entries();
  if (request.watch == nullptr && request.IsRead() && store_.config().read_mode == ReadMode::kUnsafe) {
    ServeUnsafeRead(request, route);
    return;
  }
  if (role_ != ReplicaRole::kLeader) {
    route(ClientAnswer::Redirect(ClientAnswer::Kind::kNotLeader, leader_hint_ == me_ ? 0 : leader_hint_));
    return;
  }
  if (request.watch != nullptr) {
    HandleWatch(*request.watch, route);
    return;
  }
  // etcd's LeaseRenew on the leader first confirms its leadership with a
  // read index round (server/etcdserver/v3_server.go ensureLeadership,
  // etcd-io/etcd#15247: a stale leader renewed leases the new one revoked)
  // and waits for the applied index: a keep-alive is served like a read.
  const bool keep_alive = request.kv != nullptr && request.kv->kind == KvRequest::Kind::kLeaseKeepAlive;
  if (request.IsRead() || keep_alive) {
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
  HandleKvWrite(request.kv, route);
}

// The mistake on purpose: answer from whatever this replica has applied
// (for the KV store, etcd's serializable reads).
void ReplicaProcess::ServeUnsafeRead(const ClientRequest& request, const Route& route) {
  if (applied_ < store_.highest_applied_index_) store_.figures_.StaleRead();
  KvReply reply;
  reply.txn = kv_.Txn(request.kv->txn);
  route(AnswerFromState(std::move(reply)));
}

void ReplicaProcess::HandleKvWrite(const std::shared_ptr<const KvRequest>& request, const Route& route) {
  StartLessor();
  auto done = kv_results_.find(request->op);
  if (done != kv_results_.end()) {  // a resend of a request already applied
    route(ClientAnswer::Kv(me_, done->second));
    return;
  }
  auto waiting = kv_waiting_.find(request->op);
  if (waiting != kv_waiting_.end()) {  // a resend of a request still in flight here
    waiting->second = route;
    return;
  }
  disk().Append(ReplicaLogEntry{disk().term, false, request, false});
  LogChanged(LastIndex());
  kv_waiting_[request->op] = route;
  Broadcast();
}

// A watch is served from this leader's applied state, as etcd's watchable
// store serves it from the member's own: news at once, else at the first
// change on its keys; a start the history no longer holds is kCompacted.
void ReplicaProcess::HandleWatch(const KvWatchRequest& request, const Route& route) {
  std::erase_if(watchers_, [&](const Watcher& w) { return w.request.client == request.client; });  // replaced
  Watcher watcher{request, route};
  if (watcher.request.start_revision == 0) watcher.request.start_revision = kv_.revision() + 1;
  ClientAnswer answer;
  answer.hint = me_;
  answer.watch = kv_.EventsFrom(watcher.request.keys, watcher.request.start_revision);
  if (answer.watch.status != core::KvStatus::kOk || !answer.watch.events.empty()) {
    route(answer);
    return;
  }
  assert(watchers_.size() < kWatchersMax);
  watchers_.push_back(std::move(watcher));
}

void ReplicaProcess::NotifyWatchers() {
  if (watchers_.empty()) return;
  std::vector<Watcher> answering = std::move(watchers_);
  watchers_.clear();
  for (Watcher& watcher : answering) {
    ClientAnswer answer;
    answer.hint = me_;
    answer.watch = kv_.EventsFrom(watcher.request.keys, watcher.request.start_revision);
    if (answer.watch.status == core::KvStatus::kOk && answer.watch.events.empty()) {
      watchers_.push_back(std::move(watcher));  // no news yet: keeps its place
      continue;
    }
    Trace("repl_kv_watch_answer", watcher.request.client, answer.watch.revision);
    watcher.route(answer);
  }
}

std::int64_t ReplicaProcess::ConfirmedRound() const {
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

void ReplicaProcess::ServeReads() {
  // A read queued by this step's HandleClient: what was committed when it arrived.
  for (PendingRead& read : reads_) {
    if (read.committed_at_arrival < 0) read.committed_at_arrival = committed_at_arrival_;
  }
  const std::int64_t confirmed = ConfirmedRound();
  if (confirmed > 0) {
    auto it = round_sent_at_.find(confirmed);
    if (it != round_sent_at_.end()) store_.figures_.LeaderConfirmed(it->second);
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
  for (PendingRead& read : ready) ServeRead(read);
}

void ReplicaProcess::ServeRead(PendingRead& read) {
  const ClientRequest& request = read.request;
  store_.invariants_->ReadServed(store_.world_.now(), me_, disk().term, applied_, read.committed_at_arrival);
  if (request.kv->kind == KvRequest::Kind::kLeaseKeepAlive) {
    ServeKeepAlive(*request.kv, read.route);
    return;
  }
  KvReply reply;
  const std::int64_t before = kv_.revision();
  reply.txn = kv_.Txn(request.kv->txn);
  assert(kv_.revision() == before);  // ranges only
  read.route(AnswerFromState(std::move(reply)));
}

// etcd lessor.Renew on the primary: a lease past its expiry is not renewed
// but waits for its revocation (then ErrLeaseNotFound) or the demotion.
void ReplicaProcess::ServeKeepAlive(const KvRequest& request, const Route& route) {
  // The read index is answered once this term's no-op applied, which
  // promotes the lessor; a store whose Raft is broken (an entry it counted
  // committed was overwritten, which the invariants report) can get here
  // unpromoted: answer as etcd's lessor.Renew does when it is not the
  // primary (ErrNotPrimary; the client retries at the leader).
  if (!primary_) {
    route(ClientAnswer::Redirect(ClientAnswer::Kind::kNotLeader, 0));
    return;
  }
  const sim::Nanos now = Local();
  if (kv_.HasLease(request.lease) && kv_.DeadlineOf(request.lease) <= now) {
    renewing_.emplace(request.lease, route);
    return;
  }
  KvReply reply;
  reply.lease = kv_.LeaseKeepAlive(request.lease, now);
  route(AnswerFromState(std::move(reply)));
}

ClientAnswer ReplicaProcess::AnswerFromState(KvReply reply) {
  ClientAnswer answer = ClientAnswer::Kv(me_, std::move(reply));
  answer.read_seq = store_.NextReadSeq(applied_);
  return answer;
}

}  // namespace leasesim::backends
