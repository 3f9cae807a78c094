#include "runner/sweep.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <set>

#include "reports/summary_json.h"
#include "reports/timeline_json.h"
#include "runner/scenario_parser.h"
#include "runner/sweep_divergence.h"
#include "runner/sweep_timeline.h"

namespace leasesim::runner {
namespace {

std::string ScenarioText(const std::string& name, const std::string& extra) {
  return R"({"name": ")" + name + R"(", "nodes": 3, "duration_ms": 20000,
    "lease": {"duration_ms": 4000, "renew_interval_ms": 1000, "renew_deadline_ms": 2500,
              "retry_ms": 500, "request_timeout_ms": 500, "drift_bound_ppm": 1000, "safety_margin_ms": 200},
    "settlement": {"period_ms": 2000, "batch_items": 2},
    "store": {"kind": "linearizable", "latency_ms": {"base": 2, "jitter": 3}},
    "network": {"latency_ms": {"base": 1, "jitter": 2}, "loss": 0.001})" +
         extra + "}";
}

ScenarioFile TwoScenarios() {
  const std::string text = R"({"scenarios": [)" + ScenarioText("steady", "") + ", " +
                           ScenarioText("crash", R"(, "faults": [{"at_ms": 6000, "kind": "crash", "node": "leader"},
                                                    {"at_ms": 9000, "kind": "restart", "node": 1},
                                                    {"at_ms": 9000, "kind": "restart", "node": 2},
                                                    {"at_ms": 9000, "kind": "restart", "node": 3}])") +
                           "]}";
  auto parsed = ParseScenarioText("two.json", text);
  if (!std::holds_alternative<ScenarioFile>(parsed)) {
    ADD_FAILURE() << std::get<base::InputError>(parsed).ToString();
    return {};
  }
  return std::get<ScenarioFile>(parsed);
}

std::vector<const Scenario*> All(const ScenarioFile& file) {
  std::vector<const Scenario*> all;
  for (const Scenario& scenario : file.scenarios) all.push_back(&scenario);
  return all;
}

const std::vector<std::uint64_t> kSeeds = {1, 2, 3, 4, 5, 6, 7};

// Fails the runs of the given seeds with an invented violation.
RunFunction FailingSeeds(std::set<std::uint64_t> failing) {
  return [failing](const Scenario& scenario, std::uint64_t seed, const RunOptions& options) {
    RunResult result = RunScenario(scenario, seed, options);
    if (failing.contains(seed)) {
      checker::Violation violation{"stale_token_write", "invented for seed " + std::to_string(seed),
                                   sim::Seconds(7), {1, 2}};
      result.verdict.violations.push_back(violation);
      result.unexpected.push_back(violation);
    }
    return result;
  };
}

struct Captured {
  SweepOutcome outcome;
  std::vector<std::pair<std::string, std::uint64_t>> on_run_order;
  std::vector<SweepProgress> progress;
};

Captured Sweep(const ScenarioFile& file, SweepOptions options) {
  Captured captured;
  captured.outcome = RunSweep(
      file, All(file), kSeeds, "1-7", options,
      [&](const RunResult& result) { captured.on_run_order.emplace_back(result.scenario, result.seed); },
      [&](const SweepProgress& progress) { captured.progress.push_back(progress); });
  return captured;
}

TEST(Sweep, ParallelRunsGiveTheSerialSummaryTimelinesAndCallbackOrder) {
  const ScenarioFile file = TwoScenarios();
  SweepOptions options{.run = FailingSeeds({2, 5})};
  const Captured serial = Sweep(file, options);
  options.jobs = 2;
  const Captured parallel = Sweep(file, options);
  options.jobs = 5;
  const Captured wide = Sweep(file, options);
  ASSERT_EQ(serial.outcome.summary.runs.size(), 14u);
  EXPECT_EQ(serial.outcome.summary.failed(), 4);
  const std::string json = reports::SummaryJson(serial.outcome.summary);
  EXPECT_EQ(reports::SummaryJson(parallel.outcome.summary), json);
  EXPECT_EQ(reports::SummaryJson(wide.outcome.summary), json);
  EXPECT_EQ(reports::TimelinesJson(parallel.outcome.timelines), reports::TimelinesJson(serial.outcome.timelines));
  EXPECT_EQ(parallel.on_run_order, serial.on_run_order);
  EXPECT_EQ(wide.on_run_order, serial.on_run_order);
  // Progress ends at done == total with every failure counted.
  ASSERT_FALSE(parallel.progress.empty());
  EXPECT_EQ(parallel.progress.back().done, 14u);
  EXPECT_EQ(parallel.progress.back().total, 14u);
  EXPECT_EQ(parallel.progress.back().failed, 4u);
  // Timelines: the failing runs, in sweep order, with their history drawn.
  ASSERT_EQ(serial.outcome.timelines.size(), 4u);
  EXPECT_EQ(serial.outcome.timelines[0].scenario, "steady");
  EXPECT_EQ(serial.outcome.timelines[0].seed, 2u);
  EXPECT_EQ(serial.outcome.timelines[3].scenario, "crash");
  EXPECT_EQ(serial.outcome.timelines[3].seed, 5u);
  EXPECT_FALSE(serial.outcome.timelines[0].beliefs.empty());
  EXPECT_EQ(serial.outcome.timelines[0].violations.at(0).nodes, (std::vector<int>{1, 2}));
}

