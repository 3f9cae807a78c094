#include "designs/etcd_election/etcd_election.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <absl/strings/str_format.h>

#include "base/units.h"
#include "core/kv_store.h"
#include "designs/common/design_job.h"
#include "designs/common/design_protocol.h"

// Sources, read at etcd-io/etcd client/v3: concurrency/session.go
// (NewSession: grant, KeepAlive, Done), concurrency/election.go (Campaign,
// Resign), concurrency/key.go (waitDelete, waitDeletes), lease.go (the
// keep-alive loop: sendKeepAliveLoop every 500 ms, a keep-alive due a third
// of the TTL after the last answer, deadlineLoop ending a keep-alive whose
// TTL ran out on the client's clock, firstKeepAliveTimeout), and
// server/lease/lessor.go (the minimum TTL).

namespace leasesim::designs {
namespace {

using base::kNanosPerMilli;
using base::kNanosPerSecond;
using core::Env;
using core::KvStatus;
using core::NodeSetup;

// lease.go: sendKeepAliveLoop and deadlineLoop both tick every 500 ms.
constexpr Nanos kKeepAliveTick = 500 * kNanosPerMilli;
// lease.go: defaultTTL (5 s), the first keep-alive's deadline when the
// client has no dial timeout.
constexpr Nanos kFirstKeepAliveTimeout = 5 * kNanosPerSecond;
// lessor.go: a TTL below minLeaseTTL (3/2 election timeouts: 1.5 s with
// etcd's default 100 ms heartbeat and 10-tick election, whole seconds: 2)
// is raised to it.
constexpr std::int64_t kMinTtlSeconds = 2;
// How long one watch long-poll waits before it is sent again (an etcd
// watch has no timeout; this only bounds the simulated call).
constexpr Nanos kWatchPoll = kNanosPerSecond;

// concurrency.WithTTL takes whole seconds: the scenario's lease rounded up,
// at least the server's minimum (docs/DESIGNS.md, "Timing").
Nanos SessionTtl(const core::TimingConfig& timing) {
  const std::int64_t seconds = (timing.lease_duration + kNanosPerSecond - 1) / kNanosPerSecond;
  return std::max(seconds, kMinTtlSeconds) * kNanosPerSecond;
}

std::string Hex(std::int64_t value) {
  return absl::StrFormat("%x", static_cast<std::uint64_t>(value));
}

// One session: its lease and the client-side keep-alive state of lease.go.
struct Session {
  core::KvLeaseId lease = core::kNoLease;
  Nanos next_keep_alive = 0;  // lease.go nextKeepAlive (monotonic)
  Nanos deadline = 0;         // lease.go ka.deadline (monotonic)
  bool done = false;          // Session.Done() is closed
  std::string done_reason;
};

// One node incarnation: a service that keeps a session, campaigns, leads
// (runs the job) until Session.Done(), and starts again with a new session.
class EtcdElectionNode final : public core::ProtocolNode {
 public:
  EtcdElectionNode(Env& env, const NodeSetup& setup)
      : env_(env), setup_(setup), ttl_(SessionTtl(setup.timing)), prefix_(setup.key + "/"),
        job_(env, setup.settlement, setup.identity), beliefs_(env, setup.identity) {}

  void Start() override {
    env_.Spawn("election", [this] { RunService(); });
    env_.Spawn("settlement", [this] {
      job_.Run(JobLeadership{.leading = [this] { return Leading(); }, .token = [this] { return leader_rev_; }});
    });
  }

  // A graceful shutdown: the job ends first, then the service resigns
  // (Election.Resign) and closes its session (Session.Close revokes the
  // lease). concurrency gives leadership up only when told, so the order is
  // the service's: the recipe's use is Campaign, the work, then Resign
  // (etcdctl's `elect`, etcdctl/ctlv3/command/elect_command.go, resigns
  // once its leading phase is over), and a service that resigned with a batch in flight
  // would let the next campaigner lead while its write is still on the way.
  // The session is kept alive while the job finishes.
  void Shutdown(const std::string& preferred_successor) override {
    (void)preferred_successor;  // the recipe has no successor
    job_.StopAndWait();
    stopping_ = true;
    NoteBelief("resigned");  // the service stops leading before its key goes
    if (campaigned_) Resign();
    if (session_ && !session_->done) {
      env_.kv(0).LeaseRevoke(session_->lease, setup_.timing.request_timeout);
      CloseSession("closed");
    }
  }

