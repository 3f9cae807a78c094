#pragma once
// A scenario written back as an ordinary scenario file, the format
// runner/scenario_parser.cc reads (docs/SCENARIOS.md): shrunk
// counterexamples are saved this way so `leasesim run` replays them.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/scenario.h"

namespace leasesim::fuzz {

nlohmann::json ScenarioToJson(const runner::Scenario& scenario);

// One fault as the scenario file writes it: the fields its catalogue entry
// lists, then the arming fields. `scenario` gives region names.
nlohmann::json FaultToJson(const runner::Fault& fault, const runner::Scenario& scenario);

// {"scenarios": [...]}, pretty-printed, ending in a newline.
std::string ScenarioFileText(const std::vector<runner::Scenario>& scenarios);

}  // namespace leasesim::fuzz
