#include "core/leader_callbacks.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace leasesim::core {

LeaderContext::LeaderContext(LeaderRunner& runner, LeaseGrant grant) : runner_(runner), token_(grant.term) {}

const std::string& LeaderContext::identity() const { return runner_.elector_.identity(); }

std::optional<LeaseGrant> LeaderContext::Check() {
  std::optional<LeaseGrant> grant;
  runner_.Inside([&] {
    grant = CheckInside();
    // The job's code is running, and learns whether it may go on.
    runner_.Report(EventKind::kJobStep, token_, "", {}, grant ? 1 : 0);
  });
  return grant;
}

std::optional<LeaseGrant> LeaderContext::CheckInside() {
  if (lost_) return std::nullopt;
  const bool fresh = slept_;
  slept_ = false;
  std::optional<LeaseGrant> grant = runner_.elector_.ValidLease();
  if (grant && grant->term == token_) return grant;
  lost_ = true;
  if (grant && fresh) next_ = grant;
  return std::nullopt;
}

void LeaderContext::SetEffectInFlight(bool in_flight) {
  runner_.Inside([&] { runner_.in_flight_ = in_flight; });
}

void LeaderContext::ReportFenced() {
  runner_.Inside([&] {
    lost_ = true;
    runner_.elector_.ReportFenced();
  });
}

Nanos LeaderContext::Now() {
  Nanos now = 0;
  runner_.Inside([&] { now = runner_.env_.MonotonicNow(); });
  return now;
}

void LeaderContext::SleepUntil(Nanos monotonic_deadline) {
  runner_.Inside([&] {
    runner_.env_.SleepUntil(monotonic_deadline);
    slept_ = true;
  });
}

LeaderRunner::LeaderRunner(Env& env, LeaseElector& elector, LeadershipTap& tap, LeaderCallbacks callbacks,
                           RunnerConfig config, CallbackGate* gate)
    : env_(env),
      elector_(elector),
      tap_(tap),
      callbacks_(std::move(callbacks)),
      config_(std::move(config)),
      gate_(gate) {
  assert(callbacks_.on_started_leading);
  assert(config_.poll > 0);
  assert(config_.quiesce_timeout > 0);
}

void LeaderRunner::Outside(const std::function<void()>& callback) {
  if (gate_ != nullptr) {
    gate_->Outside(callback);
  } else {
    callback();
  }
}

void LeaderRunner::Inside(const std::function<void()>& core_code) {
  if (gate_ != nullptr) {
    gate_->Inside(core_code);
  } else {
    core_code();
  }
}

void LeaderRunner::Run() {
  // A look that finds neither a new holder nor this process leading does
  // nothing (ReportNewLeader returns at once, ValidLease is nullopt): the
  // Env may take such looks without resuming this task.
  const std::function<bool()> news = [this] {
    return tap_.holder_changes() != reported_holder_changes_ || elector_.leading();
  };
  for (;;) {
    env_.SleepInSteps(config_.poll, news);
    ReportNewLeader();
    std::optional<LeaseGrant> grant = elector_.ValidLease();
    // A job's fresh look may hand over the next leadership directly; a few
    // in a row at most, then the runner sleeps again.
    for (int i = 0; grant && i < kLeadershipsPerLookMax; ++i) grant = Lead(*grant);
  }
}

std::optional<LeaseGrant> LeaderRunner::Lead(LeaseGrant grant) {
  ReportNewLeader();  // this process: the acquisition set the holder
  LeaderContext ctx(*this, grant);
  Report(EventKind::kLeadingStarted, grant.term);
  Outside([&] { callbacks_.on_started_leading(ctx); });
  in_flight_ = false;  // the job has returned: nothing of it runs any more
  if (!ctx.lost_) WaitForEnd(ctx);
  // Every loss of a lease goes through a demotion the tap saw; only a
  // reason pushed out by many later ones is forgotten.
  const StoppedLeading stopped{ctx.token_, tap_.DemotionOf(ctx.token_).value_or(DemotionReason::kDeadline)};
  Report(EventKind::kLeadingStopped, stopped.token, DemotionReasonName(stopped.reason));
  if (callbacks_.on_stopped_leading) Outside([&] { callbacks_.on_stopped_leading(stopped); });
  return ctx.next_;
}

void LeaderRunner::WaitForEnd(LeaderContext& ctx) {
  // The job is done but the lease is still held: stopped leading is
  // reported when the lease goes, seen at the runner's polls.
  while (!ctx.lost_) {
    env_.SleepUntil(env_.MonotonicNow() + config_.poll);
    ctx.slept_ = true;
    (void)ctx.CheckInside();
  }
}

void LeaderRunner::ReportNewLeader() {
  if (tap_.holder_changes() == reported_holder_changes_) return;
  reported_holder_changes_ = tap_.holder_changes();
  const std::string holder = tap_.holder();
  // A released record names nobody; the same holder back is not new.
  if (holder.empty() || holder == reported_holder_) return;
  reported_holder_ = holder;
  Report(EventKind::kNewLeaderReported, 0, "", holder);
  if (callbacks_.on_new_leader) Outside([&] { callbacks_.on_new_leader(holder); });
}

void LeaderRunner::Report(EventKind kind, std::int64_t term, const char* reason, const std::string& holder,
                          std::int64_t value) {
  const bool step = kind == EventKind::kJobStep;
  if (step && last_report_was_step_ && term == last_step_term_ && value == last_step_answer_) return;
  last_report_was_step_ = step;
  last_step_term_ = term;
  last_step_answer_ = value;
  LeaseEvent event;
  event.kind = kind;
  event.holder = elector_.identity();
  event.term = term;
  event.monotonic_ns = env_.MonotonicNow();
  event.reason = reason;
  event.other = holder;
  event.value = value;
  env_.events().Emit(event);
}

void LeaderRunner::WaitUntilQuiet() {
  // The effect in flight ends within its own timeout; poll for it.
  const Nanos step = std::max<Nanos>(1, std::min(config_.poll, config_.quiesce_timeout));
  const int steps_max = static_cast<int>(config_.quiesce_timeout / step) + 2;
  for (int i = 0; in_flight_ && i < steps_max; ++i) env_.SleepUntil(env_.MonotonicNow() + step);
}

}  // namespace leasesim::core
