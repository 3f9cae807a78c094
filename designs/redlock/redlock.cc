#include "designs/redlock/redlock.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/units.h"
#include "core/events.h"
#include "designs/common/design_job.h"

namespace leasesim::designs {
namespace {

using base::kNanosPerMilli;
using core::Env;
using core::EventKind;
using core::KvLeaseId;
using core::Nanos;
using core::NodeSetup;

// node-redlock (src/index.ts, defaultSettings): retryDelay 200 ms with
// retryJitter 100 ms either way; automaticExtensionThreshold 500 ms (`using`
// extends the lock this long before its expiration).
constexpr Nanos kRetryDelay = 200 * kNanosPerMilli;
constexpr Nanos kRetryJitter = 100 * kNanosPerMilli;
constexpr Nanos kExtensionThreshold = 500 * kNanosPerMilli;
// The term's low bits: the node's number, so two nodes starting in the
// same millisecond still differ (see TermOf).
constexpr std::int64_t kNodeSlots = 1024;

// The node's number from its stable name ("n3" -> 3), for the term.
std::int64_t NodeNumber(const std::string& name) {
  std::int64_t number = 0;
  for (const char c : name) {
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) number = number * 10 + (c - '0');
  }
  return number % kNodeSlots;
}

// One node incarnation: a lock task (acquire, extend, release) and the
// settlement job, which runs while the lock's validity lasts.
class RedlockNode final : public core::ProtocolNode {
 public:
  RedlockNode(Env& env, NodeSetup setup)
      : env_(env),
        setup_(std::move(setup)),
        servers_(env.kv_servers()),
        quorum_(servers_ / 2 + 1),
        ttl_(setup_.timing.lease_duration),
        // The description's drift: "ttl * 1% + 2 ms" (node-redlock: round(driftFactor
        // 0.01 * duration) + 2, the 2 ms for Redis's 1 ms expiry precision).
        drift_(ttl_ / 100 + 2 * kNanosPerMilli),
        node_number_(NodeNumber(setup_.node_name)),
        leases_(static_cast<std::size_t>(servers_), core::kNoLease),
        job_(env, setup_.settlement, setup_.identity) {
    assert(servers_ >= 1);
    assert(ttl_ > drift_);
  }

  void Start() override {
    env_.Spawn("redlock", [this] { RunLock(); });
    env_.Spawn("settlement", [this] {
      job_.Run(JobLeadership{.leading = [this] { return Leading(); },
                             .token = [this] { return term_; },
                             .claimed_deadline = [this] { return valid_until_boot_; }});
    });
  }

  // node-redlock's `using` ends with lock.release(): the compare-value
  // delete on every instance.
  void Shutdown(const std::string& preferred_successor) override {
    (void)preferred_successor;  // Redlock has no hand-over
    stopping_ = true;
    job_.StopAndWait();
    if (held_) Lose(EventKind::kReleased, "released");
  }

 private:
  // The belief: the lock is held until its validity runs out on the
  // client's wall clock (node-redlock: `expiration` from Date.now(), the
  // realtime clock; redlock-py likewise takes time.time()).
  bool Leading() { return held_ && env_.WallNow() < expiration_wall_; }

  void RunLock() {
    while (!stopping_) {
      if (!Acquire()) {
        SleepRetryDelay();
        continue;
      }
      Hold();
    }
  }

  // One attempt of the description's steps 1-5: the time, SET NX PX on every
  // instance in turn, success on a majority within the validity; on failure
  // "unlock all the instances (even the instances it believed it was not
  // able to lock)".
  bool Acquire() {
    env_.AtFaultPoint(core::FaultPoint::kBeforeAcquire);
    const Nanos start_wall = env_.WallNow();
    value_ = setup_.identity + "/" + std::to_string(++acquisitions_);
    int votes = 0;
    for (int server = 0; server < servers_ && !stopping_; ++server) {
      leases_[static_cast<std::size_t>(server)] = SetIfAbsent(server);
      if (leases_[static_cast<std::size_t>(server)] != core::kNoLease) ++votes;
    }
    env_.AtFaultPoint(core::FaultPoint::kAfterCasReply);
    const Nanos validity = ttl_ - (env_.WallNow() - start_wall) - drift_;
    if (stopping_ || votes < quorum_ || validity <= 0) {
      ReleaseAll();
      return false;
    }
    term_ = TermOf(start_wall);
    held_ = true;
    SetExpiration(start_wall);
    Report(EventKind::kAcquired);
    return true;
  }

