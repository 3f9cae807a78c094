// leasesim run FILE: every selected scenario for every seed (or seeds drawn
// until a time budget is spent), on every core, with the reports written
// under --out and a replay command for every failing run.

#include <fnmatch.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <cstdio>

#include <absl/strings/str_format.h>

#include "base/input_error.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/progress_line.h"
#include "cli/values.h"
#include "reports/report_files.h"
#include "reports/report_stream.h"
#include "reports/summary_json.h"
#include "runner/scenario_parser.h"
#include "runner/seeds.h"
#include "runner/sweep.h"
#include "runner/sweep_budget.h"
#include "cli/protocol_option.h"

namespace leasesim::cli {
namespace {

constexpr const char* kDefaultSeeds = "1-100";
constexpr int kFailuresPrintedMax = 20;

// What the command line asks for: each option bound where it is declared
// (Declare), the texts then checked together (ReadRequest) into the one
// bad-input error naming the flag.
struct Request {
  std::string file_path;
  std::optional<std::string> seeds_given;   // --seeds
  std::optional<std::string> seed_given;    // --seed
  std::optional<std::string> shard_given;   // --shard
  std::optional<std::string> budget_given;  // --time-budget
  std::vector<std::string> scenario_patterns;
  std::optional<std::string> protocol_given;  // --protocol
  std::string seeds_text;
  std::vector<std::uint64_t> seeds;  // empty with a budget and no --seeds: 1 upward
  std::string out_dir = "out";
  std::int64_t budget_ms = 0;
  bool quiet = false;
  runner::SweepOptions options;
};

void Declare(CommandLine& args, Request& request) {
  args.Positional("FILE", "The scenario file (docs/SCENARIOS.md)", /*required=*/false)
      .Option("-s,--seeds", "SEEDS", "Seeds: 7, 1-2000 or 1-10,42 (default 1-100)", request.seeds_given)
      .Option("--seed", "N", "One seed", request.seed_given)
      .Repeatable("--scenario", "NAME", "Run only the scenarios so named; shell globs (leader-*) match several",
                  request.scenario_patterns)
      .Option("-o,--out", "DIR", "Where summary.json, junit.xml, report.html and timelines.json go (default out)",
              request.out_dir)
      .Jobs(request.options.jobs)
      .Option("--shard", "K/N", "Run part K of N of the sweep (environment: LEASESIM_SHARD)", request.shard_given)
      .Option("--time-budget", "DURATION",
              "Draw whole seeds from --seeds (default 1 upward) until this much wall time is spent "
              "(90s, 10m, 2h); the summary names the seeds that ran",
              request.budget_given)
      .Switch("--fail-fast", "Stop at the first failing run", request.options.fail_fast)
      .Switch("--check-determinism", "Run every seed twice and compare the traces", request.options.check_determinism)
      .Switch("-q,--quiet", "No line per scenario, no progress line", request.quiet)
      .Footer("Exit: 0 every run passed and the suite's requirements are met, 1 a violation, 2 bad input or "
              "usage (nothing is written).");
  DeclareProtocol(args, "Run every scenario with this protocol instead of its own, e.g. for leasesim compare",
                  request.protocol_given);
}

std::optional<base::InputError> ReadShard(Request& request) {
  // CI engines hand each job its index in the environment (docs/ci/).
  std::optional<std::string> shard = request.shard_given;
  const char* from_environment = std::getenv("LEASESIM_SHARD");
  const bool shard_from_environment = !shard && from_environment != nullptr && *from_environment != '\0';
  if (shard_from_environment) shard = from_environment;
  if (!shard) return std::nullopt;
  auto parsed = reports::ParseShard(*shard);
  if (const auto* error = std::get_if<base::InputError>(&parsed)) {
    return base::InputError{shard_from_environment ? "LEASESIM_SHARD" : "--shard", error->rule};
  }
  request.options.shard = std::get<reports::Shard>(parsed);
  return std::nullopt;
}

std::optional<base::InputError> ReadSeedsAndBudget(Request& request) {
  if (request.seeds_given && request.seed_given) return base::InputError{"--seed", "give --seeds or --seed, not both"};
  if (const auto& budget = request.budget_given) {
    request.budget_ms = ParseDurationMs(*budget);
    if (request.budget_ms < 0) {
      return base::InputError{"--time-budget", std::string(kDurationRule) + " (got \"" + *budget + "\")"};
    }
    if (!request.options.shard.whole()) {
      return base::InputError{"--time-budget",
                              "cannot be sharded: which seeds a budget runs is known only afterwards, so shards "
                              "could not be merged (give each job --seeds instead)"};
    }
  }
  const std::optional<std::string> given = request.seed_given ? request.seed_given : request.seeds_given;
  if (!given && request.budget_ms > 0) return std::nullopt;  // 1 upward
  request.seeds_text = given.value_or(kDefaultSeeds);
  auto seeds = runner::ParseSeeds(request.seeds_text);
  if (const auto* error = std::get_if<base::InputError>(&seeds)) {
    return base::InputError{request.seed_given ? "--seed" : "--seeds", error->rule};
  }
  request.seeds = std::get<std::vector<std::uint64_t>>(std::move(seeds));
  return std::nullopt;
}

std::optional<base::InputError> ReadRequest(const CommandLine& args, Request& request) {
  if (args.positional().size() != 1) {
    return base::InputError{"FILE", "needs exactly one scenario file (leasesim run --help lists the options)"};
  }
  request.file_path = args.positional()[0];
  if (auto problem = ReadShard(request)) return problem;
  if (auto problem = ReadSeedsAndBudget(request)) return problem;
  const ProtocolChoice protocol = ReadProtocol(request.protocol_given);
  if (protocol.error) return protocol.error;
  request.options.protocol = protocol.name.value_or("");
  return std::nullopt;
}

// The scenarios the --scenario patterns name, in file order (all without
// any); the bad-input error names a pattern that matches none.
std::variant<std::vector<const runner::Scenario*>, base::InputError> Select(const runner::ScenarioFile& file,
                                                                             const std::vector<std::string>& patterns) {
  for (const std::string& pattern : patterns) {
    bool matched = false;
    for (const runner::Scenario& scenario : file.scenarios) {
      matched = matched || fnmatch(pattern.c_str(), scenario.name.c_str(), 0) == 0;
    }
    if (matched) continue;
    const bool glob = pattern.find_first_of("*?[") != std::string::npos;
    return base::InputError{"--scenario",
                            file.path + " has no scenario " + (glob ? "matching" : "named") + " \"" + pattern + "\""};
  }
  std::vector<const runner::Scenario*> selected;
  for (const runner::Scenario& scenario : file.scenarios) {
    bool chosen = patterns.empty();
    for (const std::string& pattern : patterns) chosen = chosen || fnmatch(pattern.c_str(), scenario.name.c_str(), 0) == 0;
    if (chosen) selected.push_back(&scenario);
  }
  return selected;
}

// Runs the sweep (or draws seeds until the budget is spent), printing the
// first failures as they come in sweep order.
runner::SweepOutcome Sweep(const runner::ScenarioFile& file, const std::vector<const runner::Scenario*>& selected,
                           const Request& request, std::ostream& out, std::ostream& err) {
  // The progress line goes to a terminal only: never into logs or pipes.
  const bool show_progress = ProgressLine::Wanted(err, request.quiet);
  ProgressLine progress_line(err, show_progress);
  int failures_printed = 0;
  auto on_run = [&](const runner::RunResult& result) {
    if (result.ok() || failures_printed >= kFailuresPrintedMax) return;
    ++failures_printed;
    if (show_progress) progress_line.Clear();
    PrintFailure(result, request.file_path, request.options.protocol, out);
  };
  auto on_progress = [&](const runner::SweepProgress& progress) {
    if (show_progress) progress_line.Update(progress);
  };
  runner::SweepOutcome outcome;
  if (request.budget_ms > 0) {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point end = Clock::now() + std::chrono::milliseconds(request.budget_ms);  // determinism-ok: decides how many seeds, not what a run does
    std::size_t drawn = 0;  // from request.seeds, or counting from 1
    auto next_seeds = [&](std::size_t count) {
      std::vector<std::uint64_t> seeds;
      const std::size_t total = request.seeds.empty() ? runner::kSeedsMax : request.seeds.size();
      for (; seeds.size() < count && drawn < total; ++drawn) {
        seeds.push_back(request.seeds.empty() ? drawn + 1 : request.seeds[drawn]);
      }
      return seeds;
    };
    outcome = runner::RunBudgetedSweep(file, selected, next_seeds, [&] { return Clock::now() >= end; },  // determinism-ok: as above
                                       request.options, on_run, on_progress);
  } else {
    outcome = runner::RunSweep(file, selected, request.seeds, request.seeds_text, request.options, on_run, on_progress);
  }
  if (show_progress) progress_line.Clear();
  return outcome;
}

void PrintHeader(const Request& request, std::size_t scenarios, std::ostream& out) {
  out << "leasesim run " << request.file_path << ": " << scenarios << " scenario(s) x ";
  if (request.budget_ms > 0) {
    out << "seeds from " << (request.seeds.empty() ? "1 upward" : request.seeds_text) << " until "
        << request.budget_ms / 1000 << " s are spent";
  } else {
    out << request.seeds.size() << " seed(s) (" << request.seeds_text << ")";
  }
  if (!request.options.shard.whole()) out << ", shard " << reports::FormatShard(request.options.shard);
  if (!request.options.protocol.empty()) out << ", protocol " << request.options.protocol;
  if (request.options.check_determinism) out << ", each run twice";
  if (request.options.fail_fast) out << ", stopping at the first failure";
  out << "\n";
}

// "600 runs in 1.23 s: 487.8 runs/s (--jobs 2)": the sweep's own speed
// (the runs and their reports; reading the file and writing the final files
// are not counted).
void PrintThroughput(std::size_t runs, double seconds, int jobs, std::ostream& out) {
  out << absl::StrFormat("%d runs in %.2f s: %.1f runs/s (--jobs %d)\n", runs, seconds,
                         seconds > 0 ? static_cast<double>(runs) / seconds : 0.0, jobs);
}

}  // namespace

int RunCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  CommandLine args("run", "Run every scenario of FILE for every seed on every core; write summary.json, "
                          "junit.xml, report.html and timelines.json; print every failing run's replay command.");
  Request request;
  Declare(args, request);
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  if (const auto problem = ReadRequest(args, request)) {
    err << "leasesim run: " << problem->ToString() << "\n";
    return kExitBadInput;
  }
  auto loaded = runner::LoadScenarioFile(request.file_path);
  if (const auto* error = std::get_if<base::InputError>(&loaded)) {
    err << "leasesim: " << error->In(request.file_path) << "\n";
    return kExitBadInput;
  }
  const runner::ScenarioFile& file = std::get<runner::ScenarioFile>(loaded);
  auto selected = Select(file, request.scenario_patterns);
  if (const auto* error = std::get_if<base::InputError>(&selected)) {
    err << "leasesim run: " << error->ToString() << "\n";
    return kExitBadInput;
  }
  if (const std::string problem = reports::PrepareOutputDirectory(request.out_dir); !problem.empty()) {
    err << "leasesim run: " << problem << "\n";
    return kExitBadInput;
  }
  const auto& scenarios = std::get<std::vector<const runner::Scenario*>>(selected);
  PrintHeader(request, scenarios.size(), out);
  // A sweep over given seeds writes its reports run by run, so its memory
  // does not grow with the seeds; a budgeted one orders its batches' runs
  // afterwards and writes them at the end.
  const bool streamed = request.budget_ms == 0;
  std::vector<std::string> names;
  for (const runner::Scenario* scenario : scenarios) names.push_back(scenario->name);
  reports::ReportStream stream(request.out_dir, file.path, names);
  if (streamed) request.options.on_summary = [&stream](const reports::RunSummary& run) { stream.Add(run); };
  const auto started = std::chrono::steady_clock::now();  // determinism-ok: the throughput line only
  const runner::SweepOutcome outcome = Sweep(file, scenarios, request, out, err);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();  // determinism-ok
  const reports::SweepSummary& sweep = outcome.summary;
  const reports::SweepTotals totals = streamed ? stream.totals() : reports::SweepTotals::Of(sweep);
  if (!request.quiet) PrintScenarioLines(totals, out);
  const std::string problem = streamed ? stream.Finish(sweep, outcome.timelines)
                                       : reports::WriteReports(request.out_dir, sweep, outcome.timelines);
  if (!problem.empty()) {
    err << "leasesim run: " << problem << "\n";
    return kExitBadInput;
  }
  if (outcome.nondeterministic > 0) {
    out << "NONDETERMINISM: " << outcome.nondeterministic
        << " run(s) gave different traces for the same scenario and seed (see the nondeterminism violations above)\n";
  }
  if (request.budget_ms > 0) out << "time budget: ran seeds " << sweep.seeds << "\n";
  if (!sweep.stopped.empty()) out << "stopped early (--fail-fast): " << sweep.stopped << "\n";
  PrintSuiteVerdict(sweep, out);
  const int failed = totals.failed();
  out << totals.runs() << " runs: " << (static_cast<int>(totals.runs()) - failed) << " ok, " << failed
      << " failed; wrote " << (std::filesystem::path(request.out_dir) / reports::kSummaryFile).string() << ", "
      << reports::kJunitFile << ", " << reports::kReportFile << "\n";
  PrintThroughput(totals.runs(), seconds, request.options.jobs, out);
  return failed == 0 && !sweep.suite.failed() ? kExitOk : kExitViolation;
}

}  // namespace leasesim::cli
