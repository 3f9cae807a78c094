#pragma once
// The leasesim subcommands. Each returns the process exit code:
// 0 all good, 1 a violation was found, 2 bad input or usage.

#include <iosfwd>
#include <string>
#include <vector>

#include "reports/run_summary.h"
#include "reports/sweep_totals.h"
#include "runner/run.h"

namespace leasesim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitViolation = 1;
inline constexpr int kExitBadInput = 2;

int RunCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int ReplayCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// leasesim merge DIR... --out DIR: combines the outputs of `run --shard K/N`.
int MergeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// leasesim fuzz: RapidCheck with shrinking (cli/fuzz_command.cc).
int FuzzCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// leasesim explore: every placement of up to K faults from a menu (cli/explore_command.cc).
int ExploreCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// leasesim check: judges a recorded history (cli/check_command.cc).
int CheckCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// leasesim timing: derive, verify and sweep a lease timing (cli/timing_command.cc).
int TimingCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// leasesim compare BASE_DIR NEW_DIR: two outputs side by side (cli/compare_command.cc).
int CompareCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// leasesim store-fuzz: the replicated store's own search (cli/store_fuzz_command.cc).
int StoreFuzzCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// leasesim zoo: the bug zoo table (cli/zoo_command.cc).
int ZooCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
// leasesim designs: the reference designs side by side (cli/designs_command.cc).
int DesignsCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// One line per scenario (unless quiet), as `run` and `merge` print them.
void PrintScenarioLines(const reports::SweepTotals& sweep, std::ostream& out);

// A failing run: its unexpected violations and the command that replays it.
// `protocol`: the --protocol the sweep ran with (empty: none).
void PrintFailure(const runner::RunResult& result, const std::string& file_path, const std::string& protocol,
                  std::ostream& out);

// The suite-level requirements' verdict as `run` and `merge` print it: a
// FAIL line per unmet requirement, or in a shard that merge judges them.
void PrintSuiteVerdict(const reports::SweepSummary& sweep, std::ostream& out);

}  // namespace leasesim::cli
