#include "runner/sweep.h"

#include <cctype>
#include <functional>

namespace leasesim::runner {
namespace {

// Quotes a shell word only when it needs it.
std::string ShellWord(const std::string& word) {
  bool plain = !word.empty();
  for (char c : word) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '-' || c == '_')) plain = false;
  }
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

}  // namespace

std::string ReplayCommand(const std::string& file, const std::string& scenario, std::uint64_t seed) {
  return "leasesim replay " + ShellWord(file) + " --scenario " + ShellWord(scenario) + " --seed " +
         std::to_string(seed);
}

reports::RunSummary Summarize(const RunResult& result, const std::string& file) {
  reports::RunSummary summary;
  summary.scenario = result.scenario;
  summary.seed = result.seed;
  summary.ok = result.ok();
  summary.trace_hash = result.trace_hash;
  for (const checker::Violation& violation : result.verdict.violations) {
    bool is_expected = true;
    for (const checker::Violation& u : result.unexpected) {
      if (u.kind == violation.kind && u.message == violation.message) is_expected = false;
    }
    summary.violations.push_back(reports::ViolationSummary{violation.kind, violation.message,
                                                           violation.at_ns, is_expected});
  }
  summary.notes = result.verdict.notes;
  summary.figures = result.figures;
  summary.replay_command = ReplayCommand(file, result.scenario, result.seed);
  return summary;
}

reports::SweepSummary RunSweep(const ScenarioFile& file, const std::vector<const Scenario*>& scenarios,
                               const std::vector<std::uint64_t>& seeds, const std::string& seeds_text,
                               const std::function<void(const RunResult&)>& on_run) {
  reports::SweepSummary sweep;
  sweep.scenario_file = file.path;
  sweep.seeds = seeds_text;
  for (const Scenario* scenario : scenarios) {
    for (std::uint64_t seed : seeds) {
      const RunResult result = RunScenario(*scenario, seed);
      if (on_run) on_run(result);
      sweep.runs.push_back(Summarize(result, file.path));
    }
  }
  return sweep;
}

}  // namespace leasesim::runner
