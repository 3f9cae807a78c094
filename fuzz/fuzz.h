#pragma once
// `leasesim fuzz`: RapidCheck drives generated scenarios (node count,
// timing, settlement, network loss, run length, an explicit fault script and
// the run's seed) through the simulator and checks a property; on a failure
// RapidCheck shrinks the case (fewer faults, shorter faults, fewer nodes,
// shorter run), a greedy pass (fuzz/shrink.h) polishes it, and the minimal
// case is written as an ordinary scenario file that `leasesim run` replays.
//
// RapidCheck's own seeded RNG drives generation, so --seed S reproduces the
// whole session; the simulator itself stays a pure function of (scenario,
// seed).

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "runner/run.h"
#include "runner/scenario.h"

namespace leasesim::fuzz {

// The properties `--property` names; "all" checks every one of them except
// "same-seed-same-trace" (which runs each case twice).
const std::vector<std::string>& FuzzProperties();

struct FuzzOptions {
  int runs = 100;
  std::uint64_t seed = 1;  // RapidCheck's seed
  std::string variant = "correct";  // a zoo variant's name
  std::string property = "all";
  bool shrink = true;
};

struct FuzzOutcome {
  bool failed = false;
  int cases = 0;                 // cases RapidCheck ran (including shrink attempts)
  runner::Scenario counterexample;  // explicit faults; named "counterexample"
  std::uint64_t run_seed = 0;    // the simulator seed that reproduces it
  std::vector<checker::Violation> violations;  // of the counterexample's run
  std::string message;           // RapidCheck's description of the failure
};

// An error message when the property name is unknown.
std::optional<std::string> CheckPropertyName(const std::string& property);

// Whether a run (already made) satisfies the property; `rerun` is called for
// the determinism property to make the second run.
bool Holds(const std::string& property, const runner::RunResult& result,
           const std::function<runner::RunResult()>& rerun);

FuzzOutcome RunFuzz(const FuzzOptions& options, std::ostream& log);

}  // namespace leasesim::fuzz
