#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/cpu_quota.h"
#include "reports/report_files.h"
#include "reports/report_stream.h"
#include "reports/summary_json.h"
#include "runner/scenario_parser.h"
#include "runner/seeds.h"
#include "runner/sweep.h"

namespace leasesim::cli {
namespace {

constexpr const char* kDefaultSeeds = "1-100";
constexpr int kFailuresPrintedMax = 20;
constexpr int kJobsMax = 256;
constexpr const char* kUsage =
    "usage: leasesim run FILE [--seeds A-B | --seed N] [--scenario NAME] [--out DIR] [--jobs N] [--shard K/N]\n"
    "                    [--check-determinism] [--quiet]\n";

// "[ 1234/6000]  412 seeds/s  0 failed  ETA 12 s" on one rewritten line.
class ProgressLine {
 public:
  explicit ProgressLine(std::ostream& err) : err_(err), start_(Clock::now()) {}

  void Update(const runner::SweepProgress& progress) {
    const auto now = Clock::now();  // determinism-ok: progress display only
    if (progress.done < progress.total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double rate = seconds > 0 ? static_cast<double>(progress.done) / seconds : 0;
    char line[160];
    const std::size_t left = progress.total - progress.done;
    std::snprintf(line, sizeof line, "\r[%zu/%zu] %.1f seeds/s, %zu failed, ETA %s\x1b[K", progress.done,
                  progress.total, rate, progress.failed,
                  rate > 0 ? (std::to_string(static_cast<long long>(static_cast<double>(left) / rate + 0.5)) + " s").c_str()
                           : "?");
    err_ << line << std::flush;
    shown_ = true;
  }

  void Clear() {
    if (shown_) err_ << "\r\x1b[K" << std::flush;
    shown_ = false;
  }

 private:
  using Clock = std::chrono::steady_clock;  // determinism-ok: progress display only
  std::ostream& err_;
  Clock::time_point start_;
  Clock::time_point last_{};
  bool shown_ = false;
};

// "600 runs in 1.23 s: 487.8 runs/s (--jobs 2)": the sweep's own speed
// (runs only; reading the file and writing the reports are not counted).
void PrintThroughput(std::size_t runs, double seconds, int jobs, std::ostream& out) {
  char line[160];
  std::snprintf(line, sizeof line, "%zu runs in %.2f s: %.1f runs/s (--jobs %d)\n", runs, seconds,
                seconds > 0 ? static_cast<double>(runs) / seconds : 0.0, jobs);
  out << line;
}

}  // namespace

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

// The file argument, --seed(s) exclusivity, --jobs and --shard; an exit
// code when they are bad.
std::optional<int> ParseSweepOptions(const Args& args, runner::SweepOptions& options, std::ostream& err) {
  if (args.positional().size() != 1) {
    err << kUsage;
    return kExitBadInput;
  }
  if (args.value("--seeds") && args.value("--seed")) {
    err << "leasesim run: give --seeds or --seed, not both\n";
    return kExitBadInput;
  }
  // Every CPU the process may use by default (its affinity and its
  // container's quota): the results do not depend on the number of jobs.
  options.jobs = DefaultJobs(kJobsMax);
  if (const auto jobs = args.value("--jobs")) {
    int value = 0;
    const auto [end, error] = std::from_chars(jobs->data(), jobs->data() + jobs->size(), value);
    if (error != std::errc() || end != jobs->data() + jobs->size() || value < 1 || value > kJobsMax) {
      err << "leasesim run: --jobs must be an integer from 1 to " << kJobsMax << " (got \"" << *jobs << "\")\n";
      return kExitBadInput;
    }
    options.jobs = value;
  }
  if (const auto shard = args.value("--shard")) {
    auto parsed = reports::ParseShard(*shard);
    if (std::holds_alternative<std::string>(parsed)) {
      err << "leasesim run: --shard: " << std::get<std::string>(parsed) << "\n";
      return kExitBadInput;
    }
    options.shard = std::get<reports::Shard>(parsed);
  }
  return std::nullopt;
}

// A failing run: its violations and the command that replays it.
void PrintFailure(const runner::RunResult& result, const std::string& file_path, std::ostream& out) {
  out << "FAIL " << result.scenario << " seed " << result.seed << " (trace " << sim::FormatHash(result.trace_hash)
      << ")\n";
  for (const checker::Violation& violation : result.unexpected) {
    out << "  " << violation.kind << ": " << violation.message << "\n";
  }
  out << "  replay: " << runner::ReplayCommand(file_path, result.scenario, result.seed) << "\n";
  out.flush();
}

// The scenarios --scenario names (all without it).
std::vector<const runner::Scenario*> Select(const runner::ScenarioFile& file, const std::optional<std::string>& only) {
  std::vector<const runner::Scenario*> selected;
  for (const runner::Scenario& scenario : file.scenarios) {
    if (!only || scenario.name == *only) selected.push_back(&scenario);
  }
  return selected;
}

// The suite-wide requirements of the file (require_fault_points,
// require_probes), printed when unmet; true when all are met.
bool SuiteRequirementsMet(const runner::ScenarioFile& file, const reports::SweepTotals& sweep,
                          const std::string& file_path, std::ostream& out) {
  // A fault aimed at a point that is never reached must not give a false
  // green. A figure positive in some run is one whose largest value is.
  const std::map<std::string, std::int64_t> maxima = sweep.FigureMaxima();
  const std::vector<const std::map<std::string, std::int64_t>*> all_figures{&maxima};
  const std::vector<std::string> never_fired = runner::FaultPointsNeverFired(file.require_fault_points, all_figures);
  for (const std::string& point : never_fired) {
    out << "FAIL fault point " << point << " never fired in any run, although " << file_path
        << " requires it (require_fault_points)\n";
  }
  const std::vector<std::string> never_reached = runner::ProbesNeverReached(file.require_probes, all_figures);
  for (const std::string& probe : never_reached) {
    out << "FAIL probe " << probe << " was reached in no run, although " << file_path
        << " requires it (require_probes): the suite never exercised that path\n";
  }
  return never_fired.empty() && never_reached.empty();
}

int RunCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(argv, {"--seeds", "--seed", "--out", "--scenario", "--jobs", "--shard"},
                  {"--quiet", "--check-determinism"});
  if (!args.ok()) {
    err << "leasesim run: " << args.error() << "\n";
    return kExitBadInput;
  }
  runner::SweepOptions options;
  if (const std::optional<int> bad = ParseSweepOptions(args, options, err)) return *bad;
  options.check_determinism = args.has("--check-determinism");
  const std::string file_path = args.positional()[0];
  const std::string seeds_text = args.value("--seed").value_or(args.value("--seeds").value_or(kDefaultSeeds));
  auto seeds = runner::ParseSeeds(seeds_text);
  if (std::holds_alternative<std::string>(seeds)) {
    err << "leasesim run: --seeds: " << std::get<std::string>(seeds) << "\n";
    return kExitBadInput;
  }
  auto loaded = runner::LoadScenarioFile(file_path);
  if (std::holds_alternative<runner::ParseError>(loaded)) {
    err << "leasesim: " << std::get<runner::ParseError>(loaded).message << "\n";
    return kExitBadInput;
  }
  const runner::ScenarioFile& file = std::get<runner::ScenarioFile>(loaded);
  const std::vector<const runner::Scenario*> selected = Select(file, args.value("--scenario"));
  if (selected.empty()) {
    err << "leasesim run: " << file_path << " has no scenario named \"" << args.value("--scenario").value_or("") << "\"\n";
    return kExitBadInput;
  }
  const std::string out_dir = args.value("--out").value_or("out");
  if (const std::string problem = reports::PrepareOutputDirectory(out_dir); !problem.empty()) {
    err << "leasesim run: " << problem << "\n";
    return kExitBadInput;
  }

