#pragma once
// The generic search's loop: cases from the one case generator
// (runner/case_generator.h), each a sequence of choices plus a simulator
// seed, run and judged by a property. Coverage-guided, as AFL is over
// branches and Hypothesis over choice sequences: the coverage of a run is
// the set of rare protocol paths it reached — the coverage probes
// (core/probes.h) and the fault points — and pairs of them; a case that
// reaches a feature no earlier case reached is kept, and most later cases
// are mutations of kept ones (a few choices changed, a prefix kept and the
// rest drawn afresh, or only the seed changed), picked with a weight for
// the rarity of what they reached. So generation drifts toward the paths
// not yet taken without being told which mistakes exist.
//
// Deterministic: the session seed fixes every case and mutation. A time
// budget only decides how many cases run; the count is reported, so the
// same session replays with --runs.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runner/run.h"
#include "runner/scenario.h"

namespace leasesim::fuzz {

// Where a session stands, for a progress display: given after every case
// (and once before the first, and once when the session ends). Watching
// changes nothing the search decides.
struct SearchProgress {
  int cases = 0;                     // cases run so far
  int runs_max = 0;                  // the session's case limit
  std::int64_t time_budget_ms = 0;   // > 0: the session's wall-time budget
  int probes_reached = 0;            // coverage probes some case reached
  int probes_total = 0;
  int near_misses = 0;               // cases with two leaders at once, a write after the lease or a stale arrival
  std::string closest;               // the distance to a violation that came closest ("" none yet)
  std::int64_t closest_ms = 0;       // its value
  int violating = 0;                 // cases whose run broke a property
  bool finished = false;             // the last report of the session
};

struct SearchOptions {
  int runs = 100;               // cases at most
  std::uint64_t seed = 1;       // the session seed
  std::string protocol = std::string(core::kLeasesimProtocol);
  bool steer = true;            // false: every case fresh (the plain generator)
  std::int64_t time_budget_ms = 0;  // > 0: stop once this much wall time is spent
  // True when a case's run shows what is hunted (the scenario and seed are
  // there to run it again); the search stops at the first.
  std::function<bool(const runner::Scenario&, std::uint64_t seed, const runner::RunResult&)> fails;
  std::function<void(const SearchProgress&)> on_progress;  // optional
};

struct SearchOutcome {
  int runs = 0;                  // cases run
  bool failed = false;
  int failing_run = 0;           // 1-based index of the failing case
  runner::Scenario failing;      // the failing case's scenario (explicit faults)
  std::uint64_t run_seed = 0;    // its simulator seed
  runner::RunResult result;      // its run
  std::map<std::string, int> reached;  // probe or fault point -> cases reaching it
  std::vector<std::string> probes_never;  // probes no case reached
  int corpus = 0;                // cases kept for reaching something new
  int mutated = 0;               // cases made by mutating a kept one
};

SearchOutcome Search(const SearchOptions& options);

// The case a session makes as its `index`-th (1-based) fresh case, for
// replaying a reported case without the session around it.
runner::Scenario FreshCase(std::uint64_t session_seed, int index, const std::string& protocol,
                           std::uint64_t& run_seed);

}  // namespace leasesim::fuzz
