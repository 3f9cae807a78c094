#pragma once
// --regions FILE: where the nodes, the store and the ledger run, and the
// latency between regions, in the scenario file's "regions" format
// (docs/REPLICATED_STORE.md; "nodes" and "store" are required here). The
// derivation adds the worst node's extra round trip to the store's p99;
// the verify worlds run in that placement.

#include <cstdint>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "base/input_error.h"

namespace leasesim::timing {

// A regions file, read and measured.
struct RegionsPlan {
  nlohmann::json json;             // the block as given, "ledger" defaulted to the store's region
  int nodes = 0;                   // one per entry of "nodes"
  std::int64_t local_rtt_ms = 0;   // a round trip inside the store's region (base + jitter each way)
  std::int64_t extra_rtt_ms = 0;   // the farthest node's round trip to the store, above local_rtt_ms
  std::string farthest;            // "to reach us from ap", for the reasoning
};

inline constexpr int kRegionNodesMin = 2;  // a failover needs someone to fail over to
inline constexpr int kRegionNodesMax = 9;

// The plan, or the one bad-input error naming the field and the rule; the
// caller names the file (error.In(path)), as for a scenario file.
std::variant<RegionsPlan, base::InputError> LoadRegions(const std::string& path);
std::variant<RegionsPlan, base::InputError> ParseRegionsText(const std::string& text);

}  // namespace leasesim::timing