 private:
  void RunService() {
    while (!stopping_) {
      if (!NewSession()) continue;
      while (!stopping_ && !session_->done && !Campaign()) Sleep(setup_.timing.retry);
      if (stopping_ || session_->done) continue;
      campaigned_ = true;
      NoteBelief("");
      env_.SleepInSteps(kKeepAliveTick, [this] { return stopping_ || session_->done; });
      NoteBelief("session done");
      campaigned_ = false;
    }
  }

  void Sleep(Nanos period) { env_.SleepUntil(env_.MonotonicNow() + period); }

  // NewSession: LeaseGrant(TTL), then KeepAlive (session.go); false after a
  // retry period when the grant failed.
  bool NewSession() {
    const core::KvLeaseResult granted = env_.kv(0).LeaseGrant(ttl_, setup_.timing.request_timeout);
    if (granted.status != KvStatus::kOk) {
      Sleep(setup_.timing.retry);
      return false;
    }
    const Nanos now = env_.MonotonicNow();
    session_ = std::make_shared<Session>(
        Session{.lease = granted.id, .next_keep_alive = now, .deadline = now + kFirstKeepAliveTimeout});
    env_.Spawn("keepalive", [this, session = session_] { KeepAlive(session); });
    env_.Spawn("lease-deadline", [this, session = session_] { WatchDeadline(session); });
    return true;
  }

  // sendKeepAliveLoop/recvKeepAlive: every tick, a keep-alive when one is
  // due; an answer moves the next one to a third of the TTL and the
  // deadline to the whole TTL from its arrival; a lease the server no
  // longer has (TTL <= 0) closes the session.
  void KeepAlive(const std::shared_ptr<Session>& session) {
    while (!session->done && !stopping_) {
      Sleep(kKeepAliveTick);
      if (session->done || env_.MonotonicNow() < session->next_keep_alive) continue;
      env_.AtFaultPoint(core::FaultPoint::kBeforeRenew);  // the seam's named points (core/fault_points.h)
      const core::KvLeaseResult alive = env_.kv(0).LeaseKeepAlive(session->lease, setup_.timing.request_timeout);
      env_.AtFaultPoint(core::FaultPoint::kAfterCasReply);
      if (session->done) return;
      if (alive.status == KvStatus::kLeaseNotFound || (alive.status == KvStatus::kOk && alive.ttl <= 0)) {
        return CloseSession(session, "lease not found");
      }
      if (alive.status != KvStatus::kOk) continue;  // no answer: sent again next tick
      const Nanos now = env_.MonotonicNow();
      session->next_keep_alive = now + alive.ttl / kNanosPerSecond * kNanosPerSecond / 3;
      session->deadline = now + alive.ttl;
    }
  }

  // deadlineLoop: a keep-alive whose deadline passed on this client's clock
  // is closed, though the server may not have ended the lease.
  void WatchDeadline(const std::shared_ptr<Session>& session) {
    while (!session->done && !stopping_) {
      Sleep(kKeepAliveTick);
      if (env_.MonotonicNow() > session->deadline) CloseSession(session, "keep-alive deadline");
    }
  }

  // The keep-alive channel closes, and with it Session.Done(): the belief
  // ends here, whenever the service next looks.
  void CloseSession(const std::shared_ptr<Session>& session, const std::string& reason) {
    if (session->done) return;
    session->done = true;
    session->done_reason = reason;
    if (session == session_) NoteBelief(reason);
  }
  void CloseSession(const std::string& reason) { CloseSession(session_, reason); }

  // Election.Campaign: put prefix/<lease hex> with the lease if absent
  // (else learn its create revision), then wait for every key created
  // before it to be deleted. True once it returns without error.
  bool Campaign() {
    leader_key_ = prefix_ + Hex(session_->lease);
    const core::KvCompare absent{.key = leader_key_, .target = core::KvCompareTarget::kCreateRevision, .number = 0};
    core::KvTxn txn{
        .compares = {absent},
        .success = {core::KvRequestOp::Put(leader_key_, setup_.identity, session_->lease)},
        .failure = {core::KvRequestOp::Range(core::KvKeys::Single(leader_key_))}};
    env_.AtFaultPoint(core::FaultPoint::kBeforeAcquire);
    const core::KvTxnResult put = env_.kv(0).Txn(txn, setup_.timing.request_timeout);
    env_.AtFaultPoint(core::FaultPoint::kAfterCasReply);
    if (put.status != KvStatus::kOk) return false;
    if (put.succeeded) {
      leader_rev_ = put.revision;
    } else {
      assert(put.responses.size() == 1);
      if (put.responses.front().kvs.empty()) return false;
      leader_rev_ = put.responses.front().kvs.front().create_revision;
    }
    return WaitDeletes(leader_rev_ - 1);
  }

