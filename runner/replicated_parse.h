#pragma once
// Reading the scenario fields of regions and the replicated store
// (docs/REPLICATED_STORE.md) with base/strict_json.h's ObjectReader. Called
// from scenario_parser.cc; every error is a SpecError naming the field's path
// and the rule it broke.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/strict_json.h"
#include "runner/scenario.h"

namespace leasesim::runner {

// What every function here throws: the field's path and the rule it broke
// (the strict reader's error, so one catch serves both).
using SpecError = base::JsonError;

// The top-level "regions" block.
void ParseRegions(const nlohmann::json& json, const std::string& path, Scenario& scenario);

// The store block's fields of kind "replicated" (besides "kind" and
// "latency_ms", which the caller reads). Returns the keys it read.
std::vector<std::string> ParseReplicatedStore(const nlohmann::json& json, const std::string& path,
                                              Scenario& scenario);

// A fault of a replicated-store kind ("replica_crash", "replica_restart",
// "replica_pause", "isolate_region"): false when `kind` is none of them.
// Fills `fault` and returns in `read` the keys it consumed.
bool ParseReplicatedFault(const std::string& kind, const nlohmann::json& json, const std::string& path,
                          const Scenario& scenario, Fault& fault, std::vector<std::string>& read);

// A partition member naming a replica: "r1".."rN", "store_leader".
std::optional<Member> ParseReplicaMember(const nlohmann::json& item);

// Checks made once the whole scenario is read (replica numbers in range,
// store faults that make no sense for a replicated store, ...).
void ValidateReplicated(const Scenario& scenario, const std::string& path);

// Whether a fault kind targets the replicated store rather than a node.
bool IsReplicatedFaultKind(FaultKind kind);

}  // namespace leasesim::runner
