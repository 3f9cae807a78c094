#include "core/lease_elector.h"

#include "core/fault_points.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace leasesim::core {
namespace {

// Bounds on loops that would otherwise spin on a misbehaving store.
constexpr int kTakeAttemptsPerCampaignRound = 4;

}  // namespace

std::vector<TimingError> ValidateElectorConfig(const ElectorConfig& config) {
  std::vector<TimingError> errors;
  if (config.key.empty()) errors.push_back({"key", "must not be empty"});
  if (config.identity.empty()) errors.push_back({"identity", "must not be empty"});
  if (!config.identity.empty() && config.identity == config.node_name) {
    errors.push_back({"identity", "must be unique per process incarnation, not the bare node name \"" +
                                      config.node_name + "\""});
  }
  for (TimingError& error : ValidateTiming(config.timing)) errors.push_back(std::move(error));
  return errors;
}

LeaseElector::LeaseElector(Env& env, ElectorConfig config, LeaseMetrics& metrics)
    : env_(env), config_(std::move(config)), metrics_(metrics) {
  assert(ValidateElectorConfig(config_).empty());
}

void LeaseElector::Run() {
  while (!shutting_down_) {
    if (!Campaign()) return;
    Lead();
  }
}

void LeaseElector::Sample() {
  sampled_mono_ = env_.MonotonicNow();
  sampled_wall_ = env_.WallNow();
}

Nanos LeaseElector::PauseThreshold() const {
  // Pauses within the deployment's promised budget are safe by the timing
  // rules; anything longer breaks the assumptions the lease rests on.
  return std::max(config_.timing.safety_margin, config_.timing.pause_budget);
}

bool LeaseElector::SuspendDetected() {
  const Nanos mono = env_.MonotonicNow();
  const Nanos wall = env_.WallNow();
  const Nanos unseen = (wall - sampled_wall_) - (mono - sampled_mono_);
  sampled_mono_ = mono;
  sampled_wall_ = wall;
  // Time the monotonic clock did not count may have run the lease out:
  // several suspends, each short, add up (found by the nemesis: two 1.8 s
  // suspends within one lease outlived it by 3.6 s of true time).
  unseen_since_renewal_ += std::max<Nanos>(0, unseen);
  return unseen > PauseThreshold() ||
         (unseen_since_renewal_ > config_.timing.safety_margin && mono + unseen_since_renewal_ >= valid_until_);
}

std::optional<LeaseGrant> LeaseElector::ValidLease() {
  if (!leading_) return std::nullopt;
  if (env_.MonotonicNow() >= valid_until_) {
    Demote(DemotionReason::kDeadline);
    return std::nullopt;
  }
  // After a VM suspend the monotonic clock says no time passed; the wall
  // clock knows better. Demote before any write.
  if (SuspendDetected()) {
    Demote(DemotionReason::kPauseDetected);
    return std::nullopt;
  }
  return LeaseGrant{term_, valid_until_};
}

void LeaseElector::Release(const std::string& preferred_successor) {
  shutting_down_ = true;
  if (!leading_) return;
  const std::int64_t term = term_;
  std::int64_t version = version_;
  Demote(DemotionReason::kReleased);  // side effects stop before the store hears of it
  Emit(EventKind::kReleased);
  env_.FaultPoint(fault_points::kDuringRelease);
  LeaseRecord released;
  released.term = term;  // same term: the successor bumps it
  released.duration_ns = config_.timing.lease_duration;
  released.acquired_wall_ns = acquired_wall_;
  released.renewed_wall_ns = env_.WallNow();
  released.preferred_successor = preferred_successor;
  if (Is(ProtocolVariant::kReleaseWithoutVersionCheck)) {
    // BUG ZOO: releases whatever record is there, even a successor's.
    Overwrite(VersionedRecord{true, version, {}}, released);
    return;
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    const StoreResult result =
        env_.store().CompareAndSet(config_.key, version, released, config_.timing.request_timeout);
    if (result.status != StoreStatus::kConflict) return;
    // A renewal whose reply was lost may have moved the version: release
    // only if the record is still ours in this term.
    const VersionedRecord& current = result.current;
    if (!current.found || current.record.holder != config_.identity || current.record.term != term) return;
    version = current.version;
  }
}

