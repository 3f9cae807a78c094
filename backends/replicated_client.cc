// The client side of the replicated store: one call, retried across
// replicas until it has an answer or its deadline passes.

#include <algorithm>
#include <cassert>
#include <memory>
#include <utility>

#include "backends/replica_process.h"
#include "backends/replicated_store.h"

namespace leasesim::backends {
namespace {

// What a call's attempts share with the network callbacks that answer them
// (which may run after the call has returned, hence shared ownership).
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

// Attempts of one call: each a bound on the work a call can cause even if
// replicas kept redirecting at no cost in time (the deadline bounds the rest).
constexpr int kAttemptsMax = 100'000;

}  // namespace

// One call, from a fiber on the client's host: tries the replica it believes
// leads (or the nearest), follows redirects, rotates on silence, waits a
// heartbeat while nobody leads, and resends after a failover (a resend is
// applied at most once).
class ReplicatedCall {
 public:
  ReplicatedCall(ReplicatedStore& store, sim::HostId client, StoreRequest request, core::Nanos timeout)
      : store_(store),
        client_(client),
        request_(std::move(request)),
        incarnation_(store.world_.incarnation(client)),
        stats_(StatsFor(store, client, incarnation_)),
        is_read_(request_.kind == StoreOpKind::kRead),
        unsafe_read_(is_read_ && store.config_.read_mode == ReadMode::kUnsafe),
        invoked_(store.world_.now()),
        deadline_(Local() + timeout),
        target_(unsafe_read_ || stats_.leader_hint == 0 ? store.NearestReplica(client) : stats_.leader_hint) {}

  core::StoreResult Run() {
    for (int attempt = 1; attempt <= kAttemptsMax; ++attempt) {
      if (state_->done || Local() >= deadline_) break;
      if (attempt > 1) store_.figures_.Resend();
      SendAttempt(attempt);
      store_.world_.Wait(state_->token, std::min(deadline_, Local() + store_.config_.client_attempt_timeout));
      if (state_->done) break;
      if (!state_->answered) {
        OnSilence();
      } else {
        OnRedirect();
      }
    }
    core::StoreResult result = Outcome();
    const bool answered = result.status == core::StoreStatus::kOk || result.status == core::StoreStatus::kConflict;
    store_.figures_.CallEnded(invoked_, store_.world_.now(), answered, stats_.outage_since);
    return result;
  }

 private:
  using ClientStats = ReplicatedStore::ClientStats;

  static ClientStats& StatsFor(ReplicatedStore& store, sim::HostId client, std::uint64_t incarnation) {
    ClientStats& stats = store.clients_[client];
    if (stats.incarnation != incarnation) stats = ClientStats{incarnation, 0, -1};  // a restarted client
    return stats;
  }

  sim::Nanos Local() const { return store_.world_.clock(client_).Monotonic(store_.world_.now()); }
  int Next(int replica) const { return replica % store_.config_.replicas + 1; }

  // Sends the request to the target replica; its answer travels back over
  // the network and wakes the call (a late answer to an earlier attempt
  // counts only if it is a result).
  void SendAttempt(int attempt) {
    state_->attempt = attempt;
    state_->answered = false;
    state_->token = store_.world_.PrepareWait();
    ReplicatedStore* store = &store_;
    const sim::HostId client = client_;
    const std::uint64_t incarnation = incarnation_;
    const int replica = target_;
    std::shared_ptr<CallState> state = state_;
    const StoreRequest request = request_;
    store_.network_.Send(client, store_.host(replica), sim::kAnyIncarnation,
                         [store, replica, client, incarnation, state, attempt, request] {
      ReplicaProcess* process = store->Process(replica);
      if (process == nullptr) return;
      process->OnClientArrival(request, [store, replica, client, incarnation, state,
                                         attempt](const ClientAnswer& answer) {
        store->network_.Send(store->host(replica), client, incarnation, [store, replica, state, attempt, answer] {
          Deliver(*store, replica, *state, attempt, answer);
        });
      });
    });
  }

  static void Deliver(ReplicatedStore& store, int replica, CallState& state, int attempt, const ClientAnswer& answer) {
    if (answer.kind == ClientAnswer::Kind::kResult) {
      if (state.done) return;  // a resend's answer; the first one counted
      state.done = true;
      state.result = answer.result;
      state.read_seq = answer.read_seq;
      state.answered_by = replica;
    } else if (attempt == state.attempt) {
      state.answered = true;
      state.answer = answer;
    } else {
      return;
    }
    store.world_.Signal(state.token);
  }

  // Silence: the replica is down, cut off or slow. A write may have been
  // appended there; try the next replica.
  void OnSilence() {
    silent_ = true;
    if (!is_read_) maybe_applied_ = true;
    stats_.leader_hint = 0;
    target_ = Next(target_);
  }

  // An answer that is not a result: go where it points, or, when nobody is
  // known to lead (an election is on), wait a heartbeat and ask the next.
  void OnRedirect() {
    const ClientAnswer answer = state_->answer;
    store_.figures_.Redirect();
    if (answer.kind == ClientAnswer::Kind::kRetry && !is_read_) maybe_applied_ = true;
    if (answer.hint != 0 && answer.hint != target_) {
      stats_.leader_hint = answer.hint;
      target_ = answer.hint;
      return;
    }
    stats_.leader_hint = 0;
    target_ = Next(target_);
    const sim::Nanos pause = std::min(deadline_, Local() + store_.config_.heartbeat);
    if (!state_->done) store_.world_.SleepUntilLocal(pause);
  }

  core::StoreResult Outcome() {
    core::StoreResult result;
    if (state_->done) {
      result = state_->result;
      if (is_read_ && state_->read_seq >= 0) store_.observer_.StoreApplied(request_.op, state_->read_seq);
      if (!unsafe_read_) stats_.leader_hint = state_->answered_by;
    } else {
      result.status = maybe_applied_ || silent_ ? core::StoreStatus::kTimeout : core::StoreStatus::kUnavailable;
    }
    return result;
  }

  ReplicatedStore& store_;
  const sim::HostId client_;
  const StoreRequest request_;
  const std::uint64_t incarnation_;
  ClientStats& stats_;
  const bool is_read_;
  const bool unsafe_read_;
  const sim::Nanos invoked_;
  const sim::Nanos deadline_;
  int target_;
  const std::shared_ptr<CallState> state_ = std::make_shared<CallState>();
  bool maybe_applied_ = false;
  bool silent_ = false;  // some attempt got no answer at all
};

core::StoreResult ReplicatedStore::Call(sim::HostId client, StoreRequest request, core::Nanos timeout) {
  assert(world_.in_fiber());
  assert(timeout > 0);
  ReplicatedCall call(*this, client, std::move(request), timeout);
  return call.Run();
}

}  // namespace leasesim::backends
