#pragma once
// The sound timing core's tests start from (and break one rule of at a
// time): a 10 s lease, renewals every 3 s given up after 7 s, 1 ms per
// second of drift and a 500 ms margin. Not installed (a test header).

#include "base/units.h"
#include "core/timing.h"

namespace leasesim::core::test_values {

inline TimingConfig SoundTiming() {
  return TimingConfig{.lease_duration = base::Millis(10'000),
                      .renew_interval = base::Millis(3'000),
                      .renew_deadline = base::Millis(7'000),
                      .retry = base::Millis(1'000),
                      .request_timeout = base::Millis(1'000),
                      .drift_bound_ppm = 1'000,
                      .safety_margin = base::Millis(500)};
}

}  // namespace leasesim::core::test_values
