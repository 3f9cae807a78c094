#pragma once
// `leasesim fuzz`: the generic search (fuzz/search.h) over generated cases
// — whole worlds and fault scripts from the one generator, steered toward
// coverage probes not yet reached — checked against a property; a failure
// is shrunk (fuzz/shrink.h: fewer and shorter faults, fewer nodes, a
// shorter run) to an ordinary scenario file that `leasesim run` replays.
//
// --seed S fixes the whole session; the simulator itself stays a pure
// function of (scenario, seed).

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "base/input_error.h"
#include "fuzz/search.h"
#include "runner/run.h"
#include "runner/scenario.h"

namespace leasesim::fuzz {

// The properties `--property` names; "all" checks every one of them except
// "same-seed-same-trace" (which runs each case twice).
const std::vector<std::string>& FuzzProperties();

struct FuzzOptions {
  int runs = 100;
  std::uint64_t seed = 1;           // the session seed
  std::string protocol = std::string(core::kLeasesimProtocol);  // a registered protocol's name
  std::string property = "all";
  bool shrink = true;
  bool steer = true;                // coverage-guided (fuzz/search.h); false: every case fresh
  std::int64_t time_budget_ms = 0;  // > 0: keep generating until this much wall time is spent
  std::function<void(const SearchProgress&)> on_progress;  // optional: a progress display
};

struct FuzzOutcome {
  bool failed = false;
  int cases = 0;                    // cases run before stopping
  SearchOutcome search;             // what the session reached
  runner::Scenario counterexample;  // explicit faults; named "counterexample"
  std::uint64_t run_seed = 0;       // the simulator seed that reproduces it
  std::vector<checker::Violation> violations;  // of the counterexample's run
  int shrink_runs = 0;              // runs the shrinker spent
};

// The bad-input error (path "--property", the names known) when the
// property name is unknown.
std::optional<base::InputError> CheckPropertyName(const std::string& property);

// Whether a run (already made) satisfies the property; `rerun` is called for
// the determinism property to make the second run.
bool Holds(const std::string& property, const runner::RunResult& result,
           const std::function<runner::RunResult()>& rerun);

FuzzOutcome RunFuzz(const FuzzOptions& options, std::ostream& log);

// The search a session runs (without its `fails`): shared with the
// differential session (fuzz/baseline.h).
SearchOptions SearchOptionsOf(const FuzzOptions& options);

}  // namespace leasesim::fuzz
