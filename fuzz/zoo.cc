#include "fuzz/zoo.h"

#include <algorithm>
#include <set>
#include <string_view>

#include <absl/strings/str_format.h>

#include "base/units.h"
#include "core/protocol.h"
#include "fuzz/search.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"

namespace leasesim::fuzz {
std::string JoinKinds(const std::vector<std::string>& kinds) {
  std::string out;
  for (const std::string& kind : kinds) out += (out.empty() ? "" : ",") + kind;
  return out;
}

std::variant<std::vector<ZooEntry>, base::InputError> LoadZoo(const std::string& path) {
  auto parsed = runner::LoadScenarioFile(path);
  if (auto* error = std::get_if<base::InputError>(&parsed)) return std::move(*error);
  std::vector<ZooEntry> entries;
  const std::vector<runner::Scenario>& scenarios = std::get<runner::ScenarioFile>(parsed).scenarios;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const runner::Scenario& scenario = scenarios[i];
    const core::ProtocolRegistry::Lookup hunted = core::Protocols().Find(scenario.protocol);
    if (!hunted.protocol || hunted.protocol->mistake.empty()) {
      return base::InputError{"scenarios[" + std::to_string(i) + "].protocol",
                              "a zoo scenario must name the known-broken protocol it hunts (scenario \"" +
                                  scenario.name + "\" runs \"" + scenario.protocol + "\", which has no known mistake)"};
    }
    entries.push_back(ZooEntry{scenario.protocol, scenario});
  }
  return entries;
}

ZooRow HuntVariant(const ZooEntry& entry, int seeds, bool shrink, const HuntWatcher& watch) {
  ZooRow row;
  row.variant = entry.variant;
  for (int seed = 1; seed <= seeds; ++seed) {
    ++row.seeds_run;
    const runner::RunResult result = runner::RunScenario(entry.scenario, static_cast<std::uint64_t>(seed));
    if (watch) watch({.runs = row.seeds_run, .runs_max = seeds});
    if (result.ok()) continue;
    row.caught = true;
    row.first_seed = static_cast<std::uint64_t>(seed);
    std::set<std::string> kinds;
    for (const checker::Violation& violation : result.unexpected) kinds.insert(violation.kind);
    row.kinds.assign(kinds.begin(), kinds.end());
    break;
  }
  if (row.caught && shrink) {
    if (watch) watch({.runs = row.seeds_run, .runs_max = seeds, .shrinking = true});
    row.shrink = Shrink(entry.scenario, row.first_seed, FailsWithAnyOf(row.kinds));
    row.shrunk = true;
  }
  return row;
}

ZooRow CheckCorrect(const std::vector<ZooEntry>& entries, int seeds, const HuntWatcher& watch) {
  ZooRow row;
  row.variant = kCorrectRow;
  row.correct = true;
  for (const ZooEntry& entry : entries) {
    runner::Scenario scenario = entry.scenario;
    scenario.protocol = core::Protocols().default_name();
    for (int seed = 1; seed <= seeds; ++seed) {
      ++row.runs;
      const runner::RunResult result = runner::RunScenario(scenario, static_cast<std::uint64_t>(seed));
      if (watch) watch({.runs = row.runs, .runs_max = seeds * static_cast<int>(entries.size())});
      if (result.ok()) continue;
      ++row.false_alarms;
      if (row.false_alarm.empty()) {
        row.false_alarm = scenario.name + " seed " + std::to_string(seed) + ": " + result.unexpected.front().kind;
      }
    }
  }
  row.seeds_run = seeds;
  return row;
}

namespace {

// The search's progress as a hunt's.
std::function<void(const SearchProgress&)> WatchSearch(const HuntWatcher& watch) {
  if (!watch) return {};
  return [watch](const SearchProgress& progress) { watch({.runs = progress.cases, .runs_max = progress.runs_max}); };
}

}  // namespace

