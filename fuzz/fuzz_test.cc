#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include "core/fault_points.h"
#include "core/probes.h"
#include "fuzz/fuzz.h"
#include "fuzz/scenario_json.h"
#include "fuzz/shrink.h"
#include "fuzz/zoo.h"
#include "fuzz/search.h"
#include "zoo/variants.h"
#include "runner/fault_catalogue.h"
#include "runner/nemesis.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"

namespace leasesim::fuzz {
namespace {

runner::ScenarioFile LoadNemesisSuite() {
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  const std::string path = std::string(root == nullptr ? "." : root) + "/scenarios/nemesis.json";
  auto loaded = runner::LoadScenarioFile(path);
  if (std::holds_alternative<base::InputError>(loaded)) {
    ADD_FAILURE() << std::get<base::InputError>(loaded).ToString();
    return {};
  }
  return std::get<runner::ScenarioFile>(loaded);
}

const runner::Scenario& Find(const runner::ScenarioFile& file, const std::string& name) {
  for (const runner::Scenario& scenario : file.scenarios) {
    if (scenario.name == name) return scenario;
  }
  throw std::logic_error("no scenario " + name);
}

TEST(Nemesis, SameSeedSameScript) {
  const runner::ScenarioFile file = LoadNemesisSuite();
  const runner::Scenario& scenario = Find(file, "nemesis-beyond-assumptions");
  int differing = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const std::string first = ScenarioToJson(runner::ExpandNemesis(scenario, seed)).dump();
    const std::string second = ScenarioToJson(runner::ExpandNemesis(scenario, seed)).dump();
    EXPECT_EQ(first, second) << "seed " << seed;
    differing += first != ScenarioToJson(runner::ExpandNemesis(scenario, seed + 1)).dump() ? 1 : 0;
  }
  EXPECT_GE(differing, 45);
}

TEST(Nemesis, BoundedAndWithinAssumptionsWhenAsked) {
  const runner::ScenarioFile file = LoadNemesisSuite();
  const runner::Scenario& within = Find(file, "nemesis-within-assumptions");
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const std::vector<runner::Fault> faults = runner::GenerateNemesisFaults(within, seed);
    ASSERT_FALSE(faults.empty());
    int composite = 0;
    for (const runner::Fault& fault : faults) {
      EXPECT_LE(fault.at, within.duration);
      composite += fault.kind == runner::FaultKind::kRestart ? 0 : 1;
      switch (fault.kind) {
        case runner::FaultKind::kPause:
        case runner::FaultKind::kSuspend:
          EXPECT_LE(fault.duration, within.timing.pause_budget) << "seed " << seed;
          break;
        case runner::FaultKind::kClog:  // only delays messages: within the assumptions at any length
          EXPECT_LE(fault.duration, 4 * within.timing.lease_duration) << "seed " << seed;
          break;
        case runner::FaultKind::kClockDrift:
          EXPECT_LE(std::abs(fault.drift_ppm), within.timing.drift_bound_ppm) << "seed " << seed;
          break;
        default:
          break;
      }
    }
    EXPECT_LE(composite, 2 * within.nemesis.faults_max);  // a shutdown may bring its release pause
  }
}

TEST(Nemesis, ExpandedScriptIsAnOrdinaryScenarioThatReplaysTheSameRun) {
  const runner::ScenarioFile file = LoadNemesisSuite();
  const runner::Scenario& scenario = Find(file, "nemesis-beyond-assumptions");
  for (std::uint64_t seed : {3u, 17u}) {
    const std::string text = ScenarioFileText({runner::ExpandNemesis(scenario, seed)});
    auto parsed = runner::ParseScenarioText("expanded.json", text);
    ASSERT_TRUE(std::holds_alternative<runner::ScenarioFile>(parsed)) << std::get<base::InputError>(parsed).ToString();
    const runner::Scenario& replay = std::get<runner::ScenarioFile>(parsed).scenarios.at(0);
    EXPECT_EQ(runner::RunScenario(replay, seed).trace_hash, runner::RunScenario(scenario, seed).trace_hash);
  }
}

