#pragma once
// Reading the scenario fields of regions and the replicated store
// (docs/REPLICATED_STORE.md), and latency models, with the strict reader
// (base/strict_json.h). Called from scenario_parser.cc and fault_fields.cc;
// every error is a base::InputError naming the field's path and the rule it
// broke.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "base/strict_json.h"
#include "runner/scenario.h"

namespace leasesim::runner {

// A latency model wherever a scenario gives one (the store's, the
// network's and a KV host's "latency_ms"; "regions"' "within_ms" and each
// "between" link): base, jitter (default 0), and tail_p with tail.
sim::LatencyModel ParseLatency(base::ObjectReader& parent, const std::string& key);

// The top-level "regions" block.
void ParseRegions(const nlohmann::json& json, const std::string& path, Scenario& scenario);

// The store block's fields of kind "replicated", read from the store's own
// reader (the caller reads "kind" and "latency_ms" and finishes it).
void ParseReplicatedStore(base::ObjectReader& store, Scenario& scenario);

// The fault fields of the replicated-store kinds (runner/fault_fields.h):
// "replica" — a number, or with `roles` also "store_leader" and
// "store_follower" — and "region". `fault.kind` is already set.
void ParseReplicaField(base::ObjectReader& reader, bool roles, const Scenario& scenario, Fault& fault);
void ParseRegionField(base::ObjectReader& reader, const Scenario& scenario, Fault& fault);

// A partition member naming a replica: "r1".."rN", "store_leader".
std::optional<Member> ParseReplicaMember(const nlohmann::json& item);

// Checks made once the whole scenario is read (replica numbers in range,
// store faults that make no sense for a replicated store, ...).
void ValidateReplicated(const Scenario& scenario, const std::string& path);

}  // namespace leasesim::runner
