#pragma once
// `leasesim timing --verify`: the verify worlds run through the ordinary
// runner (runner::RunSweep) over N seeds, and the advice checked against
// what happened: failover p50/p99/max against the target, leaderless time,
// renewals failed and leader changes per hour, spurious demotions, and
// every violation, with faults beyond the assumptions reported as such.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runner/scenario.h"
#include "runner/sweep.h"
#include "timing/measure.h"
#include "timing/targets.h"
#include "timing/worlds.h"

namespace leasesim::timing {

// Which seeds to run the worlds over, and on how many threads.
struct RunPlan {
  std::vector<std::uint64_t> seeds;
  std::string seeds_text;  // as printed ("1-500")
  int jobs = 1;
  std::string protocol;  // not empty: every world runs this registered protocol
  std::function<void(const runner::SweepProgress&)> on_progress;  // optional: a progress display
};

// One world's runs, summed.
struct WorldStats {
  World world;
  std::int64_t runs = 0;
  std::int64_t sim_ms = 0;             // simulated time over all runs
  std::vector<std::int64_t> failover_ms;
  std::int64_t kept = 0;
  std::int64_t unrecovered = 0;
  std::int64_t leaderless_ms = 0;      // summed over runs
  std::int64_t leaderless_ms_max = 0;  // the worst run
  std::int64_t renewals_failed = 0;
  std::int64_t renewals_ok = 0;
  std::int64_t demotions = 0;          // self-demotions (not crashes, not releases)
  std::int64_t leader_changes = 0;     // leader terms after the first, summed
  std::vector<std::int64_t> recovery_ms;  // after the last fault healed (outage worlds)
  std::int64_t beyond_runs = 0;        // runs with a note about faults beyond the assumptions
  std::int64_t calls = 0, over_p99 = 0, over_p999 = 0, unanswered = 0;
  std::vector<std::string> violations;  // "seed N: kind: message" with the replay command, first few
  std::int64_t violating_runs = 0;
  // One entry per run, in seed order: the longest failover (0: none) and
  // the demotions. Runs of two timings over the same seeds are paired, so
  // a paired test (issue 13's compare/) can be applied seed by seed.
  std::vector<std::int64_t> by_seed_failover_max_ms;
  std::vector<std::int64_t> by_seed_demotions;
};

// Runs `set` (already read back through the scenario parser into `file`).
std::vector<WorldStats> RunWorlds(const runner::ScenarioFile& file, const WorldSet& set, const CallThresholds& thresholds,
                                  const RunPlan& plan);

// Passed: the failover p99 within the target (with every leader loss
// followed by a new leader), no violation, and after every store outage a
// leader within `bound_ms` (core::RecoveryBound). The last is judged here
// because the checker's own recovery check counts from the end of the last
// fault, and a clock drifting from the start is logged as a fault that
// lasts the whole run, so in these worlds it never applies.
struct VerifyVerdict {
  bool target_met = false;
  bool no_violation = false;
  bool recovery_met = false;
  bool passed() const { return target_met && no_violation && recovery_met; }
  std::vector<std::int64_t> failover_ms;  // every within-assumption failover
};
VerifyVerdict Judge(const std::vector<WorldStats>& worlds, const Targets& targets, std::int64_t bound_ms);

// The report: one line per world, then the summary against the targets.
std::string VerifyText(const std::vector<WorldStats>& worlds, const Targets& targets, std::int64_t bound_ms,
                       const CallThresholds& thresholds, const std::string& seeds_text);

}  // namespace leasesim::timing
