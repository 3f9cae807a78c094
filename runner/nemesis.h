#pragma once
// The nemesis: a seeded generator of fault scripts, swarm style. Which fault
// kinds are on, how many faults, their rates and durations are all drawn
// from the run's seed (through its own "nemesis" PRNG, never std::
// distributions), so a scenario with a nemesis is still a pure function of
// (scenario, seed) and the script it generated can be written out as an
// ordinary, hand-editable fault list.
//
// Bounded: at most faults_max composite faults (a crash brings its restarts,
// a shutdown its restarts), every duration capped, every fault inside the
// run. With within_assumptions the script stays inside the protocol's stated
// assumptions (pauses, suspends and clogs within the pause budget, drift
// within the bound); without, those may go beyond, and fencing must hold.
// Pauses, suspends and crashes are often aimed at the protocol's named fault
// points (core/fault_points.h), the dangerous instants; with timed_strikes
// any kind may be, at a later arrival or when the lease runs short.
//
// The draws themselves are the fault catalogue's (runner/fault_generator.h),
// shared with `leasesim fuzz`; the nemesis feeds them from the seed.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runner/scenario.h"

namespace leasesim::runner {

// The kinds the nemesis knows (the catalogue's drawable ones), in draw order.
const std::vector<std::string_view>& NemesisKinds();

// The faults the nemesis draws for `scenario` (its nemesis config) and `seed`,
// ordered by time. Empty when the nemesis is not enabled.
std::vector<Fault> GenerateNemesisFaults(const Scenario& scenario, std::uint64_t seed);

// The scenario with the nemesis' faults merged into its hand-written ones
// (stable by time) and the nemesis switched off: the run it makes is the
// same run, now as an explicit script.
Scenario ExpandNemesis(const Scenario& scenario, std::uint64_t seed);

}  // namespace leasesim::runner
