#pragma once
// A sweep: every selected scenario of a file for every seed, in a fixed
// order (scenario order, then seed order), turned into report summaries.
//
// Runs may execute on several threads (SweepOptions::jobs): each run is its
// own World on one thread, and results are put back in sweep order before
// anything sees them, so summaries, reports, callbacks and every trace hash
// are the same for any number of jobs.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reports/run_summary.h"
#include "reports/timeline.h"
#include "runner/run.h"
#include "runner/scenario.h"

namespace leasesim::runner {

// The command that reproduces one run exactly; `protocol` (when not empty)
// is the --protocol the sweep ran every scenario with.
std::string ReplayCommand(const std::string& file, const std::string& scenario, std::uint64_t seed,
                          const std::string& protocol = "");

reports::RunSummary Summarize(const RunResult& result, const std::string& file, const std::string& protocol = "");

using RunFunction = std::function<RunResult(const Scenario&, std::uint64_t, const RunOptions&)>;

struct SweepOptions {
  int jobs = 1;               // worker threads; 1 runs everything on the calling thread
  reports::Shard shard;       // which part of the sweep to run
  // Run every seed twice (the second time retaining its trace) and compare
  // trace hashes; a mismatch fails the run with a "nondeterminism" violation
  // naming the first divergent trace event.
  bool check_determinism = false;
  // Not empty: every scenario runs this registered protocol
  // (core/protocol.h; checked by the caller) instead of its own, so one
  // binary runs both sides of a comparison (leasesim compare). Replay
  // commands and the summary carry it.
  std::string protocol;
  std::size_t timelines_max = reports::kTimelinesMax;
  // Stop at the first failing run in sweep order: the summary then holds the
  // runs up to and including it (the same for any jobs) and says it stopped.
  bool fail_fast = false;
  // Replaces RunScenario (tests use it to inject failures or nondeterminism).
  RunFunction run;
  // When set, each run's summary goes here, in sweep order on the calling
  // thread, instead of into the outcome's summary (whose runs stay empty):
  // a long sweep then need not hold every run (reports::ReportStream). Not
  // for RunBudgetedSweep, which puts its batches' runs in order afterwards.
  std::function<void(const reports::RunSummary&)> on_summary;
};

struct SweepProgress {
  std::size_t done = 0;
  std::size_t total = 0;
  std::size_t failed = 0;
};

struct SweepOutcome {
  reports::SweepSummary summary;
  // Timelines of the first failing runs in sweep order (at most timelines_max).
  std::vector<reports::Timeline> timelines;
  // Runs whose two executions disagreed (check_determinism), in sweep order.
  std::size_t nondeterministic = 0;
};

// Whether the run at `index` of the full sweep order belongs to `shard`.
inline bool InShard(std::size_t index, const reports::Shard& shard) {
  return index % static_cast<std::size_t>(shard.count) == static_cast<std::size_t>(shard.index - 1);
}

// Runs the sweep. on_run is called on the calling thread, in sweep order,
// once per run (its history is not kept); on_progress on the calling thread
// after each run completes (in completion order).
SweepOutcome RunSweep(const ScenarioFile& file, const std::vector<const Scenario*>& scenarios,
                      const std::vector<std::uint64_t>& seeds, const std::string& seeds_text,
                      const SweepOptions& options, const std::function<void(const RunResult&)>& on_run,
                      const std::function<void(const SweepProgress&)>& on_progress = {});

// The serial sweep of every run, without timelines (kept for existing callers).
reports::SweepSummary RunSweep(const ScenarioFile& file, const std::vector<const Scenario*>& scenarios,
                               const std::vector<std::uint64_t>& seeds, const std::string& seeds_text,
                               const std::function<void(const RunResult&)>& on_run);

}  // namespace leasesim::runner
