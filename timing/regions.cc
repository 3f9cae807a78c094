#include "timing/regions.h"

#include <fstream>
#include <sstream>

#include "base/strict_json.h"
#include "runner/replicated_parse.h"

namespace leasesim::timing {
namespace {

constexpr std::size_t kRegionsFileBytesMax = 1 << 20;

// A one-way latency's upper end at a call's p99: base and jitter, and the
// tail when one message in 200 or more takes it (two messages per call).
std::int64_t UpperMs(const sim::LatencyModel& model) {
  const std::int64_t tail = model.tail_ppm >= 5'000 ? model.tail_ns : 0;
  return (model.base_ns + model.jitter_ns + tail) / base::kNanosPerMilli;
}

void Measure(const runner::RegionsSpec& spec, RegionsPlan& plan) {
  const std::size_t n = spec.names.size();
  const std::size_t store = static_cast<std::size_t>(spec.store_region);
  plan.local_rtt_ms = 2 * UpperMs(spec.matrix[store * n + store]);
  for (int region : spec.node_region) {
    const std::size_t r = static_cast<std::size_t>(region);
    const std::int64_t rtt = UpperMs(spec.matrix[r * n + store]) + UpperMs(spec.matrix[store * n + r]);
    if (rtt - plan.local_rtt_ms > plan.extra_rtt_ms || plan.farthest.empty()) {
      plan.extra_rtt_ms = std::max<std::int64_t>(0, rtt - plan.local_rtt_ms);
      plan.farthest = "to reach " + spec.names[store] + " from " + spec.names[r];
    }
  }
}

}  // namespace

std::variant<RegionsPlan, base::InputError> ParseRegionsText(const std::string& text) {
  auto parsed = base::ParseStrictJson(text);
  if (auto* error = std::get_if<base::InputError>(&parsed)) return *error;
  const base::Json& json = std::get<base::Json>(parsed);
  RegionsPlan plan;
  try {
    if (!json.is_object()) throw base::InputError{"", "must be an object in the scenario file's \"regions\" format"};
    if (!json.contains("nodes") || !json["nodes"].is_array()) {
      throw base::InputError{"nodes", "is required: the region of each node, one entry per node"};
    }
    const std::size_t nodes = json["nodes"].size();
    if (nodes < kRegionNodesMin || nodes > kRegionNodesMax) {
      throw base::InputError{"nodes", "must place 2..9 nodes (got " + std::to_string(nodes) + ")"};
    }
    if (!json.contains("store")) throw base::InputError{"store", "is required: the region of the store"};
    runner::Scenario scenario;
    scenario.nodes = static_cast<int>(nodes);
    runner::ParseRegions(json, "", scenario);
    plan.json = json;
    if (!plan.json.contains("ledger")) plan.json["ledger"] = plan.json["store"];
    plan.nodes = scenario.nodes;
    Measure(scenario.replicated.regions, plan);
  } catch (const base::InputError& error) {
    return error;
  }
  return plan;
}

std::variant<RegionsPlan, base::InputError> LoadRegions(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return base::InputError{"", "cannot be read"};
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > kRegionsFileBytesMax) return base::InputError{"", "is larger than 1 MiB"};
  return ParseRegionsText(text.str());
}

}  // namespace leasesim::timing
