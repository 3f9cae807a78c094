// What `leasesim run` and `leasesim merge` print about a sweep: a line per
// scenario, each failing run with its replay command, the suite's verdict.

#include <ostream>

#include "base/hash_text.h"
#include "cli/commands.h"
#include "runner/sweep.h"

namespace leasesim::cli {

void PrintScenarioLines(const reports::SweepTotals& sweep, std::ostream& out) {
  for (std::size_t i = 0; i < sweep.scenarios().size(); ++i) {
    const reports::ScenarioTotals& totals = sweep.by_scenario()[i];
    auto it = totals.figures.find("leaderless_ms");
    const std::int64_t leaderless_ms = it == totals.figures.end() ? 0 : it->second.sum;
    out << "  " << (totals.failed == 0 ? "ok  " : "FAIL") << " " << sweep.scenarios()[i] << ": " << totals.runs
        << " runs, " << totals.failed << " failed, mean leaderless "
        << (totals.runs > 0 ? leaderless_ms / totals.runs : 0) << " ms\n";
  }
}

void PrintFailure(const runner::RunResult& result, const std::string& file_path, const std::string& protocol,
                  std::ostream& out) {
  out << "FAIL " << result.scenario << " seed " << result.seed << " (trace " << base::HashText(result.trace_hash)
      << ")\n";
  for (const checker::Violation& violation : result.unexpected) {
    out << "  " << violation.kind << ": " << violation.message << "\n";
  }
  out << "  replay: " << runner::ReplayCommand(file_path, result.scenario, result.seed, protocol) << "\n";
  out.flush();
}

void PrintSuiteVerdict(const reports::SweepSummary& sweep, std::ostream& out) {
  const reports::SuiteRequirements& suite = sweep.suite;
  if (!suite.any()) return;
  if (!suite.judged && !sweep.stopped.empty()) {
    out << "suite requirements of " << sweep.scenario_file << " not judged: the sweep stopped early\n";
    return;
  }
  if (!suite.judged) {
    out << "suite requirements of " << sweep.scenario_file
        << " (require_fault_points, require_probes) are judged by leasesim merge over all shards\n";
    return;
  }
  // A fault aimed at a point that is never reached must not give a false green.
  for (const std::string& point : suite.fault_points_unmet) {
    out << "FAIL fault point " << point << " never fired in any run, although " << sweep.scenario_file
        << " requires it (require_fault_points)\n";
  }
  for (const std::string& probe : suite.probes_unmet) {
    out << "FAIL probe " << probe << " was reached in no run, although " << sweep.scenario_file
        << " requires it (require_probes): the suite never exercised that path\n";
  }
}

}  // namespace leasesim::cli
