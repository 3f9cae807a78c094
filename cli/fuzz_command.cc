// leasesim fuzz: the generic, coverage-guided search; a failure is shrunk and
// written to DIR/counterexample.json with the command that replays it.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <random>

#include <absl/strings/str_join.h>

#include "base/input_error.h"
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

// What the command line asks for, each option bound where it is declared.
struct FuzzRequest {
  std::optional<int> runs;
  std::optional<std::string> time_budget;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> property;
  std::string out_dir = "out/fuzz";
  bool no_shrink = false;
  bool no_steer = false;
  bool quiet = false;
  std::optional<std::string> expand;    // FILE
  std::optional<std::string> scenario;  // with --expand
  std::optional<std::string> baseline;  // --baseline-protocol
  std::optional<std::string> protocol;  // --protocol
};

void Declare(CommandLine& args, FuzzRequest& r) {
  args.Integer("--runs", "N", "Generated cases to run (1..10000000; default 100)", r.runs, 1, 10'000'000)
      .Option("--time-budget", "DURATION", "Run cases until this much wall time is spent (90s, 10m, 2h)",
              r.time_budget)
      .Integer("-s,--seed", "S", "The session's seed (default: a fresh one, printed)", r.seed, 0,
               std::numeric_limits<std::int64_t>::max())
      .Option("--property", "P", "The property to falsify (default safety)", r.property)
      .Option("-o,--out", "DIR", "Where the counterexample goes (default out/fuzz)", r.out_dir)
      .Switch("--no-shrink", "Report a failure as found, unshrunk", r.no_shrink)
      .Switch("--no-steer", "Draw cases without coverage guidance", r.no_steer)
      .Switch("-q,--quiet", "No progress line on a terminal", r.quiet)
      .Option("--expand", "FILE", "Print the fault script a nemesis scenario of FILE draws for --scenario and --seed",
              r.expand)
      .Option("--scenario", "NAME", "With --expand: the scenario", r.scenario)
      .Option("--baseline-protocol,--baseline-variant", "NAME",
              "Run every case on NAME too; keep the cases where the protocol under test is worse (DIR/worse-K.json)",
              r.baseline)
      .Footer("Exit: 0 no counterexample (with --baseline-protocol: no case worse than the baseline), 1 a "
              "counterexample (written to DIR), 2 bad input or usage.");
  DeclareProtocol(args, "The protocol under test (default: the registry's default)", r.protocol);
}

// The request into the session's options; an exit code when they are bad.
std::optional<int> ReadFuzzOptions(const FuzzRequest& r, fuzz::FuzzOptions& options, std::ostream& err) {
  if (r.runs) options.runs = *r.runs;
  if (r.time_budget) {
    options.time_budget_ms = ParseDurationMs(*r.time_budget);
    if (options.time_budget_ms < 0) {
      err << "leasesim fuzz: "
          << base::InputError{"--time-budget", std::string(kDurationRule) + " (got \"" + *r.time_budget + "\")"}.ToString()
          << "\n";
      return kExitBadInput;
    }
    if (!r.runs) options.runs = 10'000'000;  // the budget decides
  }
  if (r.seed) {
    options.seed = *r.seed;
  } else {
    // A fresh session: the seed is printed, so it can be reproduced.
    std::random_device device;  // determinism-ok: picks the session seed only; printed below
    options.seed = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }
  const ProtocolChoice protocol = ReadProtocol(r.protocol);
  if (protocol.error) {
    err << "leasesim fuzz: " << protocol.error->ToString() << "\n";
    return kExitBadInput;
  }
  options.protocol = protocol.name.value_or(core::Protocols().default_name());
  if (r.property) {
    if (const auto problem = fuzz::CheckPropertyName(*r.property)) {
      err << "leasesim fuzz: " << problem->ToString() << "\n";
      return kExitBadInput;
    }
    options.property = *r.property;
  }
  options.shrink = !r.no_shrink;
  options.steer = !r.no_steer;
  return std::nullopt;
}

// Prints the fault script a nemesis scenario draws for one seed, as an
// ordinary scenario file.
int ExpandCommand(const FuzzRequest& r, std::ostream& out, std::ostream& err) {
  const std::string& file = *r.expand;
  if (!r.scenario || !r.seed) {
    err << "leasesim fuzz: "
        << base::InputError{"--expand", "FILE needs --scenario NAME and --seed N (a non-negative integer)"}.ToString()
        << "\n";
    return kExitBadInput;
  }
  const std::uint64_t seed = *r.seed;
  auto loaded = runner::LoadScenarioFile(file);
  if (const auto* error = std::get_if<base::InputError>(&loaded)) {
    err << "leasesim: " << error->In(file) << "\n";
    return kExitBadInput;
  }
  for (const runner::Scenario& scenario : std::get<runner::ScenarioFile>(loaded).scenarios) {
    if (scenario.name != *r.scenario) continue;
    out << fuzz::ScenarioFileText({runner::ExpandNemesis(scenario, seed)});
    return kExitOk;
  }
  err << "leasesim fuzz: "
      << base::InputError{"--scenario", file + " has no scenario named \"" + *r.scenario + "\""}.ToString() << "\n";
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
    const std::string base_kinds = absl::StrJoin(worse.baseline_kinds, ", ");
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
  FuzzRequest r;
  Declare(args, r);
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  if (r.expand) return ExpandCommand(r, out, err);
  fuzz::FuzzOptions options;
  if (const std::optional<int> bad = ReadFuzzOptions(r, options, err)) return *bad;
  const std::string& out_dir = r.out_dir;
  const std::optional<std::string>& baseline = r.baseline;
  if (const std::string problem = baseline ? fuzz::CheckBaseline(options, *baseline) : ""; !problem.empty()) {
    err << "leasesim fuzz: " << problem << "\n";
    return kExitBadInput;
  }
  out << "leasesim fuzz: " << (options.time_budget_ms > 0 ? "for " + *r.time_budget : std::to_string(options.runs) + " case(s)")
      << ", property " << options.property << ", protocol " << options.protocol << ", seed " << options.seed
      << (options.steer ? "" : ", unsteered") << (baseline ? ", against baseline " + *baseline : "") << "\n";
  out.flush();
  ProgressLine progress(err, ProgressLine::Wanted(err, r.quiet));
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