void LeaseElector::ReportFenced() {
  if (!leading_) return;
  metrics_.fenced_writes_rejected += 1;
  Demote(DemotionReason::kFenced);
}

Nanos LeaseElector::Backoff(int failures) {
  // Exponential in consecutive failures, capped at four retry periods,
  // jittered; the caller never sleeps past its validity deadline.
  const int shift = std::min(failures > 0 ? failures - 1 : 0, 2);
  const Nanos base = config_.timing.retry << shift;
  const Nanos half = base / 2;
  return half + static_cast<Nanos>(env_.Random() % static_cast<std::uint64_t>(half + 1));
}

Nanos LeaseElector::JitteredRetry() {
  // Uniform in [retry/2, retry]: spreads candidates apart.
  const Nanos half = config_.timing.retry / 2;
  return half + static_cast<Nanos>(env_.Random() % static_cast<std::uint64_t>(half + 1));
}

LeaseRecord LeaseElector::RecordFor(std::int64_t term) const {
  LeaseRecord record;
  record.holder = config_.identity;
  record.term = term;
  record.duration_ns = config_.timing.lease_duration;
  record.acquired_wall_ns = acquired_wall_;
  record.renewed_wall_ns = env_.WallNow();
  return record;
}

void LeaseElector::Emit(EventKind kind, std::string reason, std::string other) {
  LeaseEvent event;
  event.kind = kind;
  event.holder = config_.identity;
  event.term = term_;
  event.version = version_;
  event.monotonic_ns = env_.MonotonicNow();
  if (kind == EventKind::kAcquired || kind == EventKind::kRenewed) event.valid_until_ns = valid_until_;
  event.reason = std::move(reason);
  event.other = std::move(other);
  env_.events().Emit(event);
}

void LeaseElector::BecomeLeader(std::int64_t term, std::int64_t version, Nanos sent,
                                Nanos acquired_wall) {
  assert(!leading_);
  leading_ = true;
  term_ = term;
  version_ = version;
  last_renew_sent_ = sent;
  valid_until_ = sent + config_.timing.renew_deadline;
  acquired_wall_ = acquired_wall;
  unseen_since_renewal_ = 0;
  Sample();
  metrics_.is_leader = true;
  metrics_.term = term;
  metrics_.acquisitions += 1;
  Emit(EventKind::kAcquired);
}

void LeaseElector::Demote(DemotionReason reason) {
  if (!leading_) return;
  leading_ = false;
  metrics_.is_leader = false;
  metrics_.CountDemotion(reason);
  Emit(EventKind::kDemoted, DemotionReasonName(reason));
}

StoreResult LeaseElector::Overwrite(const VersionedRecord& observed, const LeaseRecord& record) {
  constexpr int kAttemptsMax = 3;
  StoreResult result;
  VersionedRecord target = observed;
  for (int attempt = 0; attempt < kAttemptsMax; ++attempt) {
    result = target.found
                 ? env_.store().CompareAndSet(config_.key, target.version, record, config_.timing.request_timeout)
                 : env_.store().Create(config_.key, record, config_.timing.request_timeout);
    if (result.status != StoreStatus::kConflict || !result.current.found) return result;
    target = result.current;  // someone else's record: write over it anyway
  }
  return result;
}

bool LeaseElector::TryTake(const VersionedRecord& observed, std::int64_t term) {
  const Nanos sent = env_.MonotonicNow();
  const Nanos wall = env_.WallNow();
  acquired_wall_ = wall;
  const LeaseRecord wanted = RecordFor(term);
  const StoreResult result =
      Is(ProtocolVariant::kBlindWrite) ? Overwrite(observed, wanted)  // BUG ZOO: no compare
      : observed.found
          ? env_.store().CompareAndSet(config_.key, observed.version, wanted, config_.timing.request_timeout)
          : env_.store().Create(config_.key, wanted, config_.timing.request_timeout);
  env_.FaultPoint(fault_points::kAfterCasReply);
  if (result.status != StoreStatus::kOk) return false;
  if (shutting_down_) return false;  // released while the request was out; the record lapses
  assert(result.current.found);
  assert(result.current.record.holder == config_.identity);
  BecomeLeader(term, result.current.version, sent, wall);
  return true;
}

