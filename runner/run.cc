#include "runner/run.h"

#include <algorithm>

#include "runner/injector.h"
#include "runner/judgement.h"
#include "runner/nemesis.h"
#include "runner/run_world.h"

namespace leasesim::runner {
namespace {

// Assembly, injection, judgement: one run of an explicit fault script.
RunResult RunScript(const Scenario& scenario, std::uint64_t seed, const RunOptions& options) {
  RunWorld world(scenario, seed, options);
  {
    Injector injector(world, scenario);
    injector.LogClockSettings();
    world.Start();
    injector.ScheduleScript();
    world.world().RunUntil(scenario.duration);
    injector.LogUnstruck();
  }
  return Judge(world, options);
}

}  // namespace

RunResult RunScenario(const Scenario& scenario, std::uint64_t seed, const RunOptions& options) {
  if (scenario.nemesis.enabled) {
    // The nemesis' script for this seed, as explicit faults: the same run.
    return RunScript(ExpandNemesis(scenario, seed), seed, options);
  }
  return RunScript(scenario, seed, options);
}

std::vector<std::string> FaultPointsNeverFired(const std::vector<std::string>& required,
                                               const std::vector<const std::map<std::string, std::int64_t>*>& figures) {
  std::vector<std::string> missing;
  for (const std::string& point : required) {
    bool fired = false;
    for (const auto* run : figures) {
      auto it = run->find("fault_point_" + point);
      fired = fired || (it != run->end() && it->second > 0);
    }
    if (!fired && std::find(missing.begin(), missing.end(), point) == missing.end()) missing.push_back(point);
  }
  return missing;
}

}  // namespace leasesim::runner
