#include "designs/zk_election/zk_election.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <utility>

#include "base/units.h"
#include "core/events.h"
#include "designs/common/design_job.h"

namespace leasesim::designs {
namespace {

using base::kNanosPerMilli;
using core::Env;
using core::EventKind;
using core::KvLeaseId;
using core::KvStatus;
using core::Nanos;
using core::NodeSetup;

// ClientCnxn.startConnect: after a failed connection attempt the client
// sleeps a random time below 1 s before the next.
constexpr Nanos kReconnectDelayMax = 1000 * kNanosPerMilli;

// The client's connection state, as Curator's ConnectionStateManager posts
// it from the ZooKeeper client's events.
enum class Connection {
  kConnecting,  // no session yet (or a new one being made after LOST)
  kConnected,   // CONNECTED / RECONNECTED
  kSuspended,   // SUSPENDED: the client's Disconnected (its own read timeout, or a refused connection)
};

// One node incarnation: the ZooKeeper client (its session, pings and
// connection state), Curator's LeaderLatch on it, and the settlement job,
// which runs while hasLeadership() is true.
class ZkElectionNode final : public core::ProtocolNode {
 public:
  ZkElectionNode(Env& env, NodeSetup setup)
      : env_(env),
        setup_(std::move(setup)),
        // The session timeout the client asks for: the scenario's lease
        // duration (Curator's default is 60 s, which the server's default
        // maxSessionTimeout, 20 tickTimes, cuts to 40 s).
        requested_timeout_(setup_.timing.lease_duration),
        latch_prefix_(setup_.key + "/"),
        job_(env, setup_.settlement, setup_.identity) {
    assert(env_.kv_servers() >= 1);
    assert(requested_timeout_ > 0);
  }

  void Start() override {
    env_.Spawn("zk-client", [this] { RunClient(); });
    env_.Spawn("leader-latch", [this] { RunLatch(); });
    env_.Spawn("settlement", [this] {
      job_.Run(JobLeadership{.leading = [this] { return leading_; }, .token = [this] { return term_; }});
    });
  }

  // LeaderLatch.close() gives leadership up and deletes its node; closing
  // the client closes the session, which deletes every ephemeral node of it.
  void Shutdown(const std::string& preferred_successor) override {
    (void)preferred_successor;  // the recipe has no hand-over
    stopping_ = true;
    job_.StopAndWait();
    SetLeadership(false, "released");
    env_.AtFaultPoint(core::FaultPoint::kDuringRelease);
    if (session_ != core::kNoLease) Store().LeaseRevoke(session_, setup_.timing.request_timeout);
    session_ = core::kNoLease;
  }

 private:
  core::KvClient& Store() { return env_.kv(0); }

  // ---- the ZooKeeper client (ClientCnxn.SendThread) ----

  void RunClient() {
    while (!stopping_) {
      if (session_ == core::kNoLease) {
        if (!OpenSession()) SleepReconnectDelay();
        continue;
      }
      PingOrTimeOut();
    }
  }

  // A new session (ZooKeeper's ConnectRequest with no session id); the
  // server grants the timeout it negotiates, which the client then uses.
  bool OpenSession() {
    const core::KvLeaseResult granted = Store().LeaseGrant(requested_timeout_, setup_.timing.request_timeout);
    if (granted.status != KvStatus::kOk || stopping_) return false;
    session_ = granted.id;
    session_timeout_ = granted.ttl;
    Heard();
    Connected();
    return true;
  }

  // The SendThread's loop: a ping once nothing was sent for a third of the
  // session timeout (readTimeout / 2, readTimeout being 2/3 of it), and
  // Disconnected once nothing was heard for readTimeout.
  void PingOrTimeOut() {
    const Nanos read_timeout = session_timeout_ * 2 / 3;
    const Nanos read_deadline = last_heard_ + read_timeout;
    const Nanos next_ping = last_sent_ + read_timeout / 2;
    const Nanos now = env_.MonotonicNow();
    if (connection_ == Connection::kConnected && now >= read_deadline) return Suspend("disconnected");
    if (connection_ == Connection::kConnected && now < next_ping) {
      env_.SleepUntil(std::min(next_ping, read_deadline));
      return;
    }
    // Connected: a ping, waited for until the read deadline at most.
    // Suspended: a reconnection attempt with the session's id.
    if (leading_) env_.AtFaultPoint(core::FaultPoint::kBeforeRenew);  // the leader's session ping
    last_sent_ = env_.MonotonicNow();
    const Nanos wait =
        connection_ == Connection::kConnected ? read_deadline - last_sent_ : setup_.timing.request_timeout;
    const core::KvLeaseResult answer = Store().LeaseKeepAlive(session_, std::max<Nanos>(wait, 1));
    if (stopping_) return;
    switch (answer.status) {
      case KvStatus::kOk:
        Heard();
        if (connection_ != Connection::kConnected) Connected();
        return;
      case KvStatus::kLeaseNotFound: return Expired();
      case KvStatus::kUnavailable:
        // The server closed the connection: Disconnected at once.
        if (connection_ == Connection::kConnected) Suspend("disconnected");
        SleepReconnectDelay();
        return;
      default:
        if (connection_ == Connection::kSuspended) SleepReconnectDelay();
        return;
    }
  }

