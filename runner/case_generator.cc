#include "runner/case_generator.h"

#include <algorithm>

#include "base/units.h"
#include "runner/fault_generator.h"
#include "runner/protocol_stores.h"

namespace leasesim::runner {
namespace {

using base::Millis;

// Hiccups at fault points in a quarter of the cases: rare or frequent, and
// short enough to stay within the pause budget unless the case goes beyond.
BuggifyConfig DrawBuggify(FaultDraw& draw, const core::TimingConfig& timing, bool beyond) {
  if (!draw.Percent(25)) return {};
  BuggifyConfig buggify;
  const std::uint32_t probabilities_ppm[] = {10'000, 50'000, 200'000};
  buggify.probability_ppm = probabilities_ppm[draw.Below(3)];
  // Capped at a few leases, as the fault generator's pauses are (a budget
  // that long only a loosened timing rule allows).
  const Nanos within = std::max<Nanos>(Millis(1), std::min(timing.pause_budget, 3 * timing.lease_duration));
  const bool long_hiccups = draw.Percent(50);
  const Nanos long_max = draw.Millis(within + Millis(1), within + timing.lease_duration);
  const Nanos short_max = draw.Millis(Millis(1), within);
  buggify.delay_max = beyond && long_hiccups ? long_max : short_max;
  if (!beyond && timing.pause_budget < Millis(1)) return {};  // no hiccup fits in a zero budget
  return buggify;
}

}  // namespace

Scenario GenerateCase(FaultDraw& draw, const std::string& protocol, const CaseLimits& limits) {
  const bool beyond = draw.Percent(50);
  WorldLimits world = limits.world;
  world.beyond_assumptions = world.beyond_assumptions && beyond;
  Scenario scenario = GenerateWorld(draw, world);
  SetScenarioProtocol(scenario, protocol);
  NemesisConfig config;
  config.enabled = true;
  config.faults_max = limits.faults_max;
  config.within_assumptions = !world.beyond_assumptions;
  draw.BeginSection();
  config.timed_strikes = draw.Percent(70);
  scenario.faults = DrawFaults(scenario, config, draw);
  draw.BeginSection();
  scenario.buggify = DrawBuggify(draw, scenario.timing, world.beyond_assumptions);
  return scenario;
}

}  // namespace leasesim::runner
