#pragma once
// One replica of the replicated store (backends/replicated_store.h): a Raft
// participant with pre-vote and check-quorum, as etcd runs it, serving
// clients from the leader (read index for linearizable reads) or, in the
// unsafe mode, from whatever it has applied. Internal to backends/.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "backends/replicated_store.h"
#include "base/prng.h"
#include "sim/world.h"

namespace leasesim::backends {

// A message between replicas: (pre)votes, appends (heartbeats are empty
// ones) and the replies.
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

// What a replica answers a client: a result, or where to go instead.
struct ClientAnswer {
  enum class Kind {
    kResult,     // the operation's result
    kNotLeader,  // not applied here; `hint` leads, if known
    kRetry,      // this leader stepped down with the request pending: may yet commit; resend elsewhere
  };
  Kind kind = Kind::kResult;
  int hint = 0;
  std::int64_t read_seq = -1;  // a read's or keep-alive's place in the applied order
  KvReply kv;                  // a KV request's result
  core::KvWatchResult watch;   // a watch's result

  static ClientAnswer Redirect(Kind kind, int hint) {
    ClientAnswer answer;
    answer.kind = kind;
    answer.hint = hint;
    return answer;
  }
  static ClientAnswer Kv(int replica, KvReply reply) {
    ClientAnswer answer;
    answer.hint = replica;
    answer.kv = std::move(reply);
    return answer;
  }
};

// One replica incarnation's memory. Event-driven: messages and timers run
// on the replica's host while this incarnation lives. What it keeps on disk
// (term, vote, log) is the store's ReplicaDisk and survives a crash.
class ReplicaProcess final : public sim::ProcessState {
 public:
  using Route = std::function<void(const ClientAnswer&)>;

  ReplicaProcess(ReplicatedStore& store, int replica, sim::HostId host, std::uint64_t incarnation);

  ReplicaRole role() const { return role_; }
  std::int64_t commit() const { return commit_; }
  std::int64_t applied() const { return applied_; }
  const KvState& kv_state() const { return kv_; }

  // A client request arrived: act on it after the service time.
  void OnClientArrival(const ClientRequest& request, Route route);
  // A Raft message from a peer arrived (the network delivered it here).
  void OnRaft(const RaftMessage& m);

 private:
  ReplicaDisk& disk() { return store_.mutable_disk(me_); }
  std::int64_t LastIndex() { return static_cast<std::int64_t>(disk().log.size()); }
  std::int64_t TermAt(std::int64_t index);
  int Majority() const { return store_.replicas() / 2 + 1; }
  sim::Nanos Local() const { return store_.world_.clock(host_).Monotonic(store_.world_.now()); }
  sim::Nanos RandomElectionTimeout();
  void Trace(const char* what, std::int64_t a = 0, std::int64_t b = 0);
  void Send(int to, RaftMessage message);

  // --- the timers --------------------------------------------------------------
  // Two duties run when the host's clock reaches a deadline the replica
  // keeps moving: the election timeout (reset by every append, vote...) and
  // the leader's heartbeat. Each has one pending timer (DutyTimer).
  enum class Duty { kElection, kHeartbeat };
  // A reset: the election timeout runs `delay` from now, unless reset again.
  void ArmElection(sim::Nanos delay);
  void ArmHeartbeat();
  // The duty is off (the election timer while leading, the heartbeat after).
  void StopDuty(Duty duty);
  void SetDeadline(Duty duty, sim::Nanos delay);
  void ArmDutyTimer(Duty duty);
  // The duty's timer fired (a step): too early, it re-arms; else the duty runs.
  void DutyTimerFired(Duty duty);

  // --- the disk (docs/REPLICATED_STORE.md, "The disk") -------------------------
  // Runs one input (a message, a client request, a timer) as etcd's raft
  // loop runs a Ready: what the step wrote is fsynced before the messages
  // it produced go out, and no new input is taken while the fsync runs;
  // the inputs that arrive meanwhile are one batch after it (TakeDeferred).
  template <class F>
  void Step(F&& step);
  // An input that arrived during an fsync waits for it, in order.
  void Defer(std::function<void()> input);
  void StepRaft(const RaftMessage& m);
  void EndStep();
  void SyncDone(bool wrote);
  // Every input that waited, stepped as one batch: one fsync for all it wrote.
  void TakeDeferred();
  // An armed failpoint (ReplicatedStore::ArmFailpoint) struck here: the
  // replica halts, its held messages are dropped, and it dies next event.
  bool Failpoint(RaftFailpoint point);
  void Synced();
  void LogChanged(std::int64_t from);
  bool UpToDate(const RaftMessage& m);

  bool HeardFromLeaderRecently() const;

  // --- elections -------------------------------------------------------------
  void OnElectionTimeout();
  void StartElection();
  // The candidate's own vote, once on disk (a no-op if the election moved on).
  void CountOwnVote(std::int64_t term);
  void OnPreVote(const RaftMessage& m);
  void OnPreVoteReply(const RaftMessage& m);
  void OnVote(const RaftMessage& m);
  void OnVoteReply(const RaftMessage& m);
  void BecomeLeader();

  // A higher term was seen, or this leader lost its quorum, or a leader of
  // this term exists: follow.
  void BecomeFollower(std::int64_t term);
  void StepDown();

  // --- replication -----------------------------------------------------------
  void OnHeartbeat();
  void Broadcast();
  void SendAppend(int peer, std::int64_t round);
  void OnAppend(const RaftMessage& m);
  void OnAppendReply(const RaftMessage& m);
  void AdvanceCommit();
  void Apply();
  void ApplyKv(const ReplicaLogEntry& entry);
  KvReply ApplyKvRequest(const ReplicaLogEntry& entry, std::optional<KvExpiry>& expired);