bool LeaseElector::Campaign() {
  assert(!leading_);
  // Expiry of another holder is judged only from our own monotonic clock:
  // the version must stay unchanged for the holder's full lease duration
  // (plus drift) since we first saw it.
  std::int64_t watched_version = -1;
  Nanos watched_since = 0;
  std::string cached_holder;  // kCampaignFromStaleRead only
  // A takeover's term: one above the previous holder's.
  auto next_term = [this](std::int64_t term) {
    return Is(ProtocolVariant::kNoTermBump) ? term : term + 1;  // BUG ZOO: the term is not bumped
  };
  for (;;) {
    if (shutting_down_) return false;
    const StoreResult read = env_.store().Read(config_.key, config_.timing.request_timeout);
    if (read.status == StoreStatus::kOk) {
      const VersionedRecord& seen = read.current;
      const Nanos now = env_.MonotonicNow();
      if (Is(ProtocolVariant::kCampaignFromStaleRead)) {
        // BUG ZOO: the candidate keeps the first record it read for a holder
        // as a cached view and times expiry from it; the renewals that keep
        // the lease alive never reach that cache (only a new holder does),
        // while the takeover CAS goes out with the latest read's version.
        if (watched_version == -1 || seen.record.holder != cached_holder) {
          cached_holder = seen.record.holder;
          watched_version = seen.version;
          watched_since = now;
        }
      } else if (seen.version != watched_version) {
        watched_version = seen.version;
        watched_since = now;
      }
      if (!seen.found) {
        if (TryTake(seen, 1)) return true;
      } else if (seen.record.holder.empty()) {
        // Released. A preferred successor takes over at once; anyone else
        // gives it a few retry periods first.
        const std::string& preferred = seen.record.preferred_successor;
        const bool my_turn = preferred.empty() || preferred == config_.node_name ||
                             now - watched_since >= 3 * config_.timing.retry;
        if (my_turn && TryTake(seen, next_term(seen.record.term))) return true;
      } else if (seen.record.holder == config_.identity) {
        // Our own write whose reply was lost, or a lease we demoted from that
        // nobody took: confirm it by CAS; validity counts from this send.
        if (TryTake(seen, seen.record.term)) return true;
      } else {
        metrics_.term = std::max(metrics_.term, seen.record.term);
        if (seen.record.holder != last_observed_holder_) {
          last_observed_holder_ = seen.record.holder;
          metrics_.leader_changes_observed += 1;
          Emit(EventKind::kObservedLeader, {}, seen.record.holder);
        }
        bool expired = now - watched_since >= TakeoverWait(seen.record.duration_ns, config_.timing.drift_bound_ppm);
        if (Is(ProtocolVariant::kOwnLeaseDuration)) {
          // BUG ZOO: waits out its own lease duration, not the holder's.
          expired = now - watched_since >= TakeoverWait(config_.timing.lease_duration, config_.timing.drift_bound_ppm);
        } else if (Is(ProtocolVariant::kExpiryFromWallTimestamp)) {
          // BUG ZOO: compares the holder's wall-clock renewal stamp with its own wall clock.
          expired = env_.WallNow() - seen.record.renewed_wall_ns >= seen.record.duration_ns;
        }
        if (expired) {
          if (TryTake(seen, next_term(seen.record.term))) return true;
          watched_version = -1;  // re-observe whatever is there now
        }
      }
    }
    env_.SleepUntil(env_.MonotonicNow() + JitteredRetry());
  }
}

bool LeaseElector::SleepDetectingPause(Nanos target) {
  Sample();
  env_.SleepUntil(target);
  // A stop-the-world pause makes the timer fire late; a suspend hides the
  // time from the monotonic clock, but not from the wall clock.
  const Nanos late = env_.MonotonicNow() - target;
  const bool suspended = SuspendDetected();
  return late > PauseThreshold() || suspended;
}

