#pragma once
// Draws a whole world for the generic search, from one seed and nothing
// aimed at any mistake: how many nodes, a timing configuration that obeys
// every rule core::ValidateTiming states (loose or tight against them),
// per-node timing differences (lease.by_node), the settlement schedule,
// store and network latency with tails reaching past the request timeout,
// loss, duplication and reordering, and each node's clock drift and wall
// offset at boot — within the drift bound or, when allowed, beyond it.
// The fault script comes from the fault generator (runner/nemesis.h).

#include <cstdint>

#include "runner/scenario.h"

namespace leasesim::runner {

struct WorldLimits {
  int nodes_min = 2;
  int nodes_max = 5;
  Nanos duration_min = 30 * sim::kNanosPerSecond;
  Nanos duration_max = 120 * sim::kNanosPerSecond;
  bool beyond_assumptions = true;  // clocks may drift beyond the stated bound
};

class FaultDraw;

// A scenario named "generated" with no faults and no nemesis, every choice
// taken from `draw` (so a fuzzer can mutate the world like the faults).
Scenario GenerateWorld(FaultDraw& draw, const WorldLimits& limits = {});
// The same, with the choices drawn from `seed`.
Scenario GenerateWorld(std::uint64_t seed, const WorldLimits& limits = {});

// An upper bound on the share (ppm) of store calls whose latency alone runs
// past `timeout`: each of the request, the service and the reply takes its
// tail or not, and a combination counts when its longest sum does.
// Generated worlds keep it at 1% at most (the timeout is above the p99).
std::int64_t TimeoutShareBoundPpm(const sim::LatencyModel& net, const sim::LatencyModel& store, Nanos timeout);

// A timing configuration that passes core::ValidateTiming.
core::TimingConfig GenerateTiming(FaultDraw& draw);

}  // namespace leasesim::runner
