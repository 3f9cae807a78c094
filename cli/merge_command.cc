// leasesim merge DIR... --out DIR: combines the outputs of `leasesim run
// --shard K/N` (one directory per shard, in any order) into the summary and
// reports an unsharded run would have written, byte for byte.

#include <filesystem>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "reports/report_files.h"
#include "reports/summary_json.h"
#include "reports/timeline_json.h"
#include "runner/seeds.h"

namespace leasesim::cli {
namespace {

constexpr const char* kUsage = "usage: leasesim merge DIR... --out DIR [--quiet]\n";

struct ShardOutput {
  std::string directory;
  reports::SweepSummary summary;
  std::vector<reports::Timeline> timelines;
};

// Reads one shard's summary.json and timelines.json; an error message on failure.
std::string ReadShard(const std::string& directory, ShardOutput& shard) {
  shard.directory = directory;
  const std::string summary_path = (std::filesystem::path(directory) / reports::kSummaryFile).string();
  std::string text;
  if (!reports::ReadWholeFile(summary_path, text)) return summary_path + ": cannot read";
  auto summary = reports::ParseSummaryJson(text);
  if (std::holds_alternative<std::string>(summary)) return summary_path + ": " + std::get<std::string>(summary);
  shard.summary = std::move(std::get<reports::SweepSummary>(summary));
  const std::string timelines_path = (std::filesystem::path(directory) / reports::kTimelinesFile).string();
  if (!reports::ReadWholeFile(timelines_path, text)) return timelines_path + ": cannot read";
  auto timelines = reports::ParseTimelinesJson(text);
  if (std::holds_alternative<std::string>(timelines)) {
    return timelines_path + ": " + std::get<std::string>(timelines);
  }
  shard.timelines = std::move(std::get<std::vector<reports::Timeline>>(timelines));
  return "";
}

}  // namespace

int MergeCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(argv, {"--out"}, {"--quiet"});
  if (!args.ok()) {
    err << "leasesim merge: " << args.error() << "\n";
    return kExitBadInput;
  }
  if (args.positional().empty() || !args.value("--out")) {
    err << kUsage;
    return kExitBadInput;
  }
  const std::string out_dir = *args.value("--out");
  std::vector<ShardOutput> shards(args.positional().size());
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const std::string& directory = args.positional()[i];
    std::error_code same;
    if (std::filesystem::equivalent(directory, out_dir, same)) {
      err << "leasesim merge: --out " << out_dir << " is one of the shard directories; write the merge elsewhere\n";
      return kExitBadInput;
    }
    if (const std::string problem = ReadShard(directory, shards[i]); !problem.empty()) {
      err << "leasesim merge: " << problem << "\n";
      return kExitBadInput;
    }
  }

  // The shards must be the N parts of one sweep, each given once.
  const reports::SweepSummary& first = shards[0].summary;
  const int count = first.shard.count;
  std::vector<const ShardOutput*> by_index(static_cast<std::size_t>(count), nullptr);
  for (const ShardOutput& shard : shards) {
    const reports::SweepSummary& s = shard.summary;
    const std::string where = "leasesim merge: " + shard.directory + ": ";
    if (s.scenario_file != first.scenario_file || s.seeds != first.seeds || s.scenarios != first.scenarios) {
      err << where << "is a sweep of " << s.scenario_file << " seeds " << s.seeds << ", not of "
          << first.scenario_file << " seeds " << first.seeds << " with the same scenarios as "
          << shards[0].directory << "\n";
      return kExitBadInput;
    }
    if (s.shard.count != count) {
      err << where << "is shard " << reports::FormatShard(s.shard) << " but " << shards[0].directory << " is shard "
          << reports::FormatShard(first.shard) << "\n";
      return kExitBadInput;
    }
    const std::size_t slot = static_cast<std::size_t>(s.shard.index - 1);
    if (by_index[slot] != nullptr) {
      err << where << "shard " << reports::FormatShard(s.shard) << " is also in " << by_index[slot]->directory << "\n";
      return kExitBadInput;
    }
    by_index[slot] = &shard;
  }
  for (int k = 0; k < count; ++k) {
    if (by_index[static_cast<std::size_t>(k)] == nullptr) {
      err << "leasesim merge: shard " << (k + 1) << "/" << count << " is missing\n";
      return kExitBadInput;
    }
  }

  // The full sweep order: run i of the sweep is run i / N of shard i % N + 1.
  auto seeds = runner::ParseSeeds(first.seeds);
  if (std::holds_alternative<std::string>(seeds)) {
    err << "leasesim merge: seeds \"" << first.seeds << "\": " << std::get<std::string>(seeds) << "\n";
    return kExitBadInput;
  }
  const auto& seed_list = std::get<std::vector<std::uint64_t>>(seeds);
  const std::size_t total = first.scenarios.size() * seed_list.size();
  reports::SweepSummary merged;
  merged.scenario_file = first.scenario_file;
  merged.seeds = first.seeds;
  merged.scenarios = first.scenarios;
  std::vector<reports::Timeline> timelines;
  std::vector<std::size_t> next_timeline(static_cast<std::size_t>(count), 0);
  for (std::size_t i = 0; i < total; ++i) {
    const std::size_t k = i % static_cast<std::size_t>(count);
    const std::size_t position = i / static_cast<std::size_t>(count);
    const ShardOutput& shard = *by_index[k];
    const std::string& scenario = first.scenarios[i / seed_list.size()];
    const std::uint64_t seed = seed_list[i % seed_list.size()];
    if (position >= shard.summary.runs.size() || shard.summary.runs[position].scenario != scenario ||
        shard.summary.runs[position].seed != seed) {
      err << "leasesim merge: " << shard.directory << " does not hold run " << scenario << " seed " << seed
          << " where shard " << (k + 1) << "/" << count << " of this sweep has it (incomplete or edited output?)\n";
      return kExitBadInput;
    }
    const reports::RunSummary& run = shard.summary.runs[position];
    merged.runs.push_back(run);
    // Each shard kept the timelines of its own first failing runs, in order.
    std::size_t& cursor = next_timeline[k];
    if (!run.ok && cursor < shard.timelines.size() && shard.timelines[cursor].scenario == run.scenario &&
        shard.timelines[cursor].seed == run.seed) {
      if (timelines.size() < reports::kTimelinesMax) timelines.push_back(shard.timelines[cursor]);
      ++cursor;
    }
  }
  for (int k = 0; k < count; ++k) {
    const ShardOutput& shard = *by_index[static_cast<std::size_t>(k)];
    const std::size_t expected = total / static_cast<std::size_t>(count) +
                                 (static_cast<std::size_t>(k) < total % static_cast<std::size_t>(count) ? 1 : 0);
    if (shard.summary.runs.size() != expected) {
      err << "leasesim merge: " << shard.directory << " holds " << shard.summary.runs.size() << " runs; shard "
          << (k + 1) << "/" << count << " of this sweep has " << expected << "\n";
      return kExitBadInput;
    }
  }

  if (const std::string problem = reports::PrepareOutputDirectory(out_dir); !problem.empty()) {
    err << "leasesim merge: " << problem << "\n";
    return kExitBadInput;
  }
  if (const std::string problem = reports::WriteReports(out_dir, merged, timelines); !problem.empty()) {
    err << "leasesim merge: " << problem << "\n";
    return kExitBadInput;
  }
  out << "leasesim merge: " << count << " shard(s) of " << merged.scenario_file << " seeds " << merged.seeds << "\n";
  if (!args.has("--quiet")) PrintScenarioLines(merged, out);
  int failures_printed = 0;
  for (const reports::RunSummary& run : merged.runs) {
    if (run.ok || failures_printed++ >= 20) continue;
    out << "FAIL " << run.scenario << " seed " << run.seed << "\n  replay: " << run.replay_command << "\n";
  }
  const int failed = merged.failed();
  out << merged.runs.size() << " runs: " << (static_cast<int>(merged.runs.size()) - failed) << " ok, " << failed
      << " failed; wrote " << (std::filesystem::path(out_dir) / reports::kSummaryFile).string() << ", "
      << reports::kJunitFile << ", " << reports::kReportFile << "\n";
  return failed == 0 ? kExitOk : kExitViolation;
}

}  // namespace leasesim::cli
