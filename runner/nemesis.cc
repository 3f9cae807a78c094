#include "runner/nemesis.h"

#include <algorithm>

#include "base/prng.h"
#include "runner/fault_catalogue.h"
#include "runner/fault_generator.h"

namespace leasesim::runner {

const std::vector<std::string_view>& NemesisKinds() {
  // The catalogue's drawable kinds, in draw order.
  static const std::vector<std::string_view> kinds = [] {
    std::vector<std::string_view> names;
    for (const FaultKindSpec* spec : DrawOrder()) names.push_back(spec->name);
    return names;
  }();
  return kinds;
}

std::vector<Fault> GenerateNemesisFaults(const Scenario& scenario, std::uint64_t seed) {
  if (!scenario.nemesis.enabled) return {};
  PrngDraw draw(base::DeriveSeed(seed, "nemesis"));
  return DrawFaults(scenario, scenario.nemesis, draw);
}

Scenario ExpandNemesis(const Scenario& scenario, std::uint64_t seed) {
  Scenario expanded = scenario;
  std::vector<Fault> generated = GenerateNemesisFaults(scenario, seed);
  expanded.nemesis = NemesisConfig{};
  expanded.faults.insert(expanded.faults.end(), generated.begin(), generated.end());
  std::stable_sort(expanded.faults.begin(), expanded.faults.end(),
                   [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return expanded;
}

}  // namespace leasesim::runner