  // key.go waitDeletes: the newest key under the prefix created at or
  // before max_create_rev (etcd asks WithLastCreate and WithMaxCreateRev;
  // the seam sorts ascending, so the client picks it from the range), until
  // there is none. Note it never checks that its own key still exists.
  bool WaitDeletes(std::int64_t max_create_rev) {
    for (;;) {
      if (stopping_) return false;
      const core::KvTxnResult read = env_.kv(0).Range(
          core::KvRequestOp::Range(core::KvKeys::Prefix(prefix_), core::KvSortBy::kCreateRevision),
          setup_.timing.request_timeout);
      if (read.status != KvStatus::kOk) return false;
      const core::KvEntry* last = nullptr;
      for (const core::KvEntry& entry : read.responses.front().kvs) {
        if (entry.create_revision <= max_create_rev) last = &entry;
      }
      if (last == nullptr) return true;
      if (!WaitDelete(last->key, read.revision)) return false;
    }
  }

  // key.go waitDelete: watch the key from `revision` until a delete event;
  // a watch error (compacted) fails the campaign.
  bool WaitDelete(const std::string& key, std::int64_t revision) {
    std::int64_t from = revision;
    while (!stopping_) {
      const core::KvWatchResult watched = env_.kv(0).Watch(core::KvKeys::Single(key), from, kWatchPoll);
      if (watched.status == KvStatus::kTimeout || watched.status == KvStatus::kUnavailable) continue;
      if (watched.status != KvStatus::kOk) return false;
      for (const core::KvWatchEvent& event : watched.events) {
        if (event.type == core::KvWatchEvent::Type::kDelete) return true;
        from = std::max(from, event.kv.mod_revision + 1);
      }
    }
    return false;
  }

  // Election.Resign: delete the key if it is still the one this campaign made.
  void Resign() {
    core::KvTxn txn{
        .compares = {core::KvCompare{.key = leader_key_, .target = core::KvCompareTarget::kCreateRevision,
                                     .number = leader_rev_}},
        .success = {core::KvRequestOp::Delete(core::KvKeys::Single(leader_key_))}};
    env_.AtFaultPoint(core::FaultPoint::kDuringRelease);
    env_.kv(0).Txn(txn, setup_.timing.request_timeout);
    campaigned_ = false;
  }

  // What the library lets the service believe: Campaign returned and
  // Session.Done() is not closed.
  bool Leading() const { return campaigned_ && !stopping_ && session_ && !session_->done; }

  // Reports a change of belief; no deadline is claimed (Session exposes
  // none: only Done()).
  void NoteBelief(const std::string& reason) {
    const bool done = session_ && session_->done;
    beliefs_.Note(Leading(), leader_rev_, done ? session_->done_reason : reason, stopping_);
  }

  Env& env_;
  const NodeSetup setup_;
  const Nanos ttl_;
  const std::string prefix_;
  DesignJob job_;
  bool stopping_ = false;
  bool campaigned_ = false;
  BeliefReport beliefs_;
  std::shared_ptr<Session> session_;
  std::string leader_key_;
  std::int64_t leader_rev_ = 0;  // Election.leaderRev: the token
};

}  // namespace

void RegisterEtcdElection(core::ProtocolRegistry& registry) {
  RegisterTokenModes(
      registry, "etcd-election",
      "etcd concurrency.Election: leads from Campaign until Session.Done() (token: the key's create revision)",
      [](Env& env, const NodeSetup& setup) -> std::unique_ptr<core::ProtocolNode> {
        return std::make_unique<EtcdElectionNode>(env, setup);
      },
      core::KvStoreNeeds{.servers = 1, .model = core::KvStoreModel::kEtcd});
}

}  // namespace leasesim::designs
