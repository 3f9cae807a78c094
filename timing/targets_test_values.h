#pragma once
// The targets timing's tests derive from: the issue's example (fail over
// within 15 s on a store with a 200 ms p99, 500 ms pauses, 500 ppm drift).

#include "timing/targets.h"

namespace leasesim::timing::test_values {

inline Targets IssueTargets() {
  Targets t;
  t.failover_target_ms = 15'000;
  t.store_p99_ms = 200;
  t.pause_budget_ms = 500;
  t.drift_bound_ppm = 500;
  return t;
}

}  // namespace leasesim::timing::test_values
