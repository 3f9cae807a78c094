#pragma once
// The protocol's timing, validated as a whole: each value is only safe in
// relation to the others. See docs/TIMING.md for how to derive them from the
// failure-detection target, the store's p99 latency and the pause budget.

#include <cstdint>
#include <string>
#include <vector>

#include "base/input_error.h"
#include "base/units.h"
#include "core/lease_record.h"

namespace leasesim::core {

// The longest lease ValidateTiming accepts (1 day).
inline constexpr Nanos kLeaseDurationMax = base::Seconds(86'400);

struct TimingConfig {
  Nanos lease_duration = 0;    // how long a lease lasts after its last renewal was sent
  Nanos renew_interval = 0;    // a leader renews this often
  Nanos renew_deadline = 0;    // a leader gives up (demotes) this long after its last successful renewal was sent
  Nanos retry = 0;             // followers re-read, and failed renewals retry, this often
  Nanos request_timeout = 0;   // every store call gives up after this long
  std::int64_t drift_bound_ppm = 0;  // the most any two clocks' rates may differ from true time
  Nanos safety_margin = 0;     // slack subtracted from every validity window
  Nanos pause_budget = 0;      // the longest stop-the-world pause the deployment promises
};

// One broken rule: the one bad-input error (base/input_error.h), its `path`
// the field ("renew_deadline"), its `rule` the rule in words with values.
// An alias, not a type of its own, so a caller reports it as any other bad
// input; base/ is installed with core (cmake/install.cmake).
using TimingError = base::InputError;

// Every broken rule, in a fixed order; empty when the configuration is sound.
std::vector<TimingError> ValidateTiming(const TimingConfig& timing);

// What a lease of `lease_duration` leaves its holder to count on its own
// clock: lease_duration*(1 - drift_bound) - safety_margin, the right-hand
// side of ValidateTiming's renew_deadline and pause_budget rules (and of
// timing's derivation and explanation, which say the same rules).
Nanos ShrunkLease(Nanos lease_duration, std::int64_t drift_bound_ppm, Nanos safety_margin);

// How long a candidate must see one version unchanged, on its own clock,
// before it may take over a lease of `holder_duration`.
Nanos TakeoverWait(Nanos holder_duration, std::int64_t drift_bound_ppm);

// The bound within which, after faults heal, some node must lead again.
Nanos RecoveryBound(const TimingConfig& timing);

// How long a candidate that is not the preferred successor leaves a
// released record to the others (on its own clock): a few retry periods.
constexpr Nanos ReleasedRecordWait(const TimingConfig& timing) { return 3 * timing.retry; }

}  // namespace leasesim::core
