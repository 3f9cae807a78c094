#include "core/lease_elector.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "base/same_text.h"
#include "core/fault_points.h"

namespace leasesim::core {

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

LeaseElector::LeaseElector(Env& env, ElectorConfig config, LeaseMetrics& metrics, const ProtocolRules& rules)
    : env_(env), config_(std::move(config)), metrics_(metrics), rules_(rules) {
  assert(ValidateElectorConfig(config_).empty());
}

void LeaseElector::Run() {
  running_ = true;
  while (!shutting_down_) {
    if (!Campaign()) break;
    Lead();
  }
  running_ = false;
}

void LeaseElector::WaitUntilStopped() {
  // The task notices the release within one of its sleeps (a retry period
  // or a renew interval) or one store call; poll for it.
  const TimingConfig& t = config_.timing;
  const Nanos step = std::max<Nanos>(1, std::min(t.retry, t.request_timeout));
  // A take in flight may be followed by its release (two attempts).
  const Nanos longest = std::max(t.retry, t.renew_interval) + 4 * t.request_timeout;
  const int steps_max = static_cast<int>(longest / step) + 2;
  for (int i = 0; running_ && i < steps_max; ++i) env_.SleepUntil(env_.MonotonicNow() + step);
}

void LeaseElector::Sample() {
  sampled_mono_ = env_.MonotonicNow();
  sampled_boot_ = env_.BootNow();
}

Nanos LeaseElector::PauseThreshold() const {
  // Pauses within the deployment's promised budget are safe by the timing
  // rules; anything longer breaks the assumptions the lease rests on.
  return std::max(config_.timing.safety_margin, config_.timing.pause_budget);
}

bool LeaseElector::SuspendDetected() {
  // The boot clock counts suspended time, the monotonic clock does not;
  // neither is ever stepped, so an NTP step cannot hide a suspend (or fake
  // one), as comparing with the wall clock would.
  const Nanos mono = env_.MonotonicNow();
  const Nanos boot = env_.BootNow();
  const Nanos unseen = (boot - sampled_boot_) - (mono - sampled_mono_);
  sampled_mono_ = mono;
  sampled_boot_ = boot;
  // Suspends that add up cannot outlive the lease: validity is counted on
  // the boot clock, which counts them (found by the generic search: two
  // suspends, each within the pause budget, once outlived a lease counted
  // on the monotonic clock by 226 ms).
  const bool detected = unseen > PauseThreshold();
  if (detected) env_.Sometimes(Probe::kSuspendDetected);
  return detected;
}

std::optional<LeaseGrant> LeaseElector::ValidLease() {
  if (!leading_) return std::nullopt;
  if (env_.BootNow() >= valid_until_) {
    Demote(DemotionReason::kDeadline);
    return std::nullopt;
  }
  // After a VM suspend the monotonic clock says no time passed; the boot
  // clock knows better. Demote before any write.
  if (SuspendDetected()) {
    Demote(DemotionReason::kPauseDetected);
    return std::nullopt;
  }
  return LeaseGrant{term_, valid_until_};
}

void LeaseElector::Release(const std::string& preferred_successor, const std::function<void()>& quiesce) {
  shutting_down_ = true;
  release_successor_ = preferred_successor;
  if (!leading_) return;
  const std::int64_t term = term_;
  const std::int64_t version = version_;
  Demote(DemotionReason::kReleased);  // side effects stop before the store hears of it
  Emit(EventKind::kReleased);
  if (quiesce) quiesce();
  env_.AtFaultPoint(FaultPoint::kDuringRelease);
  WriteRelease(term, version);
}

void LeaseElector::WriteRelease(std::int64_t term, std::int64_t version) {
  LeaseRecord released;
  released.term = term;  // same term: the successor bumps it
  released.duration_ns = config_.timing.lease_duration;
  released.acquired_wall_ns = acquired_wall_;
  released.renewed_wall_ns = env_.WallNow();
  released.preferred_successor = release_successor_;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const StoreResult result = rules_.WriteRecord(env_.store(), config_.key, RecordWrite::kRelease,
                                                  VersionedRecord{true, version, {}}, released,
                                                  config_.timing.request_timeout);
    if (result.status != StoreStatus::kConflict) return;
    // A renewal whose reply was lost may have moved the version: release
    // only if the record is still ours in this term.
    const VersionedRecord& current = result.current;
    if (!current.found || current.record.holder != config_.identity || current.record.term != term) {
      env_.Sometimes(Probe::kReleaseFoundOther);
      return;
    }
    env_.Sometimes(Probe::kReleaseRetried);
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
  EmitAt(env_.MonotonicNow(), kind, std::move(reason), std::move(other));
}

void LeaseElector::EmitAt(Nanos monotonic, EventKind kind, std::string reason, std::string other) {
  LeaseEvent event;
  event.kind = kind;
  event.holder = config_.identity;
  event.term = term_;
  event.version = version_;
  event.monotonic_ns = monotonic;
  if (kind == EventKind::kAcquired || kind == EventKind::kRenewed) {
    event.boot_ns = env_.BootNow();
    event.valid_until_ns = valid_until_;
  }
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
  Sample();
  metrics_.acquisitions += 1;
  const Nanos now = env_.MonotonicNow();
  SetTermGauge(term, now);
  SetLeaderGauge(true, now);
  EmitAt(now, EventKind::kAcquired);
}

void LeaseElector::Demote(DemotionReason reason) {
  if (!leading_) return;
  leading_ = false;
  metrics_.CountDemotion(reason);
  const Nanos now = env_.MonotonicNow();
  SetLeaderGauge(false, now);
  EmitAt(now, EventKind::kDemoted, DemotionReasonName(reason));
}

void LeaseElector::SetLeaderGauge(bool leader, Nanos monotonic) {
  if (metrics_.is_leader == leader) return;
  metrics_.is_leader = leader;
  EmitMetric("is_leader", leader ? 1 : 0, monotonic);
  ForEachCounter(metrics_,
                 [this, monotonic](const char* name, std::int64_t value) { EmitMetric(name, value, monotonic); });
}

void LeaseElector::SetTermGauge(std::int64_t term, Nanos monotonic) {
  if (metrics_.term == term) return;
  metrics_.term = term;
  EmitMetric("term", term, monotonic);
}

void LeaseElector::EmitMetric(const char* name, std::int64_t value, Nanos monotonic) {
  LeaseEvent event;
  event.kind = EventKind::kMetric;
  event.holder = config_.identity;
  event.term = term_;
  event.monotonic_ns = monotonic;
  event.metric = name;
  event.value = value;
  env_.events().Emit(event);
}

bool LeaseElector::TryTake(const VersionedRecord& observed, std::int64_t term, Probe on_success) {
  ++takes_attempted_;
  env_.AtFaultPoint(FaultPoint::kBeforeAcquire);
  const Nanos sent = env_.BootNow();
  const Nanos wall = env_.WallNow();
  acquired_wall_ = wall;
  const StoreResult result = rules_.WriteRecord(env_.store(), config_.key, RecordWrite::kAcquire, observed,
                                                RecordFor(term), config_.timing.request_timeout);
  env_.AtFaultPoint(FaultPoint::kAfterCasReply);
  if (result.status == StoreStatus::kConflict) env_.Sometimes(Probe::kTakeLostRace);
  if (result.status == StoreStatus::kTimeout) env_.Sometimes(Probe::kTakeOutcomeUnknown);
  if (result.status != StoreStatus::kOk) return false;
  if (shutting_down_) {
    // Released while the request was out, and the take won: free the record
    // at once, as the release would have, rather than leave successors to
    // wait out a lease nobody holds (found by the 100k sweep: a shutdown
    // racing a re-adoption pushed recovery past its bound).
    env_.Sometimes(Probe::kReleasedDuringTake);
    WriteRelease(term, result.current.version);
    return false;
  }
  assert(result.current.found);
  assert(result.current.record.holder == config_.identity);
  env_.Sometimes(on_success);
  BecomeLeader(term, result.current.version, sent, wall);
  return true;
}

bool LeaseElector::ConsiderRecord(const VersionedRecord& seen, Observation& watched) {
  const Nanos now = env_.MonotonicNow();
  if (rules_.StartsNewObservation(watched, seen)) watched = Observation{seen.version, seen.record.holder, now};
  if (!seen.found) return TryTake(seen, 1, Probe::kLeaseCreated);
  if (seen.record.holder.empty()) {
    // Released. A preferred successor takes over at once; anyone else
    // gives it a few retry periods first.
    const std::string& preferred = seen.record.preferred_successor;
    const bool preferred_me = !preferred.empty() && preferred == config_.node_name;
    const bool my_turn = preferred.empty() || preferred_me || now - watched.since >= ReleasedRecordWait(config_.timing);
    if (!my_turn) return false;
    return TryTake(seen, rules_.TakeoverTerm(seen.record.term),
                   preferred_me ? Probe::kPreferredSuccessorTook : Probe::kReleasedLeaseTaken);
  }
  if (base::SameText(seen.record.holder, config_.identity)) {
    // Our own write whose reply was lost, or a lease we demoted from that
    // nobody took: confirm it by CAS; validity counts from this send.
    return TryTake(seen, seen.record.term, Probe::kOwnRecordReadopted);
  }
  SetTermGauge(std::max(metrics_.term, seen.record.term), env_.MonotonicNow());
  if (!base::SameText(seen.record.holder, last_observed_holder_)) {
    last_observed_holder_ = seen.record.holder;
    metrics_.leader_changes_observed += 1;
    Emit(EventKind::kObservedLeader, {}, seen.record.holder);
  }
  const ExpiryQuestion question{seen, watched, now, env_.WallNow(), config_.timing};
  if (!rules_.HolderExpired(question)) return false;
  // A take that failed keeps the observation: had it changed the record,
  // the next read shows a new version (or our own record) and restarts or
  // ends the wait; unchanged, the holder is as expired as it was. Starting
  // the wait over cost a whole lease per lost request (found by the 100k
  // sweep: one dropped takeover pushed recovery past its bound).
  return TryTake(seen, rules_.TakeoverTerm(seen.record.term), Probe::kTakeoverAfterExpiry);
}

bool LeaseElector::OnlyWaitAgain(const VersionedRecord& seen, const Observation& watched, Nanos heard,
                                 Nanos quiet_max) {
  // The loop top of Campaign, then ConsiderRecord's path for a record held
  // by another process, already seen, that has not expired.
  if (shutting_down_) return false;
  const Nanos now = env_.MonotonicNow();
  if (now - heard > quiet_max) return false;
  // (Names compared without a call: this runs at every quiet step.)
  if (!seen.found || seen.record.holder.empty() || base::SameText(seen.record.holder, config_.identity)) return false;
  if (!base::SameText(seen.record.holder, last_observed_holder_) || seen.record.term > metrics_.term) return false;
  if (rules_.StartsNewObservation(watched, seen)) return false;
  if (rules_.HolderExpired(ExpiryQuestion{seen, watched, now, env_.WallNow(), config_.timing})) return false;
  return env_.store().CanWatch();
}

bool LeaseElector::Campaign() {
  assert(!leading_);
  // Expiry of another holder is judged only from our own monotonic clock
  // (ProtocolRules::HolderExpired), from when we first saw its version.
  Observation watched;
  // A store that can watch the record (StoreClient::CanWatch) reports each
  // change; between changes the candidate judges the record it knows again
  // every retry period instead of reading it again. A change it missed (a
  // lost report, or a registration lost or dropped by a blackholed store)
  // only makes a take fail its compare-and-set; after any take, and after
  // hearing nothing for longer than a live holder goes between renewals, it
  // reads the record afresh (which registers the watch anew). A store that
  // refuses the watch is polled. Without a watch: read, judge, sleep.
  std::optional<VersionedRecord> known;
  Nanos heard = 0;  // own monotonic clock: when the store last told us the record
  const Nanos quiet_max = config_.timing.renew_interval + config_.timing.request_timeout;
  // A wait that times out with nothing to do but wait again goes on inside
  // the store client (StoreClient::WaitForChangeWhile): a simulated one
  // then does not resume this task for it.
  const std::function<Nanos()> retry = [this] { return JitteredRetry(); };
  const std::function<bool()> only_wait = [&] { return OnlyWaitAgain(*known, watched, heard, quiet_max); };
  for (;;) {
    if (shutting_down_) return false;
    if (known && env_.MonotonicNow() - heard > quiet_max) known.reset();
    if (!known) {
      const StoreResult read = env_.store().Read(config_.key, config_.timing.request_timeout);
      if (read.status == StoreStatus::kOk) {
        known = read.current;
        heard = env_.MonotonicNow();
      }
    }
    if (known) {
      const std::int64_t takes_before = takes_attempted_;
      if (ConsiderRecord(*known, watched)) return true;
      if (takes_attempted_ != takes_before || !env_.store().CanWatch()) known.reset();
    }
    if (!known) {
      env_.SleepUntil(env_.MonotonicNow() + JitteredRetry());
      continue;
    }
    const StoreResult change = env_.store().WaitForChangeWhile(config_.key, known->version, retry, only_wait);
    if (change.status == StoreStatus::kOk) {
      known = change.current;
      heard = env_.MonotonicNow();
    }
    if (change.status == StoreStatus::kUnavailable) {
      known.reset();
      env_.SleepUntil(env_.MonotonicNow() + JitteredRetry());
    }
  }
}

bool LeaseElector::SleepDetectingPause(Nanos target) {
  Sample();
  // The timer runs on the monotonic clock; while the process runs, the boot
  // clock keeps the same pace, so this wakes when the boot clock reads
  // `target`. After a suspend it wakes late, and the check below sees it.
  const Nanos mono_target = env_.MonotonicNow() + std::max<Nanos>(0, target - env_.BootNow());
  env_.SleepUntil(mono_target);
  // A stop-the-world pause makes the timer fire late; a suspend hides the
  // time from the monotonic clock, but not from the boot clock.
  const bool paused = env_.MonotonicNow() - mono_target > PauseThreshold();
  const bool suspended = SuspendDetected();
  if (paused) env_.Sometimes(Probe::kPauseDetected);
  return paused || suspended;
}

void LeaseElector::DemoteAtDeadline(bool last_attempt_unavailable) {
  env_.Sometimes(last_attempt_unavailable ? Probe::kDemotedStoreUnavailable : Probe::kDeadlineReached);
  Demote(last_attempt_unavailable ? DemotionReason::kStoreUnavailable : DemotionReason::kDeadline);
}

void LeaseElector::Lead() {
  Nanos next_attempt = last_renew_sent_ + config_.timing.renew_interval;
  bool last_attempt_unavailable = false;
  int consecutive_failures = 0;
  while (leading_) {
    const bool paused = SleepDetectingPause(std::min(next_attempt, valid_until_));
    if (!leading_) return;  // demoted meanwhile (fenced, or the job saw the deadline)
    if (paused) {
      Demote(DemotionReason::kPauseDetected);
      return;
    }
    if (env_.BootNow() >= valid_until_) {
      DemoteAtDeadline(last_attempt_unavailable);
      return;
    }
    if (!RenewOnce(next_attempt, last_attempt_unavailable, consecutive_failures)) return;
  }
}

bool LeaseElector::RenewOnce(Nanos& next_attempt, bool& last_attempt_unavailable, int& consecutive_failures) {
  env_.AtFaultPoint(FaultPoint::kBeforeRenew);
  const Nanos sent = env_.BootNow();
  if (sent >= valid_until_) {
    // Stopped (a pause, a slow scheduler) between the check and the send:
    // the lease ran out meanwhile. Found by the nemesis.
    env_.Sometimes(Probe::kDeadlineBeforeSend);
    DemoteAtDeadline(last_attempt_unavailable);
    return false;
  }
  const Nanos timeout = std::min(config_.timing.request_timeout, valid_until_ - sent);
  const StoreResult result = rules_.WriteRecord(env_.store(), config_.key, RecordWrite::kRenew,
                                                VersionedRecord{true, version_, {}}, RecordFor(term_), timeout);
  env_.AtFaultPoint(FaultPoint::kAfterCasReply);
  if (!leading_) return false;
  const Nanos now = env_.BootNow();
  last_attempt_unavailable = result.status == StoreStatus::kUnavailable;
  switch (result.status) {
    case StoreStatus::kOk:
      RenewalSucceeded(result, sent, now);
      consecutive_failures = 0;
      next_attempt = sent + config_.timing.renew_interval;
      return true;
    case StoreStatus::kConflict:
      return RenewalConflicted(result.current, now, next_attempt);
    case StoreStatus::kUnavailable:
    case StoreStatus::kTimeout:
      RenewalFailed(result.status, sent, now);
      next_attempt = now + Backoff(++consecutive_failures);
      return true;
  }
  return true;
}

void LeaseElector::RenewalSucceeded(const StoreResult& result, Nanos sent, Nanos now) {
  const Nanos margin = valid_until_ - now;
  if (margin < config_.timing.renew_interval) env_.Sometimes(Probe::kRenewedNearDeadline);
  version_ = result.current.version;
  last_renew_sent_ = sent;
  valid_until_ = rules_.ValidUntilAfterRenewal(
      RenewalOutcome{.status = StoreStatus::kOk, .sent = sent, .replied = now, .valid_until = valid_until_,
                     .timing = config_.timing});
  metrics_.renewals_ok += 1;
  metrics_.renewal_latency_ns_sum += now - sent;
  metrics_.renewal_latency_ns_max = std::max(metrics_.renewal_latency_ns_max, now - sent);
  metrics_.lease_margin_ns_min = std::min(metrics_.lease_margin_ns_min, margin);
  Emit(EventKind::kRenewed);
}

bool LeaseElector::RenewalConflicted(const VersionedRecord& current, Nanos now, Nanos& next_attempt) {
  if (current.found && current.record.holder == config_.identity && current.record.term == term_) {
    // Our previous renewal was applied but its reply lost: adopt the
    // version, keep the old (earlier) deadline, renew again at once.
    env_.Sometimes(Probe::kRenewConflictOwnLostReply);
    version_ = current.version;
    next_attempt = now;
    return true;
  }
  env_.Sometimes(Probe::kRenewConflictLost);
  metrics_.renewals_failed_conflict += 1;
  Emit(EventKind::kRenewFailed, "conflict");
  Demote(DemotionReason::kConflict);
  return false;
}

void LeaseElector::RenewalFailed(StoreStatus status, Nanos sent, Nanos now) {
  const bool timed_out = status == StoreStatus::kTimeout;
  env_.Sometimes(timed_out ? Probe::kRenewTimedOut : Probe::kRenewStoreUnavailable);
  if (timed_out) {
    metrics_.renewals_failed_timeout += 1;
  } else {
    metrics_.renewals_failed_unavailable += 1;
  }
  Emit(EventKind::kRenewFailed, timed_out ? "timeout" : "unavailable");
  // A failed attempt proves nothing; the rules say what the deadline is now.
  const Nanos deadline = rules_.ValidUntilAfterRenewal(RenewalOutcome{
      .status = status, .sent = sent, .replied = now, .valid_until = valid_until_, .timing = config_.timing});
  if (deadline == valid_until_) return;
  last_renew_sent_ = sent;
  valid_until_ = deadline;
  Emit(EventKind::kRenewed, "assumed");
}

}  // namespace leasesim::core
