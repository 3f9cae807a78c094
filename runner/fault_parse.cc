#include "runner/fault_parse.h"

#include <algorithm>
#include <array>

#include "core/fault_points.h"
#include "core/probes.h"
#include "runner/fault_catalogue.h"
#include "runner/fault_fields.h"

namespace leasesim::runner {

using base::InputError;
using base::ObjectReader;
namespace {

using Json = nlohmann::json;

template <std::size_t N>
std::string Joined(const std::array<std::string_view, N>& names) {
  std::string joined;
  for (std::string_view name : names) joined += (joined.empty() ? "" : ", ") + std::string(name);
  return joined;
}

// "all" or a list of names from `known`; `what` names one for messages.
template <std::size_t N>
std::vector<std::string> ParseNameList(ObjectReader& reader, const std::string& key,
                                       const std::array<std::string_view, N>& known, const std::string& what) {
  const Json& value = reader.Field(key);
  std::vector<std::string> names;
  if (value.is_string() && value.get<std::string>() == "all") {
    for (std::string_view name : known) names.emplace_back(name);
    return names;
  }
  if (!value.is_array()) throw InputError{reader.PathOf(key), "must be \"all\" or a list of " + what + "s (" + Joined(known) + ")"};
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string path = reader.PathOf(key) + "[" + std::to_string(i) + "]";
    if (!value[i].is_string()) throw InputError{path, "must be a " + what + " name"};
    const std::string name = value[i].get<std::string>();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      throw InputError{path, "unknown " + what + " \"" + name + "\" (known: " + Joined(known) + ")"};
    }
    names.push_back(name);
  }
  return names;
}

}  // namespace

Fault ParseFault(const Json& json, const std::string& path, const Scenario& scenario) {
  ObjectReader reader(json, path);
  Fault fault;
  fault.at = reader.Millis("at_ms", 0);
  if (fault.at > scenario.duration) {
    throw InputError{reader.PathOf("at_ms"), "must not be after the scenario's duration_ms"};
  }
  const std::string name = reader.String("kind");
  const FaultKindSpec* kind = FindFaultKind(name);
  if (kind == nullptr) {
    throw InputError{reader.PathOf("kind"), "unknown fault kind \"" + name + "\" (known: " + FaultKindNames() + ")"};
  }
  fault.kind = kind->kind;
  for (FaultField field : kind->fields) FieldSpecOf(field).parse(reader, scenario, fault);
  ParseArming(reader, *kind, scenario, fault);
  reader.Finish("a " + name + " fault");
  return fault;
}

std::vector<std::string> ParseFaultPointList(ObjectReader& reader, const std::string& key) {
  return ParseNameList(reader, key, core::kFaultPointNames, "fault point");
}

std::vector<std::string> ParseProbeList(ObjectReader& reader, const std::string& key) {
  return ParseNameList(reader, key, core::kProbeNames, "probe");
}

BuggifyConfig ParseBuggify(ObjectReader& parent) {
  ObjectReader reader(parent.Field("buggify"), parent.PathOf("buggify"));
  BuggifyConfig buggify;
  buggify.probability_ppm = reader.Probability("probability");
  buggify.delay_max = reader.Millis("delay_ms_max", 1);
  reader.Finish();
  return buggify;
}

}  // namespace leasesim::runner