TEST(Nemesis, CorrectProtocolPassesAModestSweepAndEveryFaultPointFires) {
  const runner::ScenarioFile file = LoadNemesisSuite();
  std::vector<runner::RunResult> results;
  for (const runner::Scenario& scenario : file.scenarios) {
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      runner::RunResult result = runner::RunScenario(scenario, seed);
      EXPECT_TRUE(result.ok()) << scenario.name << " seed " << seed << ": " << result.unexpected.front().kind
                               << ": " << result.unexpected.front().message;
      result.history = {};
      results.push_back(std::move(result));
    }
  }
  std::vector<const std::map<std::string, std::int64_t>*> figures;
  for (const runner::RunResult& result : results) figures.push_back(&result.figures);
  EXPECT_EQ(runner::FaultPointsNeverFired(file.require_fault_points, figures), std::vector<std::string>{});
}

TEST(FaultPoints, ARequiredPointThatNeverFiresFailsTheRun) {
  const runner::ScenarioFile file = LoadNemesisSuite();
  runner::Scenario scenario = Find(file, "nemesis-within-assumptions");
  scenario.nemesis = {};
  scenario.expect_fault_points = {std::string(core::fault_points::kDuringRelease)};
  const runner::RunResult result = runner::RunScenario(scenario, 1);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.unexpected.front().kind, "fault_point_not_reached");
  std::vector<const std::map<std::string, std::int64_t>*> figures{&result.figures};
  EXPECT_EQ(runner::FaultPointsNeverFired({"during_release", "before_renew"}, figures),
            std::vector<std::string>{"during_release"});
}

std::vector<ZooEntry> LoadZooFile() {
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  auto loaded = LoadZoo(std::string(root != nullptr ? root : ".") + "/scenarios/zoo.json");
  if (const auto* error = std::get_if<base::InputError>(&loaded)) ADD_FAILURE() << error->ToString();
  return std::holds_alternative<base::InputError>(loaded) ? std::vector<ZooEntry>{}
                                                          : std::get<std::vector<ZooEntry>>(loaded);
}

// A zoo file whose scenario hunts no broken protocol is bad input: the one
// error, naming the scenario's field, for the command to print after the file.
TEST(Zoo, AScenarioThatHuntsNoBrokenProtocolIsRefusedByItsField) {
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  auto loaded = LoadZoo(std::string(root != nullptr ? root : ".") + "/scenarios/explore.json");
  ASSERT_TRUE(std::holds_alternative<base::InputError>(loaded));
  const base::InputError& error = std::get<base::InputError>(loaded);
  EXPECT_EQ(error.path, "scenarios[0].protocol");
  EXPECT_EQ(error.rule.rfind("a zoo scenario must name the known-broken protocol it hunts (scenario \"two-nodes\"", 0),
            0u)
      << error.rule;
}

TEST(Zoo, TheAimedZooHasOneScenarioPerBrokenVariant) {
  std::set<std::string> hunted;
  for (const ZooEntry& entry : LoadZooFile()) hunted.insert(entry.variant);
  std::set<std::string> broken;
  for (const zoo::Variant& variant : zoo::Variants()) {
    if (variant.name != "correct") broken.insert(std::string(variant.name));
  }
  EXPECT_EQ(hunted, broken);
}

TEST(Zoo, EveryVariantIsCaughtWithinItsBudgetAndShrinksToAtMostThreeFaults) {
  std::vector<std::uint64_t> first_seeds;
  const std::vector<ZooEntry> entries = LoadZooFile();
  for (const ZooEntry& entry : entries) {
    const ZooRow row = HuntVariant(entry, kZooSeedBudget, /*shrink=*/true);
    EXPECT_TRUE(row.caught) << row.variant << " escaped " << kZooSeedBudget << " seeds";
    if (!row.caught) continue;
    first_seeds.push_back(row.first_seed);
    EXPECT_LE(row.shrink.scenario.faults.size(), 3u) << row.variant;
    EXPECT_FALSE(row.shrink.result.ok()) << row.variant;
    // The shrunk case is an ordinary scenario file that replays the failure.
    auto parsed = runner::ParseScenarioText("shrunk.json", ScenarioFileText({row.shrink.scenario}));
    ASSERT_TRUE(std::holds_alternative<runner::ScenarioFile>(parsed)) << row.variant;
    EXPECT_FALSE(runner::RunScenario(std::get<runner::ScenarioFile>(parsed).scenarios.at(0), row.first_seed).ok())
        << row.variant;
  }
  ASSERT_EQ(first_seeds.size(), entries.size());
  std::sort(first_seeds.begin(), first_seeds.end());
  EXPECT_LE(first_seeds[first_seeds.size() / 2], 20u);
}