  void Heard() { last_heard_ = last_sent_ = env_.MonotonicNow(); }

  // CONNECTED, or RECONNECTED after SUSPENDED or LOST.
  void Connected() { connection_ = Connection::kConnected; }

  // SUSPENDED. LeaderLatch.handleStateChange: with the Standard policy
  // SUSPENDED is an error state, so leadership is lost at once; on the next
  // RECONNECTED the latch reads the children again (getChildren()), and
  // leads again with the same node if it is still there and first.
  void Suspend(const std::string& reason) {
    connection_ = Connection::kSuspended;
    ++losses_;
    SetLeadership(false, reason);
  }

  // Expired, learned only on reconnecting (the server answers the session's
  // id with "expired"): Curator posts LOST and makes a new ZooKeeper handle,
  // a new session; the ephemeral nodes went with the old one.
  void Expired() {
    ++losses_;
    SetLeadership(false, "lost");
    session_ = core::kNoLease;
    connection_ = Connection::kConnecting;
  }

  void SleepReconnectDelay() {
    env_.SleepUntil(env_.MonotonicNow() + 1 + static_cast<Nanos>(env_.Random() % kReconnectDelayMax));
  }

  // ---- Curator's LeaderLatch ----

  void RunLatch() {
    while (!stopping_) {
      env_.SleepInSteps(setup_.timing.retry, [this] { return stopping_ || connection_ == Connection::kConnected; });
      if (stopping_) return;
      latch_losses_ = losses_;  // RECONNECTED: getChildren() again, below
      if (node_.empty() && !CreateNode()) {
        env_.SleepUntil(env_.MonotonicNow() + setup_.timing.retry);
        continue;
      }
      CheckLeadership();
    }
  }

  // create().creatingParentContainersIfNeeded().withProtection()
  // .withMode(EPHEMERAL_SEQUENTIAL): a node on the session; its sequence is
  // its create revision. Protection: after a create of unknown outcome the
  // client looks for its own node among the children.
  bool CreateNode() {
    if (session_ == core::kNoLease) return false;  // no session: nothing to put the node on
    const std::string name = latch_prefix_ + "_c_" + setup_.identity + "-" + std::to_string(++creates_) + "-latch-";
    core::KvTxn create;
    create.compares.push_back(
        {.key = name, .target = core::KvCompareTarget::kCreateRevision, .result = core::KvCompareResult::kEqual});
    create.success.push_back(core::KvRequestOp::Put(name, setup_.identity, session_));
    env_.AtFaultPoint(core::FaultPoint::kBeforeAcquire);
    const core::KvTxnResult created = Store().Txn(create, setup_.timing.request_timeout);
    if (created.status == KvStatus::kLeaseNotFound) {
      if (connection_ == Connection::kConnected) Expired();  // SessionExpiredException
      return false;
    }
    if (created.status == KvStatus::kOk && created.succeeded) {
      node_ = name;
      return true;
    }
    if (created.status != KvStatus::kTimeout) return false;
    const core::KvTxnResult found = Store().Range(core::KvRequestOp::Range(core::KvKeys::Single(name)),
                                                  setup_.timing.request_timeout);
    if (found.status == KvStatus::kOk && !found.responses.empty() && found.responses[0].count == 1) node_ = name;
    return !node_.empty();
  }