  const auto& seed_list = std::get<std::vector<std::uint64_t>>(seeds);
  const bool quiet = args.has("--quiet");
  out << "leasesim run " << file_path << ": " << selected.size() << " scenario(s) x " << seed_list.size()
      << " seed(s) (" << seeds_text << ")";
  if (!options.shard.whole()) out << ", shard " << reports::FormatShard(options.shard);
  if (options.check_determinism) out << ", each run twice";
  out << "\n";
  // The progress line goes to a terminal only: never into logs or pipes.
  const bool show_progress = !quiet && &err == &std::cerr && isatty(STDERR_FILENO) == 1;
  ProgressLine progress_line(err);
  // The reports are written run by run: memory does not grow with the seeds.
  reports::SweepSummary header;
  header.scenario_file = file.path;
  header.seeds = seeds_text;
  header.shard = options.shard;
  for (const runner::Scenario* scenario : selected) header.scenarios.push_back(scenario->name);
  reports::ReportStream stream(out_dir, header);
  options.on_summary = [&stream](const reports::RunSummary& summary) { stream.Add(summary); };
  const auto started = std::chrono::steady_clock::now();  // determinism-ok: the throughput line only
  int failures_printed = 0;
  const runner::SweepOutcome outcome = runner::RunSweep(
      file, selected, seed_list, seeds_text, options,
      [&](const runner::RunResult& result) {
        if (result.ok() || failures_printed >= kFailuresPrintedMax) return;
        ++failures_printed;
        if (show_progress) progress_line.Clear();
        PrintFailure(result, file_path, out);
      },
      [&](const runner::SweepProgress& progress) {
        if (show_progress) progress_line.Update(progress);
      });
  if (show_progress) progress_line.Clear();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const reports::SweepTotals& sweep = stream.totals();

  if (!quiet) PrintScenarioLines(sweep, out);
  if (const std::string problem = stream.Finish(outcome.timelines); !problem.empty()) {
    err << "leasesim run: " << problem << "\n";
    return kExitBadInput;
  }
  if (outcome.nondeterministic > 0) {
    out << "NONDETERMINISM: " << outcome.nondeterministic
        << " run(s) gave different traces for the same scenario and seed (see the nondeterminism violations above)\n";
  }
  const bool suite_ok = SuiteRequirementsMet(file, sweep, file_path, out);
  const int failed = sweep.failed();
  out << sweep.runs() << " runs: " << (static_cast<int>(sweep.runs()) - failed) << " ok, " << failed
      << " failed; wrote " << (std::filesystem::path(out_dir) / reports::kSummaryFile).string() << ", "
      << reports::kJunitFile << ", " << reports::kReportFile << "\n";
  PrintThroughput(sweep.runs(), seconds, options.jobs, out);
  return failed == 0 && suite_ok ? kExitOk : kExitViolation;
}

}  // namespace leasesim::cli
