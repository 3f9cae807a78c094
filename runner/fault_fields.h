#pragma once
// How each fault field (FaultField in runner/fault_catalogue.h) is read from
// and written to a scenario file, and the arming fields every armable kind
// shares (at_point, arrival, lease_remaining_below_ms, and `node` for kinds
// that target no node). The parser (runner/fault_parse.cc) and the scenario
// writer (fuzz/scenario_json.cc) go through these, so what one writes the
// other reads.

#include <string_view>

#include <nlohmann/json.hpp>

#include "base/strict_json.h"
#include "runner/fault_catalogue.h"

namespace leasesim::runner {

struct FaultFieldSpec {
  FaultField field;
  std::string_view key;      // the JSON key
  std::string_view meaning;  // with its unit, for people
  // Reads the field into `fault` (throws base::InputError); the replicated
  // store's fields go to runner/replicated_parse.h.
  void (*parse)(base::ObjectReader& reader, const Scenario& scenario, Fault& fault);
  void (*write)(const Fault& fault, const Scenario& scenario, nlohmann::json& json);
};

const FaultFieldSpec& FieldSpecOf(FaultField field);

// The arming fields: `kind` is the fault's entry (for its target and rules).
void ParseArming(base::ObjectReader& reader, const FaultKindSpec& kind, const Scenario& scenario, Fault& fault);
void WriteArming(const Fault& fault, const FaultKindSpec& kind, nlohmann::json& json);

// A node reference as the parser reads it ("leader", "follower", 1..nodes).
NodeRef ParseNodeRef(const nlohmann::json& value, const std::string& path, int nodes);
nlohmann::json NodeRefJson(const NodeRef& ref);

}  // namespace leasesim::runner
