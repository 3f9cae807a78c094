// Uses the installed core and etcd backend: checks a timing configuration
// with the core's own rules and splits an etcd endpoint list.
#include <iostream>

#include "backends/etcd/etcd_http.h"
#include "base/version.h"
#include "core/timing.h"

int main() {
  using namespace leasesim;
  constexpr core::Nanos kMs = 1'000'000;
  const core::TimingConfig timing{.lease_duration = 4000 * kMs, .renew_interval = 1000 * kMs,
                                  .renew_deadline = 3000 * kMs, .retry = 500 * kMs,
                                  .request_timeout = 600 * kMs, .drift_bound_ppm = 1000,
                                  .safety_margin = 500 * kMs, .pause_budget = 300 * kMs};
  const auto errors = core::ValidateTiming(timing);
  for (const core::TimingError& error : errors) std::cout << error.field << ": " << error.rule << "\n";
  std::cout << "timing: " << (errors.empty() ? "sound" : "broken") << "\n";
  std::cout << "endpoints: " << etcd::SplitEndpoints("http://a:2379,http://b:2379").size() << "\n";
  std::cout << "leasesim " << base::Version() << "\n";
  return errors.empty() ? 0 : 1;
}
