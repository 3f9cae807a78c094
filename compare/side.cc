#include "compare/side.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "reports/report_files.h"
#include "reports/summary_json.h"

namespace leasesim::compare {
namespace {

namespace fs = std::filesystem;

bool IsLive(const reports::SweepSummary& sweep) { return sweep.scenario_file == "live" && sweep.seeds == "live"; }

std::variant<reports::SweepSummary, std::string> ReadSummary(const std::string& path) {
  std::string text;
  if (!reports::ReadWholeFile(path, text)) return path + ": cannot be read";
  auto parsed = reports::ParseSummaryJson(text);
  if (const auto* error = std::get_if<base::InputError>(&parsed)) return error->In(path);
  return std::get<reports::SweepSummary>(std::move(parsed));
}

// Live runs of one side, pooled as the runs of one group "live", numbered
// in directory order (a live run has no seed; the number only names it).
void AddLiveRuns(const reports::SweepSummary& sweep, Side& side) {
  for (reports::RunSummary run : sweep.runs) {
    run.scenario = "live";
    run.seed = side.sweep.runs.size() + 1;
    side.sweep.runs.push_back(std::move(run));
  }
}

// A directory without summary.json: the live runs in its subdirectories.
std::variant<Side, std::string> LoadLiveRuns(const std::string& directory) {
  Side side{.directory = directory, .live = true};
  side.sweep.scenario_file = "live";
  side.sweep.seeds = "live";
  side.sweep.scenarios = {"live"};
  std::vector<fs::path> children;
  std::error_code error;
  std::size_t entries = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
    if (++entries > 100 * kLiveRunsMax || children.size() >= kLiveRunsMax) {
      return directory + ": more than " + std::to_string(kLiveRunsMax) + " live runs (or entries) to pool";
    }
    if (entry.is_directory() && fs::exists(entry.path() / reports::kSummaryFile)) children.push_back(entry.path());
  }
  std::sort(children.begin(), children.end());
  if (children.empty()) {
    return directory + ": holds no " + reports::kSummaryFile +
           " (the output of leasesim run --out DIR, leasesim merge, or leasesim live --out DIR; or subdirectories "
           "that each hold a live run's)";
  }
  for (const fs::path& child : children) {
    const std::string path = (child / reports::kSummaryFile).string();
    auto sweep = ReadSummary(path);
    if (std::holds_alternative<std::string>(sweep)) return std::get<std::string>(sweep);
    if (!IsLive(std::get<reports::SweepSummary>(sweep))) {
      return path + ": is a sweep of " + std::get<reports::SweepSummary>(sweep).scenario_file +
             "; only live runs are pooled from subdirectories (combine shards with leasesim merge)";
    }
    side.sources.push_back(path);
    AddLiveRuns(std::get<reports::SweepSummary>(sweep), side);
  }
  return side;
}

constexpr const char* kAllowChange = " (give --allow-scenario-change to compare them anyway)";

// The file check: same content (by digest, or by path when a side has none).
std::string FileDifference(const reports::SweepSummary& base, const reports::SweepSummary& next,
                           std::vector<std::string>& notes) {
  if (!base.file_digest.empty() && !next.file_digest.empty()) {
    if (base.file_digest != next.file_digest) {
      return "the scenario files differ: base ran " + base.scenario_file + " (" + base.file_digest + "), new ran " +
             next.scenario_file + " (" + next.file_digest + ")";
    }
    if (base.scenario_file != next.scenario_file) {
      notes.push_back("the scenario files have different paths (" + base.scenario_file + ", " + next.scenario_file +
                      ") and the same content (" + base.file_digest + ")");
    }
    return "";
  }
  if (base.scenario_file != next.scenario_file) {
    return "the scenario files differ: base ran " + base.scenario_file + ", new ran " + next.scenario_file +
           " (and a side has no file_digest to tell whether their content is the same)";
  }
  notes.push_back("a side's summary.json has no digests (an older leasesim): the scenario file is matched by its "
                  "path only");
  return "";
}

std::string Joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// The scenarios both sides hold, and those whose content differs.
std::string ScenarioDifference(const Side& base, const Side& next, bool allow, Pairing& pairing) {
  const std::set<std::string> in_next(next.sweep.scenarios.begin(), next.sweep.scenarios.end());
  const std::set<std::string> in_base(base.sweep.scenarios.begin(), base.sweep.scenarios.end());
  std::vector<std::string> only_base;
  std::vector<std::string> only_next;
  std::vector<std::string> changed;
  for (const std::string& name : base.sweep.scenarios) {
    if (!in_next.contains(name)) {
      only_base.push_back(name);
      continue;
    }
    const auto b = base.sweep.scenario_digests.find(name);
    const auto n = next.sweep.scenario_digests.find(name);
    if (b != base.sweep.scenario_digests.end() && n != next.sweep.scenario_digests.end() && b->second != n->second) {
      changed.push_back(name);
    }
    pairing.scenarios.push_back(name);
  }
  for (const std::string& name : next.sweep.scenarios) {
    if (!in_base.contains(name)) only_next.push_back(name);
  }
  std::string problem;
  if (!only_base.empty()) problem = "scenarios only the base ran: " + Joined(only_base);
  if (!only_next.empty()) problem += (problem.empty() ? "" : "; ") + std::string("scenarios only the new side ran: ") + Joined(only_next);
  if (!changed.empty()) {
    problem += (problem.empty() ? "" : "; ") + std::string("scenarios whose content differs (scenario_digest): ") + Joined(changed);
  }
  if (problem.empty()) return "";
  if (!allow) return problem;
  const bool lacking = !only_base.empty() || !only_next.empty();
  pairing.notes.push_back(problem + " (compared anyway: --allow-scenario-change" +
                          (lacking ? "; scenarios one side lacks are left out)" : ")"));
  return "";
}

// Every compared scenario must hold the same seeds on both sides, each once.
std::string SeedDifference(const Side& base, const Side& next, const std::vector<std::string>& scenarios) {
  auto seeds_of = [](const Side& side, std::map<std::string, std::set<std::uint64_t>>& seeds) -> std::string {
    for (const reports::RunSummary& run : side.sweep.runs) {
      if (!seeds[run.scenario].insert(run.seed).second) {
        return side.directory + " holds " + run.scenario + " seed " + std::to_string(run.seed) + " twice";
      }
    }
    return "";
  };
  std::map<std::string, std::set<std::uint64_t>> base_seeds;
  std::map<std::string, std::set<std::uint64_t>> next_seeds;
  if (std::string problem = seeds_of(base, base_seeds); !problem.empty()) return problem;
  if (std::string problem = seeds_of(next, next_seeds); !problem.empty()) return problem;
  for (const std::string& name : scenarios) {
    if (base_seeds[name] == next_seeds[name]) continue;
    return "the seeds differ in scenario " + name + ": base holds " + std::to_string(base_seeds[name].size()) +
           " run(s), new " + std::to_string(next_seeds[name].size()) + " (incomplete or edited output?)";
  }
  return "";
}

}  // namespace

