#include "core/timing.h"

#include <algorithm>

#include "base/units.h"

namespace leasesim::core {
namespace {

std::string Ms(Nanos ns) {
  // Exact when whole milliseconds, else three decimals.
  using base::kNanosPerMicro;
  using base::kNanosPerMilli;
  if (ns % kNanosPerMilli == 0) return std::to_string(ns / kNanosPerMilli) + " ms";
  return std::to_string(ns / kNanosPerMilli) + "." + std::to_string((ns % kNanosPerMilli) / kNanosPerMicro) + " ms";
}

}  // namespace

std::vector<TimingError> ValidateTiming(const TimingConfig& t) {
  std::vector<TimingError> errors;
  auto positive = [&](const char* field, Nanos value) {
    if (value <= 0) errors.push_back({field, "must be positive (got " + Ms(value) + ")"});
  };
  positive("lease_duration", t.lease_duration);
  positive("renew_interval", t.renew_interval);
  positive("renew_deadline", t.renew_deadline);
  positive("retry", t.retry);
  positive("request_timeout", t.request_timeout);
  // Every other duration is below the lease, and the drift arithmetic stays
  // within 64-bit nanoseconds only up to about a day at the largest bound.
  if (t.lease_duration > kLeaseDurationMax) {
    errors.push_back({"lease_duration", "must be at most 1 day (got " + Ms(t.lease_duration) + ")"});
  }
  if (t.drift_bound_ppm < 0 || t.drift_bound_ppm >= 100'000) {
    errors.push_back({"drift_bound_ppm", "must be in [0, 100000) ppm (got " +
                                             std::to_string(t.drift_bound_ppm) + ")"});
  }
  if (t.safety_margin < 0) {
    errors.push_back({"safety_margin", "must not be negative (got " + Ms(t.safety_margin) + ")"});
  }
  if (t.pause_budget < 0) {
    errors.push_back({"pause_budget", "must not be negative (got " + Ms(t.pause_budget) + ")"});
  }
  if (!errors.empty()) return errors;

  if (t.renew_interval >= t.renew_deadline) {
    errors.push_back({"renew_interval", "must be < renew_deadline (" + Ms(t.renew_interval) +
                                            " >= " + Ms(t.renew_deadline) + ")"});
  }
  const Nanos shrunk = ShrunkLease(t.lease_duration, t.drift_bound_ppm, t.safety_margin);
  if (t.renew_deadline >= shrunk) {
    errors.push_back({"renew_deadline",
                      "must be < lease_duration*(1 - drift_bound) - safety_margin (" +
                          Ms(t.renew_deadline) + " >= " + Ms(shrunk) + ")"});
  }
  if (t.request_timeout >= t.renew_interval) {
    errors.push_back({"request_timeout", "must be < renew_interval (" + Ms(t.request_timeout) +
                                             " >= " + Ms(t.renew_interval) + ")"});
  }
  if (t.retry >= t.renew_deadline - t.renew_interval && t.renew_interval < t.renew_deadline) {
    errors.push_back({"retry", "must be < renew_deadline - renew_interval, or a failed renewal "
                               "never gets a retry before the deadline (" +
                                   Ms(t.retry) + " >= " + Ms(t.renew_deadline - t.renew_interval) + ")"});
  }
  if (t.pause_budget > 0 && t.pause_budget >= shrunk - t.renew_deadline) {
    errors.push_back({"pause_budget",
                      "must be < lease_duration*(1 - drift_bound) - safety_margin - renew_deadline, "
                      "or a pause within budget can outlive the lease unnoticed (" +
                          Ms(t.pause_budget) + " >= " + Ms(shrunk - t.renew_deadline) + ")"});
  }
  return errors;
}

Nanos ShrunkLease(Nanos lease_duration, std::int64_t drift_bound_ppm, Nanos safety_margin) {
  return lease_duration - lease_duration * drift_bound_ppm / base::kPpmOne - safety_margin;
}

Nanos TakeoverWait(Nanos holder_duration, std::int64_t drift_bound_ppm) {
  // The holder's deadline is at most holder_duration of true time after it
  // sent the renewal that made this version; our clock may run fast by the
  // drift bound, so wait that much longer on it.
  return holder_duration + (holder_duration * drift_bound_ppm + base::kPpmOne - 1) / base::kPpmOne;
}

Nanos RecoveryBound(const TimingConfig& t) {
  // A dead holder's lease runs out (the takeover wait, on the candidate's
  // clock) or a released record waits out its grace for the preferred
  // successor (longer than the lease when retries are long: found by the
  // fuzzer's timing edges), a candidate notices within a retry period and
  // its CAS completes within a request timeout, with one more of each for
  // jitter. All of it is counted on the candidate's clock, which may run
  // slow by the drift bound: in true time it takes up to 1/(1 - drift) as
  // long.
  const Nanos wait = std::max(TakeoverWait(t.lease_duration, t.drift_bound_ppm), ReleasedRecordWait(t));
  const Nanos local = wait + 2 * t.retry + 2 * t.request_timeout;
  // ceil(local * drift / (10^6 - drift)), split so no product overflows.
  const std::int64_t slow = base::kPpmOne - t.drift_bound_ppm;
  const Nanos whole = local / slow * t.drift_bound_ppm;
  const Nanos part = (local % slow * t.drift_bound_ppm + slow - 1) / slow;
  return local + whole + part;
}

}  // namespace leasesim::core
