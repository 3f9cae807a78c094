#pragma once
// Values the etcd backend's tests share: a fast timing every elector and
// node test runs with, and the settlement batch the ledger tests commit.
// One definition, so the JSON tests and the live tests commit the same batch.

#include <cstdint>
#include <string>

#include "base/units.h"
#include "core/env.h"
#include "core/timing.h"

namespace leasesim::etcd::test_values {

// A sound timing fast enough for a test to see several renewals in a second.
inline core::TimingConfig FastTiming() {
  return core::TimingConfig{.lease_duration = base::Millis(400),
                            .renew_interval = base::Millis(50),
                            .renew_deadline = base::Millis(250),
                            .retry = base::Millis(40),
                            .request_timeout = base::Millis(40),
                            .drift_bound_ppm = 1000,
                            .safety_margin = base::Millis(50),
                            .pause_budget = 0};
}

// Window `window`'s batch of two items under fencing token `token`, keyed
// as the settlement job keys it.
inline core::SettlementBatch Batch(std::int64_t token, std::int64_t window) {
  core::SettlementBatch batch;
  batch.token = token;
  batch.window = window;
  batch.idempotency_key = "settlement/window-" + std::to_string(window);
  batch.items = {{window, 0, 100}, {window, 1, 101}};
  return batch;
}

}  // namespace leasesim::etcd::test_values