std::variant<Side, std::string> LoadSide(const std::string& directory) {
  std::error_code error;
  if (!fs::is_directory(directory, error)) return directory + ": not a directory";
  const std::string path = (fs::path(directory) / reports::kSummaryFile).string();
  if (!fs::exists(path, error)) return LoadLiveRuns(directory);
  auto sweep = ReadSummary(path);
  if (std::holds_alternative<std::string>(sweep)) return std::get<std::string>(sweep);
  Side side{.directory = directory, .sources = {path}};
  side.live = IsLive(std::get<reports::SweepSummary>(sweep));
  if (!side.live) {
    side.sweep = std::get<reports::SweepSummary>(std::move(sweep));
    return side;
  }
  side.sweep.scenario_file = "live";
  side.sweep.seeds = "live";
  side.sweep.scenarios = {"live"};
  AddLiveRuns(std::get<reports::SweepSummary>(sweep), side);
  return side;
}

Pairing PairSides(const Side& base, const Side& next, bool allow_scenario_change) {
  Pairing pairing;
  if (base.live != next.live) {
    pairing.refusal = base::InputError{
        "scenario_file", std::string("the base (") + base.directory + ") is " + (base.live ? "live runs" : "a sweep") +
                             " and the new side (" + next.directory + ") " + (next.live ? "live runs" : "a sweep") +
                             ": compare like with like"};
    return pairing;
  }
  if (base.live) {
    pairing.scenarios = {"live"};
    return pairing;
  }
  if (base.sweep.seeds != next.sweep.seeds) {
    pairing.refusal =
        base::InputError{"seeds", "the seeds differ: base ran " + base.sweep.seeds + ", new ran " + next.sweep.seeds};
    return pairing;
  }
  if (base.sweep.shard != next.sweep.shard) {
    pairing.refusal = base::InputError{"shard", "the shards differ: base is shard " +
                                                    reports::FormatShard(base.sweep.shard) + ", new is " +
                                                    reports::FormatShard(next.sweep.shard) +
                                                    " (merge shards with leasesim merge first)"};
    return pairing;
  }
  if (std::string problem = FileDifference(base.sweep, next.sweep, pairing.notes); !problem.empty()) {
    const bool digests = !base.sweep.file_digest.empty() && !next.sweep.file_digest.empty();
    if (!allow_scenario_change) {
      pairing.refusal = base::InputError{digests ? "file_digest" : "scenario_file", problem + kAllowChange};
      return pairing;
    }
    pairing.notes.push_back(problem + " (compared anyway: --allow-scenario-change)");
  }
  if (std::string problem = ScenarioDifference(base, next, allow_scenario_change, pairing); !problem.empty()) {
    pairing.refusal = base::InputError{"scenarios", problem + kAllowChange};
    return pairing;
  }
  if (pairing.scenarios.empty()) {
    pairing.refusal = base::InputError{"scenarios", "the two sides have no scenario in common"};
    return pairing;
  }
  if (std::string problem = SeedDifference(base, next, pairing.scenarios); !problem.empty()) {
    pairing.refusal = base::InputError{"runs", std::move(problem)};
  }
  return pairing;
}

}  // namespace leasesim::compare
