#pragma once
// The worlds `leasesim timing --verify` runs a derived timing in: ordinary
// scenarios (docs/SCENARIOS.md) shaped by the targets — store latency with
// the given p99 and p999 (and a rarer tail beyond), clocks at the drift
// bound, pauses up to the budget and beyond, leader crashes, store outages,
// partitions, the regions' placement when given — written as a scenario
// file the runner reads like any other, so a failing seed replays with
// `leasesim replay`.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/timing.h"
#include "timing/regions.h"
#include "timing/targets.h"

namespace leasesim::timing {

// What a world's runs count towards.
enum class WorldRole {
  kQuiet,     // nothing should move the lease: any demotion is spurious
  kFailover,  // faults that take the leader away: failover samples for the target
  kOutage,    // the store itself is down: nobody can lead; recovery after it heals
  kBeyond,    // faults beyond the stated assumptions: overlap is expected, fencing must hold
};
const char* WorldRoleName(WorldRole role);

// One world of a set: its scenario name and what its runs count towards.
struct World {
  std::string name;  // the scenario's name
  WorldRole role = WorldRole::kQuiet;
};

// A scenario file of worlds and, in the same order, their roles.
struct WorldSet {
  nlohmann::ordered_json file;  // {"scenarios": [...]}
  std::vector<World> worlds;    // in file order
};

// The store's latency in the worlds: service time fitted so a call's round
// trip (service plus the network both ways) has about the given p99 and
// p999; the network adds a rare tail beyond the p999 (one message in
// 10,000 held up to twice the p999), which the percentiles leave out.
struct LatencyShape {
  nlohmann::ordered_json service;  // the scenario's store.latency_ms
  nlohmann::ordered_json network;  // the scenario's network.latency_ms
};
LatencyShape ShapeLatency(const Targets& targets, const RegionsPlan* regions);

// Every world for `timing`; regions may be null.
WorldSet VerifyWorlds(const Targets& targets, const core::TimingConfig& timing, const RegionsPlan* regions);

// Only the worlds named (the sweep runs a few of them per lease duration).
WorldSet SelectWorlds(const WorldSet& all, const std::vector<std::string>& names);

// The world names the sweep uses.
inline constexpr const char* kSteadyWorld = "timing-steady";
inline constexpr const char* kPausesWorld = "timing-pauses-within-budget";
inline constexpr const char* kCrashWorld = "timing-leader-crash";

}  // namespace leasesim::timing