TEST(Sweep, TimelinesAreCappedToTheFirstFailingRuns) {
  const ScenarioFile file = TwoScenarios();
  const Captured capped = Sweep(file, {.jobs = 2, .timelines_max = 3, .run = FailingSeeds({1, 2, 3, 4, 5, 6, 7})});
  ASSERT_EQ(capped.outcome.timelines.size(), 3u);
  EXPECT_EQ(capped.outcome.timelines[2].seed, 3u);
}

TEST(Sweep, ShardsAreDisjointAndTogetherMakeTheWholeSweep) {
  const ScenarioFile file = TwoScenarios();
  const Captured whole = Sweep(file, {});
  std::vector<const reports::RunSummary*> interleaved(whole.outcome.summary.runs.size(), nullptr);
  std::vector<Captured> shards;
  for (int k = 1; k <= 3; ++k) shards.push_back(Sweep(file, {.jobs = 2, .shard = {k, 3}}));
  for (int k = 1; k <= 3; ++k) {
    const auto& runs = shards[static_cast<std::size_t>(k - 1)].outcome.summary.runs;
    EXPECT_EQ(shards[static_cast<std::size_t>(k - 1)].outcome.summary.shard, (reports::Shard{k, 3}));
    EXPECT_EQ(shards[static_cast<std::size_t>(k - 1)].outcome.summary.scenarios,
              whole.outcome.summary.scenarios);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const std::size_t global = i * 3 + static_cast<std::size_t>(k - 1);
      ASSERT_LT(global, interleaved.size());
      ASSERT_EQ(interleaved[global], nullptr);  // disjoint
      interleaved[global] = &runs[i];
    }
  }
  for (std::size_t i = 0; i < interleaved.size(); ++i) {
    ASSERT_NE(interleaved[i], nullptr) << i;  // complete
    EXPECT_EQ(interleaved[i]->scenario, whole.outcome.summary.runs[i].scenario);
    EXPECT_EQ(interleaved[i]->seed, whole.outcome.summary.runs[i].seed);
    EXPECT_EQ(interleaved[i]->trace_hash, whole.outcome.summary.runs[i].trace_hash);
  }
}

TEST(Sweep, CheckDeterminismPassesOnTheRealSimulator) {
  const ScenarioFile file = TwoScenarios();
  const Captured plain = Sweep(file, {.jobs = 2});
  const Captured checked = Sweep(file, {.jobs = 2, .check_determinism = true});
  EXPECT_EQ(checked.outcome.nondeterministic, 0u);
  EXPECT_EQ(reports::SummaryJson(checked.outcome.summary), reports::SummaryJson(plain.outcome.summary));
}

TEST(Sweep, CheckDeterminismNamesTheFirstDivergentEvent) {
  const ScenarioFile file = TwoScenarios();
  // Seed 3 of "crash" flips one trace event on every other execution.
  auto calls = std::make_shared<std::atomic<int>>(0);
  RunFunction flaky = [calls](const Scenario& scenario, std::uint64_t seed, const RunOptions& options) {
    RunResult result = RunScenario(scenario, seed, options);
    if (scenario.name == "crash" && seed == 3 && calls->fetch_add(1) % 2 == 1) {
      result.trace_hash ^= 1;
      if (result.trace.size() > 100) result.trace[100].b += 1;
    }
    return result;
  };
  const Captured checked = Sweep(file, {.jobs = 2, .check_determinism = true, .run = flaky});
  EXPECT_EQ(checked.outcome.nondeterministic, 1u);
  const auto& runs = checked.outcome.summary.runs;
  const auto bad = std::find_if(runs.begin(), runs.end(), [](const reports::RunSummary& r) { return !r.ok; });
  ASSERT_NE(bad, runs.end());
  EXPECT_EQ(bad->scenario, "crash");
  EXPECT_EQ(bad->seed, 3u);
  ASSERT_EQ(bad->violations.size(), 1u);
  EXPECT_EQ(bad->violations[0].kind, "nondeterminism");
  EXPECT_NE(bad->violations[0].message.find("trace event #100 at "), std::string::npos) << bad->violations[0].message;
  EXPECT_EQ(checked.outcome.summary.failed(), 1);
}