TEST(Zoo, CorrectProtocolRaisesNoAlarmOnAnyZooScenario) {
  const ZooRow row = CheckCorrect(LoadZooFile(), 10);
  EXPECT_EQ(row.false_alarms, 0) << row.false_alarm;
}

TEST(Fuzz, FindsAndShrinksAKnownBadVariant) {
  FuzzOptions options;
  options.runs = 40;
  options.seed = 7;
  options.protocol = "no-term-bump";
  std::ostringstream log;
  const FuzzOutcome outcome = RunFuzz(options, log);
  ASSERT_TRUE(outcome.failed) << log.str();
  EXPECT_LE(outcome.counterexample.faults.size(), 3u);
  EXPECT_FALSE(outcome.violations.empty());
  EXPECT_FALSE(runner::RunScenario(outcome.counterexample, outcome.run_seed).ok());
}

TEST(Fuzz, SameSeedSameSession) {
  FuzzOptions options;
  options.runs = 15;
  options.seed = 11;
  options.protocol = "blind-write";
  std::ostringstream log;
  const FuzzOutcome first = RunFuzz(options, log);
  const FuzzOutcome second = RunFuzz(options, log);
  ASSERT_TRUE(first.failed);
  EXPECT_EQ(ScenarioToJson(first.counterexample).dump(), ScenarioToJson(second.counterexample).dump());
  EXPECT_EQ(first.run_seed, second.run_seed);
}


// Every generated case is an ordinary scenario file: written and read
// back it runs the same (same trace), so a case a session reports replays.
TEST(GenericSearch, EveryGeneratedCaseReplaysFromItsScenarioFile) {
  for (int index = 1; index <= 40; ++index) {
    std::uint64_t seed = 0;
    const runner::Scenario generated = FreshCase(5, index, "correct", seed);
    auto parsed = runner::ParseScenarioText("case.json", ScenarioFileText({generated}));
    ASSERT_TRUE(std::holds_alternative<runner::ScenarioFile>(parsed))
        << index << ": " << std::get<base::InputError>(parsed).ToString();
    const runner::Scenario& read = std::get<runner::ScenarioFile>(parsed).scenarios.at(0);
    EXPECT_EQ(runner::RunScenario(read, seed).trace_hash, runner::RunScenario(generated, seed).trace_hash) << index;
  }
}

// The CI fuzz smoke: a fixed session of the generic search finds nothing
// wrong with the correct protocol, and reaches the protocol's rare paths
// (the suite, scenarios/ci.json, requires every probe as well).
TEST(GenericSearch, TheCorrectProtocolSurvivesAFixedSession) {
  SearchOptions options;
  options.runs = 400;
  options.seed = 1;
  std::set<runner::FaultKind> drawn;
  int replicated_worlds = 0;
  options.fails = [&](const runner::Scenario& scenario, std::uint64_t, const runner::RunResult& result) {
    for (const runner::Fault& fault : scenario.faults) drawn.insert(fault.kind);
    replicated_worlds += scenario.replicated.enabled ? 1 : 0;
    return !result.ok();
  };
  const SearchOutcome outcome = Search(options);
  // The session's coverage of the fault catalogue: every kind the generator
  // draws in the worlds it generates, the replicated store's included (the
  // KV hosts' kinds need KV hosts, and regions, which it does not draw).
  EXPECT_GE(replicated_worlds, 20) << "a share of the worlds has a replicated store";
  for (const runner::FaultKindSpec& spec : runner::FaultCatalogue()) {
    if (spec.target == runner::FaultTarget::kKv || spec.target == runner::FaultTarget::kRegion) continue;
    EXPECT_TRUE(drawn.contains(spec.kind)) << spec.name << " was in no case of the session";
  }
  EXPECT_FALSE(outcome.failed) << "case " << outcome.failing_run << ": "
                               << (outcome.failed ? outcome.result.unexpected.front().message : "");
  EXPECT_EQ(outcome.runs, 400);
  EXPECT_LE(outcome.probes_never.size(), 2u);
  EXPECT_GT(outcome.corpus, 10) << "coverage should keep cases that reach something new";
  EXPECT_GT(outcome.mutated, 100) << "most later cases mutate kept ones";
}