  // SET key value NX PX ttl on one instance (docs/STORE_MODEL.md, "The
  // shipped recipes": a fresh lease of the TTL, then "create revision = 0
  // then put on it"); the lease the key is on, or kNoLease. A lease whose
  // put failed holds no key and ends on its own.
  KvLeaseId SetIfAbsent(int server) {
    const Nanos timeout = setup_.timing.request_timeout;
    const core::KvLeaseResult grant = env_.kv(server).LeaseGrant(ttl_, timeout);
    if (grant.status != core::KvStatus::kOk) return core::kNoLease;
    core::KvTxn txn;
    txn.compares.push_back(
        {.key = setup_.key, .target = core::KvCompareTarget::kCreateRevision, .result = core::KvCompareResult::kEqual});
    txn.success.push_back(core::KvRequestOp::Put(setup_.key, value_, grant.id));
    const core::KvTxnResult set = env_.kv(server).Txn(txn, timeout);
    return set.status == core::KvStatus::kOk && set.succeeded ? grant.id : core::kNoLease;
  }

  // The release script (node-redlock RELEASE_SCRIPT; the description's "delete
  // the key only if it exists and its value is still the one I set"), on
  // every instance, once each (node-redlock releases with retryCount 0).
  void ReleaseAll() {
    for (int server = 0; server < servers_; ++server) {
      core::KvTxn txn;
      txn.compares.push_back({.key = setup_.key,
                              .target = core::KvCompareTarget::kValue,
                              .result = core::KvCompareResult::kEqual,
                              .value = value_});
      txn.success.push_back(core::KvRequestOp::Delete(core::KvKeys::Single(setup_.key)));
      env_.kv(server).Txn(txn, setup_.timing.request_timeout);
      leases_[static_cast<std::size_t>(server)] = core::kNoLease;
    }
  }

  // node-redlock's `using`: an extension is queued for expiration - 500 ms
  // on a timer (libuv's monotonic timer, the delay computed from Date.now());
  // the lock is lost when it cannot be extended before it expires.
  void Hold() {
    while (!stopping_ && held_) {
      const Nanos wait = expiration_wall_ - kExtensionThreshold - env_.WallNow();
      env_.SleepUntil(env_.MonotonicNow() + std::max<Nanos>(wait, 0));
      if (stopping_ || !held_) return;
      if (!Extend() && held_) Lose(EventKind::kDemoted, "validity");
    }
  }

  // The description's "extending the lock": a script that resets the TTL
  // where the key still holds this value, counted on a majority within the
  // validity, tried again after the retry delay while the lock has not
  // expired (node-redlock `extend`, and `using` retrying it while
  // lock.expiration > Date.now()).
  bool Extend() {
    for (;;) {
      env_.AtFaultPoint(core::FaultPoint::kBeforeRenew);
      const Nanos start_wall = env_.WallNow();
      if (start_wall >= expiration_wall_ || stopping_) return false;  // "Cannot extend an already-expired lock"
      int votes = 0;
      for (int server = 0; server < servers_; ++server) votes += ResetTtl(server) ? 1 : 0;
      if (votes >= quorum_) {
        // Validity ran out while the extension was on its way: the belief
        // ended then (the job stopped); it starts again with the new one.
        const bool lapsed = env_.WallNow() >= expiration_wall_;
        if (lapsed) Report(EventKind::kDemoted, "validity");
        SetExpiration(start_wall);
        Report(lapsed ? EventKind::kAcquired : EventKind::kRenewed);
        return true;
      }
      SleepRetryDelay();
    }
  }