TEST(Divergence, FindsTheFirstDifferingEventOrTheEndOfTheShorterTrace) {
  const std::vector<sim::TraceEvent> a = {{10, 1, "send", 1, 2}, {20, 2, "recv", 1, 2}, {30, 1, "timer", 0, 0}};
  std::vector<sim::TraceEvent> b = a;
  EXPECT_FALSE(FirstDivergence(a, b).has_value());
  b[1].b = 3;
  auto divergence = FirstDivergence(a, b);
  ASSERT_TRUE(divergence.has_value());
  EXPECT_EQ(divergence->index, 1u);
  EXPECT_EQ(divergence->time, 20);
  EXPECT_NE(DescribeDivergence(*divergence).find("trace event #1 at 0.000000020 s: "), std::string::npos)
      << DescribeDivergence(*divergence);
  b = a;
  b.pop_back();
  divergence = FirstDivergence(a, b);
  ASSERT_TRUE(divergence.has_value());
  EXPECT_EQ(divergence->index, 2u);
  EXPECT_FALSE(divergence->second.has_value());
  EXPECT_NE(DescribeDivergence(*divergence).find("vs (trace ended)"), std::string::npos);
}

TEST(SweepTimeline, DerivesTheStoreHolderFromAppliedWrites) {
  const ScenarioFile file = TwoScenarios();
  const RunResult result = RunScenario(file.scenarios[1], 4, {.keep_history = true});
  const reports::Timeline timeline = BuildTimeline(result, "two.json");
  ASSERT_GE(timeline.holders.size(), 2u);  // the crashed leader, then its successor
  EXPECT_EQ(timeline.holders.front().term, 1);
  EXPECT_LT(timeline.holders.front().term, timeline.holders.back().term);
  for (std::size_t i = 1; i < timeline.holders.size(); ++i) {
    EXPECT_EQ(timeline.holders[i].from_ns, timeline.holders[i - 1].until_ns);
    EXPECT_NE(timeline.holders[i].holder + std::to_string(timeline.holders[i].term),
              timeline.holders[i - 1].holder + std::to_string(timeline.holders[i - 1].term));
  }
  EXPECT_EQ(timeline.holders.back().until_ns, timeline.end_ns);
  // Each belief's holder and term is one the store recorded.
  for (const reports::TimelineBelief& belief : timeline.beliefs) {
    EXPECT_TRUE(std::any_of(timeline.holders.begin(), timeline.holders.end(), [&](const reports::TimelineHolder& h) {
      return h.holder == belief.holder && h.term == belief.term;
    })) << belief.holder;
  }
  EXPECT_EQ(timeline.faults.front().kind, "crash");
  EXPECT_FALSE(timeline.writes.empty());
  EXPECT_EQ(timeline.replay_command, "leasesim replay two.json --scenario crash --seed 4");
}

TEST(SweepTimeline, ReplayHtmlDrawsAnyRunPassingOrFailing) {
  const ScenarioFile file = TwoScenarios();
  const RunResult result = RunScenario(file.scenarios[1], 4, {.keep_history = true});
  ASSERT_TRUE(result.ok());
  const std::string path = ::testing::TempDir() + "/leasesim_replay_timeline.html";
  ASSERT_EQ(WriteTimelineHtml(path, result, "two.json"), "");
  std::ifstream in(path);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<svg class=\"timeline\""), std::string::npos);
  EXPECT_NE(html.find("PASS</span> crash seed 4"), std::string::npos);
  EXPECT_NE(html.find("No violations."), std::string::npos);
  EXPECT_NE(WriteTimelineHtml("/nonexistent-dir/x.html", result, "two.json"), "");
}

}  // namespace
}  // namespace leasesim::runner
