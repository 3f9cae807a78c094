#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/args.h"
#include "cli/commands.h"
#include "reports/summary_json.h"
#include "runner/scenario_parser.h"
#include "runner/seeds.h"
#include "runner/sweep.h"
#include "sim/trace.h"

namespace leasesim::cli {
namespace {

constexpr const char* kDefaultSeeds = "1-100";
constexpr int kFailuresPrintedMax = 20;

// Refuses to replace a summary.json that leasesim did not write.
std::string CheckOutputDirectory(const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) return "--out " + directory + ": cannot create directory: " + error.message();
  const std::filesystem::path summary = std::filesystem::path(directory) / "summary.json";
  if (std::filesystem::exists(summary)) {
    std::ifstream in(summary);
    try {
      const nlohmann::json json = nlohmann::json::parse(in);
      if (json.value("format", "") == "leasesim-summary") return "";
    } catch (const nlohmann::json::exception&) {
    }
    return "--out " + directory + ": " + summary.string() +
           " exists and was not written by leasesim; refusing to overwrite it";
  }
  return "";
}

}  // namespace

int RunCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(argv, {"--seeds", "--seed", "--out", "--scenario"}, {"--quiet"});
  if (!args.ok()) {
    err << "leasesim run: " << args.error() << "\n";
    return kExitBadInput;
  }
  if (args.positional().size() != 1) {
    err << "usage: leasesim run FILE [--seeds A-B | --seed N] [--scenario NAME] [--out DIR] [--quiet]\n";
    return kExitBadInput;
  }
  if (args.value("--seeds") && args.value("--seed")) {
    err << "leasesim run: give --seeds or --seed, not both\n";
    return kExitBadInput;
  }
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
  std::vector<const runner::Scenario*> selected;
  const std::optional<std::string> only = args.value("--scenario");
  for (const runner::Scenario& scenario : file.scenarios) {
    if (!only || scenario.name == *only) selected.push_back(&scenario);
  }
  if (selected.empty()) {
    err << "leasesim run: " << file_path << " has no scenario named \"" << *only << "\"\n";
    return kExitBadInput;
  }
  const std::string out_dir = args.value("--out").value_or("out");
  if (const std::string problem = CheckOutputDirectory(out_dir); !problem.empty()) {
    err << "leasesim run: " << problem << "\n";
    return kExitBadInput;
  }

  const auto& seed_list = std::get<std::vector<std::uint64_t>>(seeds);
  const bool quiet = args.has("--quiet");
  out << "leasesim run " << file_path << ": " << selected.size() << " scenario(s) x " << seed_list.size()
      << " seed(s) (" << seeds_text << ")\n";
  int failures_printed = 0;
  const reports::SweepSummary sweep = runner::RunSweep(
      file, selected, seed_list, seeds_text, [&](const runner::RunResult& result) {
        if (result.ok() || failures_printed >= kFailuresPrintedMax) return;
        ++failures_printed;
        out << "FAIL " << result.scenario << " seed " << result.seed << " (trace "
            << sim::FormatHash(result.trace_hash) << ")\n";
        for (const checker::Violation& violation : result.unexpected) {
          out << "  " << violation.kind << ": " << violation.message << "\n";
        }
        out << "  replay: " << runner::ReplayCommand(file_path, result.scenario, result.seed) << "\n";
      });

  // Per-scenario lines, in file order.
  for (const runner::Scenario* scenario : selected) {
    int runs = 0;
    int failed = 0;
    std::int64_t leaderless_ms = 0;
    for (const reports::RunSummary& run : sweep.runs) {
      if (run.scenario != scenario->name) continue;
      ++runs;
      failed += run.ok ? 0 : 1;
      auto it = run.figures.find("leaderless_ms");
      if (it != run.figures.end()) leaderless_ms += it->second;
    }
    if (!quiet) {
      out << "  " << (failed == 0 ? "ok  " : "FAIL") << " " << scenario->name << ": " << runs << " runs, "
          << failed << " failed, mean leaderless " << (runs > 0 ? leaderless_ms / runs : 0) << " ms\n";
    }
  }
  const std::string summary_path = (std::filesystem::path(out_dir) / "summary.json").string();
  if (const std::string problem = reports::WriteFileAtomically(summary_path, reports::SummaryJson(sweep));
      !problem.empty()) {
    err << "leasesim run: " << problem << "\n";
    return kExitBadInput;
  }
  const int failed = sweep.failed();
  out << sweep.runs.size() << " runs: " << (static_cast<int>(sweep.runs.size()) - failed) << " ok, " << failed
      << " failed; wrote " << summary_path << "\n";
  return failed == 0 ? kExitOk : kExitViolation;
}

}  // namespace leasesim::cli
