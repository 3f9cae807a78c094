#pragma once
// One replica of the replicated store (backends/replicated_store.h): a Raft
// participant with pre-vote and check-quorum, as etcd runs it, serving
// clients from the leader (read index for linearizable reads) or, in the
// unsafe mode, from whatever it has applied. Internal to backends/.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "backends/lease_store.h"
#include "backends/replicated_store.h"
#include "sim/prng.h"
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
  core::StoreResult result;
  std::int64_t read_seq = -1;  // a read's place in the applied order
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
  const LeaseStore& state_machine() const { return sm_; }

  // A client request arrived: act on it after the service time.
  void OnClientArrival(const StoreRequest& request, Route route);
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
  void ArmElection(sim::Nanos delay);
  void ArmHeartbeat();
  void Send(int to, RaftMessage message);

  // --- the disk (docs/REPLICATED_STORE.md, "Durability") ---------------------
  // Runs one input (a message, a client request, a timer) as etcd's raft
  // loop runs a Ready: what the step wrote is fsynced before the messages
  // it produced go out, and no new input is taken while the fsync runs.
  template <class F>
  void Step(F&& step);
  void EndStep();
  void SyncDone();
  void Synced();
  void LogChanged(std::int64_t from);
  bool UpToDate(const RaftMessage& m);

  bool HeardFromLeaderRecently() const;

  // --- elections -------------------------------------------------------------
  void OnElectionTimeout();
  void StartElection();
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

  // --- clients ---------------------------------------------------------------
  void HandleClient(const StoreRequest& request, const Route& route);

  std::int64_t ConfirmedRound() const;

  void ServeReads();

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

  // The disk: an fsync in flight, the messages waiting for it, and the
  // inputs that arrived meanwhile.
  bool in_step_ = false;
  bool syncing_ = false;
  std::vector<std::pair<int, RaftMessage>> outbox_;
  std::deque<std::function<void()>> deferred_;
};

}  // namespace leasesim::backends