  // The extend script on one instance. This client's key is on its own
  // lease, which nobody else touches: the lease is alive exactly while the
  // key holds this value, so a keep-alive of it is the compare-value PEXPIRE.
  // An instance whose SET did not answer OK is not counted (a SET of unknown
  // outcome might have applied there: node-redlock would count it).
  bool ResetTtl(int server) {
    const KvLeaseId lease = leases_[static_cast<std::size_t>(server)];
    if (lease == core::kNoLease) return false;
    const core::KvLeaseResult kept = env_.kv(server).LeaseKeepAlive(lease, setup_.timing.request_timeout);
    if (kept.status == core::KvStatus::kLeaseNotFound) leases_[static_cast<std::size_t>(server)] = core::kNoLease;
    return kept.status == core::KvStatus::kOk;
  }

  // The lock is given up or lost: the belief ends, and node-redlock's
  // `using` releases it on every instance.
  void Lose(EventKind kind, const std::string& reason) {
    held_ = false;
    Report(kind, reason);
    env_.AtFaultPoint(core::FaultPoint::kDuringRelease);
    ReleaseAll();
  }

  // expiration = start + ttl - drift (node-redlock), which is the
  // description's "validity = ttl - elapsed - drift" counted from now.
  void SetExpiration(Nanos start_wall) {
    expiration_wall_ = start_wall + ttl_ - drift_;
    valid_until_boot_ = env_.BootNow() + (expiration_wall_ - env_.WallNow());
  }

  // Redlock has no ordered token (its value is random); the checker keys
  // beliefs and writes by a term, so each acquisition reports one a client
  // could know: its start on its own wall clock, in ms, and its node's
  // number. Unique per acquisition; ordered like the acquisitions only
  // while the clients' wall clocks agree (designs/redlock/README.md).
  std::int64_t TermOf(Nanos start_wall) const { return (start_wall / kNanosPerMilli) * kNodeSlots + node_number_; }

  void SleepRetryDelay() {
    const Nanos jitter = static_cast<Nanos>(env_.Random() % static_cast<std::uint64_t>(2 * kRetryJitter + 1));
    env_.SleepUntil(env_.MonotonicNow() + kRetryDelay - kRetryJitter + jitter);
  }

  void Report(EventKind kind, std::string reason = "") {
    core::LeaseEvent event{.kind = kind, .holder = setup_.identity, .term = term_};
    event.monotonic_ns = env_.MonotonicNow();
    event.boot_ns = env_.BootNow();
    if (kind == EventKind::kAcquired || kind == EventKind::kRenewed) event.valid_until_ns = valid_until_boot_;
    event.reason = std::move(reason);
    env_.events().Emit(event);
  }

  Env& env_;
  const NodeSetup setup_;
  const int servers_;
  const int quorum_;
  const Nanos ttl_;    // the lock's TTL: the scenario's lease duration (Redlock has no default)
  const Nanos drift_;
  const std::int64_t node_number_;
  std::vector<KvLeaseId> leases_;  // per instance: the lease this acquisition's key is on
  DesignJob job_;
  bool stopping_ = false;
  bool held_ = false;
  std::int64_t acquisitions_ = 0;
  std::string value_;  // unique per acquisition, as the description's random value is meant to be
  std::int64_t term_ = 0;
  Nanos expiration_wall_ = 0;
  Nanos valid_until_boot_ = 0;
};

}  // namespace

void RegisterRedlock(core::ProtocolRegistry& registry) {
  const bool added = registry.Add(core::Protocol{
      .name = kRedlockProtocol,
      .summary = "Redlock (redis.io) on 5 independent Redis stores, extended as node-redlock's `using` does; no token",
      .build = [](Env& env, const NodeSetup& setup) -> std::unique_ptr<core::ProtocolNode> {
        return std::make_unique<RedlockNode>(env, setup);
      },
      // No ordered token: the ledger can only deduplicate by window.
      .ledger_checks_fence = false,
      .kv_stores = {.servers = 5, .model = core::KvStoreModel::kRedis},
      .design = kRedlockProtocol,  // one token mode: its random value is not ordered
  });
  assert(added);
  (void)added;
}

}  // namespace leasesim::designs
