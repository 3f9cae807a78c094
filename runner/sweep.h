#pragma once
// A sweep: every selected scenario of a file for every seed, in a fixed
// order (scenario order, then seed order), turned into report summaries.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reports/run_summary.h"
#include "runner/run.h"
#include "runner/scenario.h"

namespace leasesim::runner {

// The command that reproduces one run exactly.
std::string ReplayCommand(const std::string& file, const std::string& scenario, std::uint64_t seed);

reports::RunSummary Summarize(const RunResult& result, const std::string& file);

// Runs scenarios x seeds; on_run is called after each run (progress, printing).
reports::SweepSummary RunSweep(const ScenarioFile& file, const std::vector<const Scenario*>& scenarios,
                               const std::vector<std::uint64_t>& seeds, const std::string& seeds_text,
                               const std::function<void(const RunResult&)>& on_run);

}  // namespace leasesim::runner
