// Uses the installed core and etcd backend: checks a timing configuration
// with the core's own rules and splits an etcd endpoint list.
#include <iostream>

#include "backends/etcd/etcd_http.h"
#include "base/units.h"
#include "base/version.h"
#include "core/timing.h"

int main() {
  using namespace leasesim;
  const core::TimingConfig timing{.lease_duration = base::Millis(4000), .renew_interval = base::Millis(1000),
                                  .renew_deadline = base::Millis(3000), .retry = base::Millis(500),
                                  .request_timeout = base::Millis(600), .drift_bound_ppm = 1000,
                                  .safety_margin = base::Millis(500), .pause_budget = base::Millis(300)};
  const auto errors = core::ValidateTiming(timing);
  for (const core::TimingError& error : errors) std::cout << error.ToString() << "\n";
  std::cout << "timing: " << (errors.empty() ? "sound" : "broken") << "\n";
  std::cout << "endpoints: " << etcd::SplitEndpoints("http://a:2379,http://b:2379").size() << "\n";
  std::cout << "leasesim " << base::Version() << "\n";
  return errors.empty() ? 0 : 1;
}
