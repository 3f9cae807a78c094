// leasesim fuzz: the generic, coverage-guided search; a failure is shrunk and
// written to DIR/counterexample.json with the command that replays it.

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <random>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/progress_line.h"
#include "cli/values.h"
#include "fuzz/baseline.h"
#include "fuzz/fuzz.h"
#include "fuzz/scenario_json.h"
#include "reports/summary_json.h"
#include "runner/nemesis.h"
#include "runner/scenario_parser.h"
#include "base/program_name.h"
#include "cli/protocol_option.h"
#include "core/probes.h"
#include "core/protocol.h"

namespace leasesim::cli {
namespace {

// Reads the options; an exit code when they are bad.
std::optional<int> ParseFuzzOptions(const CommandLine& args, fuzz::FuzzOptions& options, std::ostream& err) {
  if (auto runs = args.value("--runs")) {
    if (!ParseNumber(*runs, options.runs) || options.runs < 1 || options.runs > 10'000'000) {
      err << "leasesim fuzz: --runs must be an integer from 1 to 10000000\n";
      return kExitBadInput;
    }
  }
  if (auto budget = args.value("--time-budget")) {
    options.time_budget_ms = ParseDurationMs(*budget);
    if (options.time_budget_ms < 0) {
      err << "leasesim fuzz: --time-budget must be a duration like 90s, 10m or 2h (got \"" << *budget << "\")\n";
      return kExitBadInput;
    }
    if (!args.value("--runs")) options.runs = 10'000'000;  // the budget decides
  }
  if (auto seed = args.value("--seed")) {
    if (!ParseNumber(*seed, options.seed)) {
      err << "leasesim fuzz: --seed must be a non-negative integer\n";
      return kExitBadInput;
    }
  } else {
    // A fresh session: the seed is printed, so it can be reproduced.
    std::random_device device;  // determinism-ok: picks the session seed only; printed below
    options.seed = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }
  const ProtocolChoice protocol = ReadProtocol(args);
  if (!protocol.error.empty()) {
    err << "leasesim fuzz: " << protocol.error << "\n";
    return kExitBadInput;
  }
  options.protocol = protocol.name.value_or(core::Protocols().default_name());
  if (auto property = args.value("--property")) {
    if (auto problem = fuzz::CheckPropertyName(*property)) {
      err << "leasesim fuzz: " << *problem << "\n";
      return kExitBadInput;
    }
    options.property = *property;
  }
  options.shrink = !args.has("--no-shrink");
  options.steer = !args.has("--no-steer");
  return std::nullopt;
}

// Prints the fault script a nemesis scenario draws for one seed, as an
// ordinary scenario file.
int ExpandCommand(const CommandLine& args, std::ostream& out, std::ostream& err) {
  const std::string file = *args.value("--expand");
  std::uint64_t seed = 0;
  if (!args.value("--scenario") || !args.value("--seed") || !ParseNumber(*args.value("--seed"), seed)) {
    err << "leasesim fuzz: --expand FILE needs --scenario NAME and --seed N (a non-negative integer)\n";
    return kExitBadInput;
  }
  auto loaded = runner::LoadScenarioFile(file);
  if (std::holds_alternative<runner::ParseError>(loaded)) {
    err << "leasesim: " << std::get<runner::ParseError>(loaded).message << "\n";
    return kExitBadInput;
  }
  for (const runner::Scenario& scenario : std::get<runner::ScenarioFile>(loaded).scenarios) {
    if (scenario.name != *args.value("--scenario")) continue;
    out << fuzz::ScenarioFileText({runner::ExpandNemesis(scenario, seed)});
    return kExitOk;
  }
  err << "leasesim fuzz: " << file << " has no scenario named \"" << *args.value("--scenario") << "\"\n";
  return kExitBadInput;
}

// What the session reached: probes never hit are where to look next.
void PrintCoverage(const fuzz::FuzzOutcome& outcome, std::ostream& out) {
  const fuzz::SearchOutcome& search = outcome.search;
  out << "coverage: " << search.corpus << " case(s) kept for reaching something new, " << search.mutated
      << " mutated case(s); probes never reached: ";
  // A protocol of a user's own need not report core's probes at all.
  if (search.probes_never.size() == core::kProbeNames.size()) {
    out << "all (the protocol reports none: core/probes.h)\n";
    return;
  }
  if (search.probes_never.empty()) out << "none";
  for (std::size_t i = 0; i < search.probes_never.size(); ++i) out << (i == 0 ? "" : ", ") << search.probes_never[i];
  out << "\n";
}

// --baseline-protocol: every case on both protocols; the cases where the new
// one is worse are written to DIR/worse-K.json with both replay commands.
int ReportAgainstBaseline(const fuzz::FuzzOptions& options, const std::string& baseline, const std::string& out_dir,
                          std::ostream& out, std::ostream& err) {
  const fuzz::BaselineOutcome outcome = fuzz::RunAgainstBaseline(options, baseline, out);
  out << "differential: " << outcome.cases << " case(s) on " << options.protocol << " (new) and " << baseline
      << " (baseline): " << outcome.worse << " worse, " << outcome.better << " better, " << outcome.both_failing
      << " failing on both\n";
  std::error_code error;
  if (!outcome.worse_cases.empty()) std::filesystem::create_directories(out_dir, error);
  for (const fuzz::WorseCase& worse : outcome.worse_cases) {
    const std::string path = (std::filesystem::path(out_dir) / (worse.scenario.name + ".json")).string();
    if (const std::string problem = reports::WriteFileAtomically(path, fuzz::ScenarioFileText({worse.scenario}));
        !problem.empty()) {
      err << "leasesim fuzz: " << problem << "\n";
      return kExitBadInput;
    }
    std::string base_kinds;
    for (const std::string& kind : worse.baseline_kinds) base_kinds += (base_kinds.empty() ? "" : ", ") + kind;
    // One line per new kind: how many, and the first one's explanation.
    std::map<std::string, int> counts;
    for (const checker::Violation& violation : worse.new_violations) counts[violation.kind] += 1;
    out << "WORSE case " << worse.index << (worse.shrunk ? " (shrunk)" : "") << ": the baseline shows "
        << (base_kinds.empty() ? std::string("no violation") : base_kinds + " only") << "; the new protocol:\n";
    for (const checker::Violation& violation : worse.new_violations) {
      const auto count = counts.find(violation.kind);
      if (count == counts.end()) continue;
      out << "  " << violation.kind << (count->second > 1 ? " (x" + std::to_string(count->second) + ")" : "") << ": "
          << violation.message << "\n";
      counts.erase(count);
    }
    out << "  new:      " << base::ProgramName() << " run " << path << " --seed " << worse.seed << "\n"
        << "  baseline: " << base::ProgramName() << " run " << path << " --seed " << worse.seed << " --protocol " << baseline << "\n";
  }
  if (outcome.worse > static_cast<int>(outcome.worse_cases.size())) {
    out << "  ... " << outcome.worse - static_cast<int>(outcome.worse_cases.size()) << " more worse case(s) not kept\n";
  }
  return outcome.worse > 0 ? kExitViolation : kExitOk;
}

int ReportCounterexample(const fuzz::FuzzOptions& options, const fuzz::FuzzOutcome& outcome, const std::string& again,
                         const std::string& out_dir, std::ostream& out, std::ostream& err) {
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  const std::string path = (std::filesystem::path(out_dir) / "counterexample.json").string();
  runner::Scenario scenario = outcome.counterexample;
  scenario.description = "Shrunk by `" + again + "`" + (outcome.violations.empty() ? std::string() : ": " + outcome.violations.front().kind);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << fuzz::ScenarioFileText({scenario});
  file.close();
  if (!file) {
    err << "leasesim fuzz: cannot write " << path << "\n";
    return kExitBadInput;
  }
  out << "FAIL property " << options.property << " at case " << outcome.cases << ": counterexample with "
      << scenario.faults.size() << " fault(s), " << scenario.nodes << " node(s), "
      << scenario.duration / sim::kNanosPerSecond << " s simulated\n";
  for (const checker::Violation& violation : outcome.violations) {
    out << "  " << violation.kind << ": " << violation.message << "\n";
  }
  out << "  wrote " << path << "\n";
  out << "  replay: " << base::ProgramName() << " run " << path << " --seed " << outcome.run_seed << "\n";
  out << "  same session: " << again << "\n";
  return kExitViolation;
}

}  // namespace

int FuzzCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  CommandLine args("fuzz", "The generic, coverage-guided search: generated worlds and fault scripts, steered "
                           "toward probes and near misses not yet reached; a failure is shrunk to "
                           "DIR/counterexample.json with the command that reproduces it.");
  args.Option("--runs", "N", "Generated cases to run (1..10000000; default 100)")
      .Option("--time-budget", "DURATION", "Run cases until this much wall time is spent (90s, 10m, 2h)")
      .Option("-s,--seed", "S", "The session's seed (default: a fresh one, printed)")
      .Option("--property", "P", "The property to falsify (default safety)")
      .Option("-o,--out", "DIR", "Where the counterexample goes (default out/fuzz)")
      .Switch("--no-shrink", "Report a failure as found, unshrunk")
      .Switch("--no-steer", "Draw cases without coverage guidance")
      .Switch("-q,--quiet", "No progress line on a terminal")
      .Option("--expand", "FILE", "Print the fault script a nemesis scenario of FILE draws for --scenario and --seed")
      .Option("--scenario", "NAME", "With --expand: the scenario")
      .Option("--baseline-protocol,--baseline-variant", "NAME",
              "Run every case on NAME too; keep the cases where the protocol under test is worse (DIR/worse-K.json)")
      .Footer("Exit: 0 no counterexample (with --baseline-protocol: no case worse than the baseline), 1 a "
              "counterexample (written to DIR), 2 bad input or usage.");
  DeclareProtocol(args, "The protocol under test (default: the registry's default)");
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  if (args.value("--expand")) return ExpandCommand(args, out, err);
  fuzz::FuzzOptions options;
  if (const std::optional<int> bad = ParseFuzzOptions(args, options, err)) return *bad;
  const std::string out_dir = args.value("--out").value_or("out/fuzz");
  const std::optional<std::string> baseline = args.value("--baseline-protocol");
  if (const std::string problem = baseline ? fuzz::CheckBaseline(options, *baseline) : ""; !problem.empty()) {
    err << "leasesim fuzz: " << problem << "\n";
    return kExitBadInput;
  }
  out << "leasesim fuzz: " << (options.time_budget_ms > 0 ? "for " + *args.value("--time-budget") : std::to_string(options.runs) + " case(s)")
      << ", property " << options.property << ", protocol " << options.protocol << ", seed " << options.seed
      << (options.steer ? "" : ", unsteered") << (baseline ? ", against baseline " + *baseline : "") << "\n";
  out.flush();
  ProgressLine progress(err, ProgressLine::Wanted(err, args.has("--quiet")));
  options.on_progress = [&](const fuzz::SearchProgress& now) {
    progress.Update(now);
    if (now.finished) progress.Clear();
  };
  if (baseline) return ReportAgainstBaseline(options, *baseline, out_dir, out, err);
  const fuzz::FuzzOutcome outcome = fuzz::RunFuzz(options, out);
  // The session replays by its case count, whatever stopped it.
  const std::string again = base::ProgramName() + " fuzz --runs " + std::to_string(outcome.cases) + " --seed " +
                            std::to_string(options.seed) + " --protocol " + options.protocol + " --property " +
                            options.property + (options.steer ? "" : " --no-steer");
  PrintCoverage(outcome, out);
  if (!outcome.failed) {
    out << "ok: " << outcome.cases << " case(s) passed; same session: " << again << "\n";
    return kExitOk;
  }
  return ReportCounterexample(options, outcome, again, out_dir, out, err);
}

}  // namespace leasesim::cli
