#include "designs/kube_lease/kube_lease.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "base/units.h"
#include "core/kv_store.h"
#include "designs/common/design_job.h"
#include "designs/common/design_protocol.h"

// Sources: k8s.io/client-go tools/leaderelection/leaderelection.go (the
// elector: acquire, renew, release, tryAcquireOrRenew, IsLeader,
// isLeaseValid), tools/leaderelection/resourcelock/leaselock.go (the Lease
// as the lock: Get keeps the object, Update sends it back with its
// resourceVersion), k8s.io/apimachinery pkg/util/wait (JitterUntil, Until,
// PollImmediateUntil), coordination.k8s.io/v1 LeaseSpec. Read at
// kubernetes/kubernetes staging/src/k8s.io/client-go, commit 0138c828.

namespace leasesim::designs {
namespace {

using base::kNanosPerSecond;
using base::kNeverNanos;
using core::Env;
using core::KvStatus;
using core::KvTxn;
using core::KvTxnResult;
using core::NodeSetup;

// leaderelection.go: JitterFactor = 1.2, the acquire loop's jitter.
constexpr std::int64_t kJitterPermille = 1'200;

// coordination.k8s.io/v1 LeaseSpec, as LeaderElectionRecord carries it.
// Times are the writer's wall clock (metav1.MicroTime serialises no
// monotonic reading); nobody judges expiry by them.
struct LeaseSpec {
  std::string holder;                  // holderIdentity; empty after a release
  std::int64_t duration_seconds = 0;   // leaseDurationSeconds
  Nanos acquire_wall = 0;              // acquireTime
  Nanos renew_wall = 0;                // renewTime
  std::int64_t transitions = 0;        // leaseTransitions
};

// The object as the store keeps it: the fields, '|'-separated.
std::string Encode(const LeaseSpec& spec) {
  return spec.holder + "|" + std::to_string(spec.duration_seconds) + "|" + std::to_string(spec.acquire_wall) + "|" +
         std::to_string(spec.renew_wall) + "|" + std::to_string(spec.transitions);
}

bool ParseNumber(std::string_view text, std::int64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// The spec in `raw`; false when it is not one (never written by this design).
bool Decode(std::string_view raw, LeaseSpec& spec) {
  std::string_view fields[5];
  for (int index = 0; index < 4; ++index) {
    const std::size_t bar = raw.find('|');
    if (bar == std::string_view::npos) return false;
    fields[index] = raw.substr(0, bar);
    raw.remove_prefix(bar + 1);
  }
  fields[4] = raw;
  spec.holder = std::string(fields[0]);
  return ParseNumber(fields[1], spec.duration_seconds) && ParseNumber(fields[2], spec.acquire_wall) &&
         ParseNumber(fields[3], spec.renew_wall) && ParseNumber(fields[4], spec.transitions);
}

// LeaderElectionConfig's durations, from the scenario's timing where the
// knob is the same (docs/DESIGNS.md, "Timing"): LeaseDuration is the
// lease, RenewDeadline the renew deadline, RetryPeriod the retry; a call's
// own timeout is rest.Config.Timeout, the request timeout.
struct ElectorConfig {
  Nanos lease_duration = 0;
  Nanos renew_deadline = 0;
  Nanos retry_period = 0;
  Nanos request_timeout = 0;
  // ReleaseOnCancel: true, as services that hand over on shutdown set it.
  bool release_on_cancel = true;
};

ElectorConfig ConfigOf(const core::TimingConfig& timing) {
  return {.lease_duration = timing.lease_duration,
          .renew_deadline = timing.renew_deadline,
          .retry_period = timing.retry,
          .request_timeout = timing.request_timeout};
}

// NewLeaderElector's checks: a configuration it refuses never runs.
bool Accepted(const ElectorConfig& config) {
  if (config.lease_duration <= config.renew_deadline) return false;
  if (config.renew_deadline <= config.retry_period * kJitterPermille / 1'000) return false;
  return config.lease_duration >= 1 && config.renew_deadline >= 1 && config.retry_period >= 1;
}

// One node incarnation running client-go's LeaderElector in a loop (as a
// service does that runs the elector again after losing the lease rather
// than exiting) and the settlement job in OnStartedLeading.
class KubeLeaseNode final : public core::ProtocolNode {
 public:
  KubeLeaseNode(Env& env, const NodeSetup& setup)
      : env_(env), setup_(setup), config_(ConfigOf(setup.timing)), job_(env, setup.settlement, setup.identity),
        beliefs_(env, setup.identity) {}

  void Start() override {
    if (!Accepted(config_)) return;  // NewLeaderElector returned an error: the service never starts
    env_.Spawn("leaderelection", [this] { RunElectors(); });
    env_.Spawn("settlement", [this] {
      job_.Run(JobLeadership{.leading = [this] { return Leading(); },
                             .token = [this] { return observed_.transitions; }});
    });
  }

  // A graceful shutdown: the job ends first, then the elector's context
  // is cancelled and, with ReleaseOnCancel, the Lease given up (release()).
  // In that order because client-go asks it: ReleaseOnCancel's comment in
  // leaderelection.go ("you must ensure all code guarded by this lease has
  // successfully completed prior to cancelling the context, or you may
  // have two processes simultaneously acting on the critical path"), and
  // its example/main.go ("any code you have that is protected by the lease
  // must terminate **before** you call cancel"). The elector keeps
  // renewing while the job finishes its batch.
  void Shutdown(const std::string& preferred_successor) override {
    (void)preferred_successor;  // client-go names no successor
    job_.StopAndWait();
    stopping_ = true;
    NoteBelief("released");  // the job's context ends before the Lease is given up
    if (config_.release_on_cancel && IsLeader()) Release();
  }

 private:
  // leaderelection.go Run: acquire, then renew until it fails; each round
  // with a fresh elector (its observed record forgotten).
  void RunElectors() {
    while (!stopping_) {
      observed_ = LeaseSpec{};
      observed_raw_.clear();
      observed_time_ = 0;
      if (!Acquire()) return;
      started_leading_ = true;  // OnStartedLeading: the job's context lives
      NoteBelief("");
      Renew();
      started_leading_ = false;  // the context is cancelled: OnStoppedLeading
      NoteBelief("renew deadline");
      if (stopping_) return;
      if (config_.release_on_cancel) Release();
    }
  }

  // acquire(): JitterUntil(tryAcquireOrRenew, RetryPeriod, 1.2, sliding).
  bool Acquire() {
    while (!stopping_) {
      if (TryAcquireOrRenew(kNeverNanos)) return !stopping_;
      const Nanos jitter = config_.retry_period * static_cast<Nanos>(env_.Random() % 1'000) / 1'000 *
                           kJitterPermille / 1'000;
      env_.SleepUntil(env_.MonotonicNow() + config_.retry_period + jitter);
    }
    return false;
  }

  // renew(): every RetryPeriod (wait.Until, sliding) a round that polls
  // tryAcquireOrRenew every RetryPeriod until it succeeds or RenewDeadline
  // has passed since the round began; a failed round ends the leadership.
  void Renew() {
    while (!stopping_) {
      const Nanos deadline = env_.MonotonicNow() + config_.renew_deadline;
      Nanos next_poll = env_.MonotonicNow();
      bool renewed = false;
      while (!stopping_ && !renewed) {
        renewed = TryAcquireOrRenew(deadline);
        NoteBelief("observed another holder");
        next_poll += config_.retry_period;
        if (renewed || next_poll >= deadline) break;
        env_.SleepUntil(next_poll);
      }
      if (!renewed) return;
      env_.SleepUntil(env_.MonotonicNow() + config_.retry_period);
    }
  }

  // A call's timeout: the request timeout, cut to what is left of the
  // context (the renew round's RenewDeadline); 0 when nothing is left.
  Nanos CallTimeout(Nanos context_deadline) {
    if (context_deadline == kNeverNanos) return config_.request_timeout;
    return std::max<Nanos>(0, std::min(config_.request_timeout, context_deadline - env_.MonotonicNow()));
  }

  LeaseSpec Desired() {
    const Nanos wall = env_.WallNow();
    return LeaseSpec{.holder = setup_.identity,
                     .duration_seconds = config_.lease_duration / kNanosPerSecond,  // int(LeaseDuration / time.Second)
                     .acquire_wall = wall,
                     .renew_wall = wall};
  }

  // tryAcquireOrRenew(): the fast path for a leader whose observed lease is
  // valid, else Get (or Create when absent), and Update unless another
  // holder's lease looks valid from here.
  bool TryAcquireOrRenew(Nanos context_deadline) {
    const Nanos now = env_.MonotonicNow();
    LeaseSpec desired = Desired();
    if (IsLeader() && IsLeaseValid(now)) {
      desired.acquire_wall = observed_.acquire_wall;
      desired.transitions = observed_.transitions;
      if (Update(desired, CallTimeout(context_deadline))) return SetObserved(desired);
    }
    std::string raw;
    bool found = false;
    if (!Get(CallTimeout(context_deadline), raw, found)) return false;
    if (!found) return Create(desired, CallTimeout(context_deadline)) && SetObserved(desired);
    LeaseSpec current;
    if (!Decode(raw, current)) return false;  // not a Lease: client-go's conversion error
    if (raw != observed_raw_) {
      SetObserved(current);
      observed_raw_ = raw;
      // IsLeader() answers by this record from now on: a leader that reads
      // another holder stops leading here, even if it takes an expired
      // lease back below (with leaseTransitions + 1: a new term, which
      // renew() carries on with as a successful renewal).
      NoteBelief("observed another holder");
    }
    if (!current.holder.empty() && IsLeaseValid(now) && !IsLeader()) return false;
    if (IsLeader()) {
      desired.acquire_wall = current.acquire_wall;
      desired.transitions = current.transitions;
    } else {
      desired.transitions = current.transitions + 1;
    }
    return Update(desired, CallTimeout(context_deadline)) && SetObserved(desired);
  }

  // release(): the Lease with no holder, a 1 s duration and the same
  // transitions, sent with the object last seen.
  void Release() {
    if (!IsLeader()) return;
    const Nanos wall = env_.WallNow();
    const LeaseSpec released{.duration_seconds = 1, .acquire_wall = wall, .renew_wall = wall,
                             .transitions = observed_.transitions};
    env_.AtFaultPoint(core::FaultPoint::kDuringRelease);
    if (Update(released, config_.request_timeout)) SetObserved(released);
  }

  // leaselock.go Get: the object, kept for the next Update.
  bool Get(Nanos timeout, std::string& raw, bool& found) {
    if (timeout <= 0) return false;
    const KvTxnResult result = env_.kv(0).Range(core::KvRequestOp::Range(core::KvKeys::Single(setup_.key)), timeout);
    if (result.status != KvStatus::kOk) return false;
    assert(result.responses.size() == 1);
    const auto& kvs = result.responses.front().kvs;
    found = !kvs.empty();
    if (!found) return true;
    raw = kvs.front().value;
    resource_version_ = kvs.front().mod_revision;
    return true;
  }

  // leaselock.go Create: fails when the object exists (AlreadyExists).
  bool Create(const LeaseSpec& spec, Nanos timeout) {
    return Write(core::KvCompare{.key = setup_.key, .target = core::KvCompareTarget::kCreateRevision, .number = 0},
                 spec, timeout);
  }

  // leaselock.go Update: the object last seen, so the API server's
  // optimistic concurrency refuses it once anyone else wrote (Conflict).
  bool Update(const LeaseSpec& spec, Nanos timeout) {
    if (resource_version_ == 0) return false;  // "lease not initialized, call get or create first"
    return Write(core::KvCompare{.key = setup_.key, .target = core::KvCompareTarget::kModRevision,
                                 .number = resource_version_},
                 spec, timeout);
  }

  bool Write(const core::KvCompare& guard, const LeaseSpec& spec, Nanos timeout) {
    if (timeout <= 0) return false;
    KvTxn txn{.compares = {guard}, .success = {core::KvRequestOp::Put(setup_.key, Encode(spec))}};
    // The seam's named points, where a test world may strike: a renewal by
    // the holder, a take by a candidate, and the reply of either.
    if (!spec.holder.empty()) {
      env_.AtFaultPoint(IsLeader() ? core::FaultPoint::kBeforeRenew : core::FaultPoint::kBeforeAcquire);
    }
    const KvTxnResult result = env_.kv(0).Txn(txn, timeout);
    env_.AtFaultPoint(core::FaultPoint::kAfterCasReply);
    if (result.status != KvStatus::kOk || !result.succeeded) return false;
    resource_version_ = result.revision;  // the stored object's new resourceVersion
    return true;
  }

  // setObservedRecord(): observedTime is this node's clock now (Go's
  // time.Now with its monotonic reading). Always true, for chaining.
  bool SetObserved(const LeaseSpec& spec) {
    observed_ = spec;
    observed_time_ = env_.MonotonicNow();
    return true;
  }

  // isLeaseValid(): the observed record's leaseDurationSeconds from when
  // this node observed it change, on its own clock (the holder's duration,
  // as current client-go judges it: kubernetes issue 47671 was a candidate
  // judging by its own).
  bool IsLeaseValid(Nanos now) const { return observed_time_ + observed_.duration_seconds * kNanosPerSecond > now; }

  // IsLeader(): the observed record names this elector. Nothing else: it
  // stays true after the renew loop gave up until a read shows another
  // holder, which is why the job also needs OnStartedLeading's context.
  bool IsLeader() const { return observed_.holder == setup_.identity; }

  // What the library lets the service believe: OnStartedLeading ran, its
  // context is not cancelled, and IsLeader().
  bool Leading() const { return started_leading_ && !stopping_ && IsLeader(); }

  // Reports a change of belief (no deadline claimed: IsLeader has none).
  void NoteBelief(const std::string& reason) { beliefs_.Note(Leading(), observed_.transitions, reason, stopping_); }

  Env& env_;
  const NodeSetup setup_;
  const ElectorConfig config_;
  DesignJob job_;
  bool stopping_ = false;
  bool started_leading_ = false;
  BeliefReport beliefs_;
  LeaseSpec observed_;              // observedRecord
  std::string observed_raw_;        // observedRawRecord
  Nanos observed_time_ = 0;         // observedTime (monotonic)
  std::int64_t resource_version_ = 0;  // of the object leaselock.go keeps
};

}  // namespace

void RegisterKubeLease(core::ProtocolRegistry& registry) {
  RegisterTokenModes(
      registry, "kube-lease", "client-go leader election on a Lease (IsLeader; token: leaseTransitions)",
      [](Env& env, const NodeSetup& setup) -> std::unique_ptr<core::ProtocolNode> {
        return std::make_unique<KubeLeaseNode>(env, setup);
      },
      core::KvStoreNeeds{.servers = 1, .model = core::KvStoreModel::kEtcd});
}

}  // namespace leasesim::designs
