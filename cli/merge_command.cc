// leasesim merge DIR... --out DIR: combines the outputs of `leasesim run
// --shard K/N` (one directory per shard, in any order) into the summary and
// reports an unsharded run would have written, byte for byte.

#include <cassert>
#include <filesystem>
#include <iostream>

#include "base/input_error.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "reports/report_files.h"
#include "reports/summary_json.h"
#include "reports/timeline_json.h"
#include "runner/seeds.h"
#include "runner/suite_judge.h"

namespace leasesim::cli {
namespace {

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
  if (const auto* error = std::get_if<base::InputError>(&summary)) return error->In(summary_path);
  shard.summary = std::move(std::get<reports::SweepSummary>(summary));
  const std::string timelines_path = (std::filesystem::path(directory) / reports::kTimelinesFile).string();
  if (!reports::ReadWholeFile(timelines_path, text)) return timelines_path + ": cannot read";
  auto timelines = reports::ParseTimelinesJson(text);
  if (const auto* error = std::get_if<base::InputError>(&timelines)) return error->In(timelines_path);
  shard.timelines = std::move(std::get<std::vector<reports::Timeline>>(timelines));
  return "";
}

// A recorded version or digest, or what its absence means.
std::string Named(const std::string& value) { return value.empty() ? "(not recorded)" : value; }

// The shards, each given once, in shard order (by_index[k] is shard k+1/N);
// an error message when they are not the N parts of one sweep.
std::string OrderShards(const std::vector<ShardOutput>& shards, std::vector<const ShardOutput*>& by_index) {
  const reports::SweepSummary& first = shards[0].summary;
  const int count = first.shard.count;
  by_index.assign(static_cast<std::size_t>(count), nullptr);
  for (const ShardOutput& shard : shards) {
    const reports::SweepSummary& s = shard.summary;
    const std::string where = shard.directory + ": ";
    if (!s.stopped.empty()) {
      return where + "is not a whole shard (" + s.stopped + "); merge joins complete shards only";
    }
    if (s.leasesim_version != first.leasesim_version) {
      return where + "was written by leasesim " + Named(s.leasesim_version) + ", but " + shards[0].directory +
             " by leasesim " + Named(first.leasesim_version) + "; run every shard with the same build";
    }
    if (s.file_digest != first.file_digest) {
      return where + "ran " + s.scenario_file + " with file_digest " + Named(s.file_digest) + ", but " +
             shards[0].directory + " ran " + first.scenario_file + " with file_digest " + Named(first.file_digest) +
             ": the shards ran different scenario files";
    }
    if (s.scenario_file != first.scenario_file || s.seeds != first.seeds || s.scenarios != first.scenarios) {
      return where + "is a sweep of " + s.scenario_file + " seeds " + s.seeds + ", not of " + first.scenario_file +
             " seeds " + first.seeds + " with the same scenarios as " + shards[0].directory;
    }
    if (s.protocol != first.protocol || s.scenario_protocols != first.scenario_protocols) {
      return where + "ran protocol \"" + s.protocol + "\", but " + shards[0].directory + " ran protocol \"" +
             first.protocol + "\" (or their scenarios ran other protocols): not shards of one sweep";
    }
    if (s.scenario_digests != first.scenario_digests) {
      return where + "records other scenario digests (scenario_digest) than " + shards[0].directory +
             ": a scenario's content differs";
    }
    if (s.suite.fault_points != first.suite.fault_points || s.suite.probes != first.suite.probes) {
      return where + "records other suite requirements (require_fault_points, require_probes) than " +
             shards[0].directory;
    }
    if (s.shard.count != count) {
      return where + "is shard " + reports::FormatShard(s.shard) + " but " + shards[0].directory + " is shard " +
             reports::FormatShard(first.shard);
    }
    const std::size_t slot = static_cast<std::size_t>(s.shard.index - 1);
    if (by_index[slot] != nullptr) {
      return where + "shard " + reports::FormatShard(s.shard) + " is also in " + by_index[slot]->directory;
    }
    by_index[slot] = &shard;
  }
  for (int k = 0; k < count; ++k) {
    if (by_index[static_cast<std::size_t>(k)] == nullptr) {
      return "shard " + std::to_string(k + 1) + "/" + std::to_string(count) + " is missing";
    }
  }
  return "";
}

// Rebuilds the unsharded sweep: run i of the sweep is run i / N of shard
// i % N + 1, and each shard kept the timelines of its own first failing
// runs, in order. An error message when a shard does not hold what it must.
std::string Interleave(const std::vector<const ShardOutput*>& by_index, const std::vector<std::uint64_t>& seed_list,
                       reports::SweepSummary& merged, std::vector<reports::Timeline>& timelines) {
  const reports::SweepSummary& first = by_index[0]->summary;
  const std::size_t count = by_index.size();
  const std::size_t total = first.scenarios.size() * seed_list.size();
  merged.leasesim_version = first.leasesim_version;
  merged.file_digest = first.file_digest;
  merged.scenario_file = first.scenario_file;
  merged.seeds = first.seeds;
  merged.scenarios = first.scenarios;
  merged.suite.fault_points = first.suite.fault_points;
  merged.suite.probes = first.suite.probes;
  merged.protocol = first.protocol;
  merged.scenario_protocols = first.scenario_protocols;
  merged.scenario_digests = first.scenario_digests;
  std::vector<std::size_t> next_timeline(count, 0);
  for (std::size_t i = 0; i < total; ++i) {
    const std::size_t k = i % count;
    const std::size_t position = i / count;
    const ShardOutput& shard = *by_index[k];
    const std::string& scenario = first.scenarios[i / seed_list.size()];
    const std::uint64_t seed = seed_list[i % seed_list.size()];
    if (position >= shard.summary.runs.size() || shard.summary.runs[position].scenario != scenario ||
        shard.summary.runs[position].seed != seed) {
      return shard.directory + " does not hold run " + scenario + " seed " + std::to_string(seed) + " where shard " +
             std::to_string(k + 1) + "/" + std::to_string(count) +
             " of this sweep has it (incomplete or edited output?)";
    }
    const reports::RunSummary& run = shard.summary.runs[position];
    merged.runs.push_back(run);
    std::size_t& cursor = next_timeline[k];
    if (!run.ok && cursor < shard.timelines.size() && shard.timelines[cursor].scenario == run.scenario &&
        shard.timelines[cursor].seed == run.seed) {
      if (timelines.size() < reports::kTimelinesMax) timelines.push_back(shard.timelines[cursor]);
      ++cursor;
    }
  }
  for (std::size_t k = 0; k < count; ++k) {
    const ShardOutput& shard = *by_index[k];
    const std::size_t expected = total / count + (k < total % count ? 1 : 0);
    if (shard.summary.runs.size() != expected) {
      return shard.directory + " holds " + std::to_string(shard.summary.runs.size()) + " runs; shard " +
             std::to_string(k + 1) + "/" + std::to_string(count) + " of this sweep has " + std::to_string(expected);
    }
  }
  return "";
}

// Reads every shard directory; an error message when one cannot be read or
// is the output directory itself.
std::string ReadShards(const std::vector<std::string>& directories, const std::string& out_dir,
                       std::vector<ShardOutput>& shards) {
  shards.resize(directories.size());
  for (std::size_t i = 0; i < shards.size(); ++i) {
    std::error_code same;
    if (std::filesystem::equivalent(directories[i], out_dir, same)) {
      return base::InputError{"--out", out_dir + " is one of the shard directories; write the merge elsewhere"}.ToString();
    }
    if (const std::string problem = ReadShard(directories[i], shards[i]); !problem.empty()) return problem;
  }
  return "";
}

void PrintMerged(const reports::SweepSummary& merged, int count, const std::string& out_dir, bool quiet,
                 std::ostream& out) {
  out << "leasesim merge: " << count << " shard(s) of " << merged.scenario_file << " seeds " << merged.seeds << "\n";
  if (!quiet) PrintScenarioLines(reports::SweepTotals::Of(merged), out);
  int failures_printed = 0;
  for (const reports::RunSummary& run : merged.runs) {
    if (run.ok || failures_printed++ >= 20) continue;
    out << "FAIL " << run.scenario << " seed " << run.seed << "\n  replay: " << run.replay_command << "\n";
  }
  PrintSuiteVerdict(merged, out);
  const int failed = merged.failed();
  out << merged.runs.size() << " runs: " << (static_cast<int>(merged.runs.size()) - failed) << " ok, " << failed
      << " failed; wrote " << (std::filesystem::path(out_dir) / reports::kSummaryFile).string() << ", "
      << reports::kJunitFile << ", " << reports::kReportFile << "\n";
}

// The merge (and the number of shards it joined), or the first problem
// with its input or output.
std::string Merge(const std::vector<std::string>& directories, const std::string& out_dir,
                  reports::SweepSummary& merged, int& count) {
  std::vector<ShardOutput> shards;
  if (std::string problem = ReadShards(directories, out_dir, shards); !problem.empty()) return problem;
  std::vector<const ShardOutput*> by_index;
  if (std::string problem = OrderShards(shards, by_index); !problem.empty()) return problem;
  count = static_cast<int>(by_index.size());
  const std::string& seeds_text = shards[0].summary.seeds;
  auto seeds = runner::ParseSeeds(seeds_text);
  if (const auto* error = std::get_if<base::InputError>(&seeds)) return "seeds \"" + seeds_text + "\": " + error->rule;
  std::vector<reports::Timeline> timelines;
  if (std::string problem = Interleave(by_index, std::get<std::vector<std::uint64_t>>(seeds), merged, timelines);
      !problem.empty()) {
    return problem;
  }
  // Now the suite is whole: its requirements are judged over every run.
  runner::JudgeSuite(merged);
  if (std::string problem = reports::PrepareOutputDirectory(out_dir); !problem.empty()) return problem;
  return reports::WriteReports(out_dir, merged, timelines);
}

}  // namespace

int MergeCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  CommandLine args("merge", "Combine the outputs of leasesim run --shard K/N (one directory per shard, in any "
                            "order) into the files an unsharded run writes, byte for byte, and judge the suite-level "
                            "requirements over all runs.");
  std::optional<std::string> out_dir;  // each option bound where it is declared
  bool quiet = false;
  args.Positional("DIR", "A shard's output directory", /*required=*/false, /*many=*/true)
      .Option("-o,--out", "DIR", "Where the merged files go", out_dir)
      .Required()
      .Switch("-q,--quiet", "No line per scenario", quiet)
      .Footer("Exit: 0 every run passed and the suite's requirements are met, 1 otherwise, 2 the inputs are not "
              "the shards of one sweep (nothing is written).");
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  assert(out_dir.has_value());  // required where declared: Parse refused its absence
  if (args.positional().empty()) {
    err << "leasesim merge: " << base::InputError{"DIR", "needs at least one shard's output directory"}.ToString()
        << "\n(leasesim merge --help lists the options)\n";
    return kExitBadInput;
  }
  reports::SweepSummary merged;
  int count = 0;
  if (const std::string problem = Merge(args.positional(), *out_dir, merged, count); !problem.empty()) {
    err << "leasesim merge: " << problem << "\n";
    return kExitBadInput;
  }
  PrintMerged(merged, count, *out_dir, quiet, out);
  return merged.failed() == 0 && !merged.suite.failed() ? kExitOk : kExitViolation;
}

}  // namespace leasesim::cli
