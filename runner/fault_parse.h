#pragma once
// Reading a scenario's faults through the fault catalogue: the kind's entry
// names the fields to read (runner/fault_fields.h), then the arming fields.
// Also the fault-point lists (nemesis.points, expect.fault_points,
// require_fault_points) and "buggify". Errors are thrown as base::InputError
// (path and rule), by the strict reader (base/strict_json.h) and by these.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/strict_json.h"
#include "runner/scenario.h"

namespace leasesim::runner {

// One entry of "faults"; `scenario` is read up to its faults (nodes,
// duration, regions and store).
Fault ParseFault(const nlohmann::json& json, const std::string& path, const Scenario& scenario);

// "all", or a list of named fault points.
std::vector<std::string> ParseFaultPointList(base::ObjectReader& reader, const std::string& key);
// "all" or a list of coverage probe names (core/probes.h).
std::vector<std::string> ParseProbeList(base::ObjectReader& reader, const std::string& key);

// The scenario's "buggify" object.
BuggifyConfig ParseBuggify(base::ObjectReader& parent);

}  // namespace leasesim::runner