  // checkLeadership(getChildren()): sorted by sequence; the first leads;
  // any other watches the node just before its own and checks again once
  // that one is gone.
  void CheckLeadership() {
    const core::KvTxnResult children = Store().Range(
        core::KvRequestOp::Range(core::KvKeys::Prefix(latch_prefix_), core::KvSortBy::kCreateRevision),
        setup_.timing.request_timeout);
    if (children.status != KvStatus::kOk || children.responses.empty() || latch_losses_ != losses_) return;
    const auto& kvs = children.responses[0].kvs;
    const auto ours = std::find_if(kvs.begin(), kvs.end(), [&](const core::KvEntry& e) { return e.key == node_; });
    if (ours == kvs.end()) {
      // "Can't find our node. Resetting.": its session ended with it;
      // reset() creates a new one (at the back of the queue).
      node_.clear();
      SetLeadership(false, "node deleted");
      return;
    }
    if (ours == kvs.begin()) {
      if (!leading_) {
        term_ = ours->create_revision;  // the token: the node's sequence
        SetLeadership(true, "");
      }
      // The leader watches nothing: it stays leader until the connection
      // state says otherwise (or its node is found gone on a later check).
      env_.SleepInSteps(setup_.timing.retry, [this] { return stopping_ || latch_losses_ != losses_; });
      return;
    }
    WaitForDeletion(std::prev(ours)->key, children.revision + 1);
  }

  // getData(previous) with a watcher: returns once the predecessor is
  // deleted (or the watch must be set again).
  void WaitForDeletion(const std::string& predecessor, std::int64_t from_revision) {
    while (!stopping_ && latch_losses_ == losses_) {
      const core::KvWatchResult news =
          Store().Watch(core::KvKeys::Single(predecessor), from_revision, std::max<Nanos>(session_timeout_ / 3, kNanosPerMilli));
      if (news.status == KvStatus::kCompacted || news.status == KvStatus::kUnavailable) return;
      for (const core::KvWatchEvent& event : news.events) {
        if (event.type == core::KvWatchEvent::Type::kDelete) return;
        from_revision = event.kv.mod_revision + 1;
      }
      if (news.status == KvStatus::kTimeout) return;  // read the children again: no news proves nothing
    }
  }

  // hasLeadership, and the listener's isLeader / notLeader: the belief.
  void SetLeadership(bool leading, const std::string& reason) {
    if (leading == leading_) return;
    leading_ = leading;
    core::LeaseEvent event{.kind = leading ? EventKind::kAcquired
                                           : (reason == "released" ? EventKind::kReleased : EventKind::kDemoted),
                           .holder = setup_.identity,
                           .term = term_};
    event.monotonic_ns = env_.MonotonicNow();
    event.boot_ns = env_.BootNow();
    event.reason = reason;  // valid_until stays 0: hasLeadership() claims no deadline
    env_.events().Emit(event);
  }

  Env& env_;
  const NodeSetup setup_;
  const Nanos requested_timeout_;
  const std::string latch_prefix_;
  DesignJob job_;
  bool stopping_ = false;
  // The client.
  KvLeaseId session_ = core::kNoLease;
  Nanos session_timeout_ = 0;  // as the server granted it
  Connection connection_ = Connection::kConnecting;
  Nanos last_heard_ = 0;  // monotonic (System.nanoTime, as ClientCnxnSocket's idle timers)
  Nanos last_sent_ = 0;
  std::int64_t losses_ = 0;  // SUSPENDED or LOST seen: the latch checks again on reconnection
  // The latch.
  std::int64_t latch_losses_ = 0;
  std::int64_t creates_ = 0;
  std::string node_;
  bool leading_ = false;
  std::int64_t term_ = 0;
};

core::Protocol ZkElection(const char* name, bool fenced) {
  return core::Protocol{
      .name = name,
      .summary = fenced ? "ZooKeeper's leader recipe as Curator's LeaderLatch runs it; the node's sequence fences"
                        : "ZooKeeper's leader recipe as Curator's LeaderLatch runs it; unfenced ledger",
      .build = [](Env& env, const NodeSetup& setup) -> std::unique_ptr<core::ProtocolNode> {
        return std::make_unique<ZkElectionNode>(env, setup);
      },
      .ledger_checks_fence = fenced,
      .kv_stores = {.servers = 1, .model = core::KvStoreModel::kZooKeeper},
      .design = kZkElectionProtocol,
  };
}

}  // namespace

void RegisterZkElection(core::ProtocolRegistry& registry) {
  const bool plain = registry.Add(ZkElection(kZkElectionProtocol, false));
  const bool fenced = registry.Add(ZkElection(kZkElectionFencedProtocol, true));
  assert(plain);
  assert(fenced);
  (void)plain;
  (void)fenced;
}

}  // namespace leasesim::designs
