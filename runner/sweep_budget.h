#pragma once
// A sweep with a time budget (`leasesim run --time-budget`): whole seeds
// (every selected scenario) drawn in order, in small batches, until the
// budget is spent or the seeds run out. The outcome is exactly what RunSweep
// gives for the seeds that ran, and its summary names them ("seeds":
// "1-137"), so `run --seeds 1-137` writes the same files.

#include <cstdint>
#include <functional>
#include <vector>

#include "runner/sweep.h"

namespace leasesim::runner {

// Up to `count` further seeds in drawing order; empty when none are left.
using SeedSource = std::function<std::vector<std::uint64_t>(std::size_t count)>;

// `spent` is asked before each batch (the caller owns the clock, so the
// runs never see it). options.shard must be whole.
SweepOutcome RunBudgetedSweep(const ScenarioFile& file, const std::vector<const Scenario*>& scenarios,
                              const SeedSource& next_seeds, const std::function<bool()>& spent,
                              const SweepOptions& options, const std::function<void(const RunResult&)>& on_run,
                              const std::function<void(const SweepProgress&)>& on_progress = {});

}  // namespace leasesim::runner
