#include "runner/run.h"

#include <algorithm>

#include "base/figures.h"
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

namespace {

// The names of `required` whose figure PREFIX+name is positive in no run.
std::vector<std::string> NeverCounted(std::string_view prefix, const std::vector<std::string>& required,
                                      const std::vector<const std::map<std::string, std::int64_t>*>& figures) {
  std::vector<std::string> missing;
  for (const std::string& name : required) {
    const std::string figure = std::string(prefix) + name;
    bool counted = false;
    for (const auto* run : figures) {
      auto it = run->find(figure);
      counted = counted || (it != run->end() && it->second > 0);
    }
    if (!counted && std::find(missing.begin(), missing.end(), name) == missing.end()) missing.push_back(name);
  }
  return missing;
}

}  // namespace

std::vector<std::string> FaultPointsNeverFired(const std::vector<std::string>& required,
                                               const std::vector<const std::map<std::string, std::int64_t>*>& figures) {
  return NeverCounted(base::kFaultPointFigurePrefix, required, figures);
}

std::vector<std::string> ProbesNeverReached(const std::vector<std::string>& required,
                                            const std::vector<const std::map<std::string, std::int64_t>*>& figures) {
  return NeverCounted(base::kProbeFigurePrefix, required, figures);
}

}  // namespace leasesim::runner