ZooRow HuntGeneric(const std::string& variant, int runs_max, std::uint64_t seed, bool shrink,
                   const HuntWatcher& watch) {
  SearchOptions options;
  options.runs = runs_max;
  options.seed = seed;
  options.protocol = variant;
  options.on_progress = WatchSearch(watch);
  options.fails = [](const runner::Scenario&, std::uint64_t, const runner::RunResult& result) { return !result.ok(); };
  const SearchOutcome found = Search(options);
  ZooRow row;
  row.variant = variant;
  row.seeds_run = found.runs;
  if (!found.failed) return row;
  row.caught = true;
  row.first_seed = static_cast<std::uint64_t>(found.failing_run);
  std::set<std::string> kinds;
  for (const checker::Violation& violation : found.result.unexpected) kinds.insert(violation.kind);
  row.kinds.assign(kinds.begin(), kinds.end());
  if (shrink) {
    if (watch) watch({.runs = found.runs, .runs_max = runs_max, .shrinking = true});
    row.shrink = Shrink(found.failing, found.run_seed, FailsWithAnyOf(row.kinds));
    row.shrunk = true;
  }
  return row;
}

ZooRow CheckCorrectGeneric(int runs, std::uint64_t seed, const HuntWatcher& watch) {
  ZooRow row;
  row.variant = kCorrectRow;
  row.correct = true;
  SearchOptions options;
  options.runs = runs;
  options.seed = seed;
  options.protocol = core::Protocols().default_name();
  options.on_progress = WatchSearch(watch);
  options.fails = [](const runner::Scenario&, std::uint64_t, const runner::RunResult& result) { return !result.ok(); };
  const SearchOutcome found = Search(options);
  row.runs = found.runs;
  row.seeds_run = found.runs;
  if (found.failed) {
    row.false_alarms = 1;
    row.false_alarm = "case " + std::to_string(found.failing_run) + " (seed " + std::to_string(found.run_seed) +
                      "): " + found.result.unexpected.front().kind;
  }
  return row;
}

std::string FormatGenericTable(const std::vector<ZooRow>& generic, const std::vector<ZooRow>& aimed) {
  auto line = [](std::string_view variant, std::string_view caught, std::string_view cases, std::string_view seeds,
                 std::string_view kinds) {
    return absl::StrFormat("%-38s %-7s %-14s %-13s %s\n", variant, caught, cases, seeds, kinds);
  };
  std::string out = line("variant", "caught", "generic cases", "aimed seeds", "violation kinds (generic)");
  for (const ZooRow& row : generic) {
    std::string aimed_seeds = "-";
    for (const ZooRow& other : aimed) {
      if (other.variant == row.variant) aimed_seeds = other.caught ? std::to_string(other.first_seed) : ">" + std::to_string(other.seeds_run);
    }
    if (row.correct) {
      out += line("correct (false alarms)", row.false_alarms == 0 ? "none" : "FALSE", std::to_string(row.runs), "-",
                  row.false_alarms == 0 ? "-" : row.false_alarm);
      continue;
    }
    const std::string cases = row.caught ? std::to_string(row.first_seed) : ">" + std::to_string(row.seeds_run);
    out += line(row.variant, row.caught ? "yes" : "NO", cases, aimed_seeds, row.caught ? JoinKinds(row.kinds) : "-");
  }
  return out;
}

std::string FormatZooTable(const std::vector<ZooRow>& rows) {
  auto line = [](std::string_view variant, std::string_view caught, std::string_view seeds, std::string_view kinds,
                 std::string_view size) {
    return absl::StrFormat("%-38s %-7s %-6s %-44s %s\n", variant, caught, seeds, kinds, size);
  };
  std::string out = line("variant", "caught", "seeds", "violation kinds", "shrunk (faults, nodes, sim s)");
  for (const ZooRow& row : rows) {
    if (row.correct) {
      out += line("correct (false alarms)", row.false_alarms == 0 ? "none" : "FALSE", std::to_string(row.runs),
                  row.false_alarms == 0 ? "-" : row.false_alarm, "-");
      continue;
    }
    std::string size = "-";
    if (row.shrunk) {
      size = std::to_string(row.shrink.scenario.faults.size()) + ", " + std::to_string(row.shrink.scenario.nodes) +
             ", " + std::to_string(row.shrink.scenario.duration / base::kNanosPerSecond);
    }
    out += line(row.variant, row.caught ? "yes" : "NO",
                row.caught ? std::to_string(row.first_seed) : ">" + std::to_string(row.seeds_run),
                row.caught ? JoinKinds(row.kinds) : "-", size);
  }
  return out;
}

}  // namespace leasesim::fuzz
