#pragma once
// The parts of a scenario that describe regions and the replicated store
// (docs/REPLICATED_STORE.md): which region each node and replica lives in,
// the latency between regions, and the store's replicas, read mode and
// election timing. Kept apart from scenario.h so that file only holds one
// field of this type.

#include <string>
#include <vector>

#include "backends/replicated_store.h"
#include "sim/network.h"

namespace leasesim::runner {

// A fault or partition member's replica: a number 1..N, or a role resolved
// when the fault fires.
inline constexpr int kStoreLeaderReplica = -1;    // "store_leader": the replica leading the store then
inline constexpr int kStoreFollowerReplica = -2;  // "store_follower": the lowest-numbered live non-leader

struct RegionsSpec {
  std::vector<std::string> names;              // region i is names[i]
  std::vector<sim::LatencyModel> matrix;       // names² one-way latencies, [from * n + to]
  std::vector<int> node_region;                // by node (index 0 = node 1); -1 = not placed
  int ledger_region = -1;
  int store_region = -1;                       // the single store server (kind "linearizable")
  bool enabled() const { return !names.empty(); }
};

struct ReplicatedSpec {
  bool enabled = false;  // store.kind == "replicated"
  backends::ReplicatedStoreConfig store;
  RegionsSpec regions;
};

// "store_leader", "store_follower" or "r3", for messages.
std::string ReplicaRefName(int replica);

}  // namespace leasesim::runner