void LeaseElector::Lead() {
  const TimingConfig& timing = config_.timing;
  Nanos next_attempt = last_renew_sent_ + timing.renew_interval;
  bool last_attempt_unavailable = false;
  int consecutive_failures = 0;
  while (leading_) {
    const bool paused = SleepDetectingPause(std::min(next_attempt, valid_until_));
    if (!leading_) return;  // demoted meanwhile (fenced, or the job saw the deadline)
    if (paused) {
      Demote(DemotionReason::kPauseDetected);
      return;
    }
    Nanos now = env_.MonotonicNow();
    if (now >= valid_until_) {
      Demote(last_attempt_unavailable ? DemotionReason::kStoreUnavailable : DemotionReason::kDeadline);
      return;
    }
    env_.FaultPoint(fault_points::kBeforeRenew);
    const Nanos sent = env_.MonotonicNow();
    if (sent >= valid_until_) {
      // Stopped (a pause, a slow scheduler) between the check above and the
      // send: the lease ran out meanwhile. Found by the nemesis.
      Demote(last_attempt_unavailable ? DemotionReason::kStoreUnavailable : DemotionReason::kDeadline);
      return;
    }
    const Nanos timeout = std::min(timing.request_timeout, valid_until_ - sent);
    const StoreResult result =
        Is(ProtocolVariant::kBlindWrite)
            ? Overwrite(VersionedRecord{true, version_, {}}, RecordFor(term_))  // BUG ZOO: no compare
            : env_.store().CompareAndSet(config_.key, version_, RecordFor(term_), timeout);
    env_.FaultPoint(fault_points::kAfterCasReply);
    if (!leading_) return;
    now = env_.MonotonicNow();
    last_attempt_unavailable = result.status == StoreStatus::kUnavailable;
    switch (result.status) {
      case StoreStatus::kOk: {
        const Nanos margin = valid_until_ - now;
        version_ = result.current.version;
        last_renew_sent_ = sent;
        valid_until_ = sent + timing.renew_deadline;
        unseen_since_renewal_ = 0;
        if (Is(ProtocolVariant::kRenewDeadlineFromReply)) {
          valid_until_ = now + timing.renew_deadline;  // BUG ZOO: counts from the reply, not the send
        }
        metrics_.renewals_ok += 1;
        metrics_.renewal_latency_ns_sum += now - sent;
        metrics_.renewal_latency_ns_max = std::max(metrics_.renewal_latency_ns_max, now - sent);
        metrics_.lease_margin_ns_min = std::min(metrics_.lease_margin_ns_min, margin);
        Emit(EventKind::kRenewed);
        consecutive_failures = 0;
        next_attempt = sent + timing.renew_interval;
        break;
      }
      case StoreStatus::kConflict: {
        const VersionedRecord& current = result.current;
        if (current.found && current.record.holder == config_.identity &&
            current.record.term == term_) {
          // Our previous renewal was applied but its reply lost: adopt the
          // version, keep the old (earlier) deadline, renew again at once.
          version_ = current.version;
          next_attempt = now;
          break;
        }
        metrics_.renewals_failed_conflict += 1;
        Emit(EventKind::kRenewFailed, "conflict");
        Demote(DemotionReason::kConflict);
        return;
      }
      case StoreStatus::kUnavailable:
      case StoreStatus::kTimeout:
        if (Is(ProtocolVariant::kConnectionLossStillLeading)) {
          // BUG ZOO: "the store is just unreachable, we are still the
          // leader": the failed renewal extends the lease as a success would.
          last_renew_sent_ = sent;
          valid_until_ = sent + timing.renew_deadline;
          Emit(EventKind::kRenewed, "assumed");
          next_attempt = now + Backoff(++consecutive_failures);
          break;
        }
        if (result.status == StoreStatus::kTimeout) {
          metrics_.renewals_failed_timeout += 1;
          Emit(EventKind::kRenewFailed, "timeout");
          next_attempt = now + Backoff(++consecutive_failures);
          break;
        }
        metrics_.renewals_failed_unavailable += 1;
        Emit(EventKind::kRenewFailed, "unavailable");
        next_attempt = now + Backoff(++consecutive_failures);
        break;
    }
  }
}

}  // namespace leasesim::core
