#pragma once
// Shrinking a failing run to a small scenario a person can read: fewer
// faults, shorter faults, fewer nodes, a shorter run, while the run (same
// seed) keeps failing the same way. Greedy and deterministic: every step is
// a run of the simulator, accepted only when the failure persists.

#include <cstdint>
#include <functional>

#include "runner/run.h"
#include "runner/scenario.h"

namespace leasesim::fuzz {

// True when a run still shows the failure being shrunk.
using StillFails = std::function<bool(const runner::RunResult&)>;

struct ShrinkOutcome {
  runner::Scenario scenario;  // explicit faults, no nemesis
  runner::RunResult result;   // its run
  int runs = 0;               // simulator runs spent
};

// `failing` must fail `still_fails` for `seed`; a nemesis in it is expanded
// into explicit faults first. At most runs_max runs are spent.
ShrinkOutcome Shrink(const runner::Scenario& failing, std::uint64_t seed, const StillFails& still_fails,
                     int runs_max = 400);

// A StillFails that holds while some violation of one of these kinds is
// reported (the kinds the original failure showed).
StillFails FailsWithAnyOf(std::vector<std::string> kinds);

}  // namespace leasesim::fuzz