  // --- the KV store's lessor (etcd server/lease/lessor.go) -------------------
  // Primary once this leader applied its term's no-op: every TTL restarts.
  void Promote();
  // No longer leading: nothing expires here; renewals waiting are refused.
  void Demote();
  // Starts the loop's clock (once per incarnation), and arms it.
  void StartLessor();
  // Schedules the loop's next round, if it has started and leases exist.
  void ArmLessor();
  // The primary proposes the revoke of every lease past its deadline.
  void RevokeExpired();
  void AnswerRenewals(core::KvLeaseId lease);

  // --- clients ---------------------------------------------------------------
  void HandleClient(const ClientRequest& request, const Route& route);
  void HandleKvWrite(const std::shared_ptr<const KvRequest>& request, const Route& route);
  void HandleWatch(const KvWatchRequest& request, const Route& route);
  void NotifyWatchers();

  std::int64_t ConfirmedRound() const;

  void ServeReads();
  struct PendingRead;
  void ServeRead(PendingRead& read);
  void ServeKeepAlive(const KvRequest& request, const Route& route);
  void ServeUnsafeRead(const ClientRequest& request, const Route& route);
  // An answer (a read's, a keep-alive's) from this replica's state as
  // applied now: placed in the store's order after what it applied.
  ClientAnswer AnswerFromState(KvReply reply);

  struct PendingRead {
    ClientRequest request;
    Route route;
    std::int64_t read_index = -1;  // -1: not known until this leader commits in its term
    std::int64_t round = 0;
    // Entries committed anywhere when it arrived (RaftInvariants::ReadServed); -1: not yet set.
    std::int64_t committed_at_arrival = -1;
  };
  std::int64_t committed_at_arrival_ = 0;  // at the last client request this replica took

  ReplicatedStore& store_;
  int me_;
  sim::HostId host_;
  std::uint64_t incarnation_;
  base::Prng prng_;

  ReplicaRole role_ = ReplicaRole::kFollower;
  int leader_hint_ = 0;
  sim::Nanos last_leader_contact_ = 0;
  std::int64_t commit_ = 0;
  std::int64_t applied_ = 0;
  KvState kv_;
  std::map<std::int64_t, KvReply> kv_results_;  // by KV request id: applied at most once
  std::set<int> votes_;
  std::int64_t own_vote_term_ = 0;  // a candidate's own vote, counted after the fsync under way (0: none)
  // A duty's deadline (the host's monotonic clock) and its one timer of the
  // World's. A reset moves only `deadline`; the timer, at `fires_at`, is
  // never later than a deadline set after it was armed (ArmDutyTimer).
  struct DutyTimer {
    bool on = false;        // the duty runs at its deadline
    sim::Nanos deadline = 0;
    bool pending = false;   // a timer is queued (or its step waits for an fsync)
    sim::Nanos fires_at = 0;
  };
  DutyTimer election_;
  DutyTimer heartbeat_;
  DutyTimer& TimerOf(Duty duty) { return duty == Duty::kElection ? election_ : heartbeat_; }
  // The nearest a reset can set the duty's deadline: the timer fires no later.
  sim::Nanos ShortestDelay(Duty duty) const;

  // Leader only.
  std::vector<std::int64_t> next_;
  std::vector<std::int64_t> match_;
  std::vector<std::int64_t> acked_round_;
  std::vector<sim::Nanos> last_ack_;
  std::int64_t round_ = 0;
  std::map<std::int64_t, sim::Nanos> round_sent_at_;
  std::int64_t term_start_index_ = 0;
  std::vector<PendingRead> reads_;
  std::map<std::int64_t, Route> kv_waiting_;  // KV request id -> the client to answer
  // The lessor: primary while this leader's TTLs run; the leases whose
  // revoke it proposed, and when (its clock); keep-alives of leases past
  // their TTL, waiting for the revoke (etcd's Renew waits on revokec).
  bool primary_ = false;
  bool lessor_started_ = false;
  bool lessor_armed_ = false;  // its loop's next round is scheduled
  sim::Nanos lessor_anchor_ = 0;  // a time (own clock) of the loop's phase: its start or last round
  std::map<core::KvLeaseId, sim::Nanos> revoking_;
  std::multimap<core::KvLeaseId, Route> renewing_;
  // Watches waiting for news, one per client host (the leader serves them).
  struct Watcher {
    KvWatchRequest request;
    Route route;
  };
  std::vector<Watcher> watchers_;
  static constexpr std::size_t kWatchersMax = 4096;

  // The disk: an fsync in flight, the messages waiting for it, and the
  // inputs that arrived meanwhile.
  bool in_step_ = false;
  bool syncing_ = false;
  bool applied_in_step_ = false;  // the step (or batch) applied committed entries
  bool halted_ = false;           // a failpoint struck: this incarnation takes no more input
  std::vector<std::pair<int, RaftMessage>> outbox_;
  std::deque<std::function<void()>> deferred_;
  // What may queue during one fsync: the inputs that arrive meanwhile, and
  // what the World held for this host while it was paused (its own bound is
  // a million deeds) if it resumes mid-fsync. Store-fuzz's longest queue is
  // in docs/REPLICATED_STORE.md ("The disk").
  static constexpr std::size_t kDeferredMax = 1'000'000;
};

}  // namespace leasesim::backends