// The generic search, told nothing about the mistake, finds the common
// ones quickly; a regression of the generator shows here first.
TEST(GenericSearch, CatchesCommonMistakesWithoutBeingAimed) {
  for (const char* variant : {"blind-write", "no-term-bump", "no-idempotency-key", "campaign-from-stale-read",
                              "expiry-from-wall-timestamp", "connection-loss-still-leading"}) {
    const ZooRow row = HuntGeneric(variant, 60, 1, /*shrink=*/false);
    EXPECT_TRUE(row.caught) << variant << " escaped " << row.seeds_run << " generated cases";
  }
}

// A session of 30 cases that records every case's trace hash in `hashes`.
SearchOptions HashingSession(std::vector<std::uint64_t>& hashes) {
  SearchOptions options;
  options.runs = 30;
  options.seed = 9;
  options.protocol = "own-lease-duration";
  options.fails = [&hashes](const runner::Scenario&, std::uint64_t, const runner::RunResult& result) {
    hashes.push_back(result.trace_hash);
    return false;
  };
  return options;
}

TEST(GenericSearch, SameSessionSameCases) {
  std::vector<std::uint64_t> hashes;
  const SearchOptions options = HashingSession(hashes);
  Search(options);
  const std::vector<std::uint64_t> first = hashes;
  hashes.clear();
  Search(options);
  EXPECT_EQ(hashes, first);
  EXPECT_EQ(first.size(), 30u);
}

// The progress a session reports agrees with its outcome, and watching it
// changes no case the session runs.
TEST(GenericSearch, ProgressIsReportedAfterEveryCaseAndChangesNothing) {
  std::vector<std::uint64_t> hashes;
  SearchOptions options = HashingSession(hashes);
  const SearchOutcome unwatched = Search(options);
  const std::vector<std::uint64_t> first = hashes;
  hashes.clear();
  std::vector<SearchProgress> reports;
  options.on_progress = [&](const SearchProgress& progress) { reports.push_back(progress); };
  const SearchOutcome watched = Search(options);
  EXPECT_EQ(hashes, first);
  EXPECT_EQ(watched.corpus, unwatched.corpus);
  EXPECT_EQ(watched.probes_never, unwatched.probes_never);
  ASSERT_EQ(reports.size(), 32u);  // before the first case, after each, at the end
  for (std::size_t i = 0; i + 1 < reports.size(); ++i) {
    EXPECT_EQ(reports[i].cases, static_cast<int>(i));
    EXPECT_FALSE(reports[i].finished);
    EXPECT_EQ(reports[i].runs_max, 30);
    EXPECT_LE(reports[i].probes_reached, reports[i + 1].probes_reached);
    EXPECT_LE(reports[i].near_misses, reports[i + 1].near_misses);
    if (!reports[i].closest.empty()) {
      EXPECT_LE(reports[i + 1].closest_ms, reports[i].closest_ms);
    }
  }
  const SearchProgress& last = reports.back();
  EXPECT_TRUE(last.finished);
  EXPECT_EQ(last.cases, 30);
  EXPECT_EQ(last.probes_total, static_cast<int>(core::kProbeNames.size()));
  EXPECT_EQ(last.probes_reached, last.probes_total - static_cast<int>(watched.probes_never.size()));
  EXPECT_GT(last.probes_reached, 0);
  EXPECT_EQ(reports.front().probes_reached, 0);
}

TEST(GenericSearch, AFailingCaseIsCountedAsViolatingInTheLastReport) {
  FuzzOptions options;
  options.runs = 50;
  options.seed = 1;
  options.protocol = "blind-write";
  options.shrink = false;
  SearchProgress last;
  options.on_progress = [&](const SearchProgress& progress) { last = progress; };
  std::ostringstream log;
  const FuzzOutcome outcome = RunFuzz(options, log);
  ASSERT_TRUE(outcome.failed);
  EXPECT_TRUE(last.finished);
  EXPECT_EQ(last.cases, outcome.cases);
  EXPECT_EQ(last.violating, 1);
}

}  // namespace
}  // namespace leasesim::fuzz
