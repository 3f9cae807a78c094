#include "runner/sweep_budget.h"

#include <gtest/gtest.h>

#include "reports/summary_json.h"
#include "reports/timeline_json.h"
#include "runner/scenario_parser.h"
#include "runner/seeds.h"
#include "runner/test_scenarios.h"

namespace leasesim::runner {
namespace {

ScenarioFile TwoScenarios() {
  auto scenario = [](const std::string& name, const std::string& faults) {
    return testing::ShortScenarioEntry(name, faults);
  };
  auto parsed = ParseScenarioText("two.json", R"({"require_probes": ["takeover_after_expiry"], "scenarios": [)" +
                                                  scenario("steady", "") + ", " +
                                                  scenario("crash", R"({"at_ms": 6000, "kind": "crash", "node": "leader"})") +
                                                  "]}");
  EXPECT_TRUE(std::holds_alternative<ScenarioFile>(parsed));
  return std::get<ScenarioFile>(parsed);
}

// Odd seeds fail: failures land in every batch, so the kept timelines must
// be put back in sweep order across batches.
RunFunction OddSeedsFail() {
  return [](const Scenario& scenario, std::uint64_t seed, const RunOptions& options) {
    RunResult result = RunScenario(scenario, seed, options);
    if (seed % 2 == 1) {
      checker::Violation violation{"stale_token_write", "invented", sim::Seconds(7), {1, 2}};
      result.verdict.violations.push_back(violation);
      result.unexpected.push_back(violation);
    }
    return result;
  };
}

// Whatever the batches, a budgeted sweep's outcome is the plain sweep of
// the seeds it ran: the same summary, the same first timelines.
TEST(BudgetedSweep, IsThePlainSweepOfTheSeedsThatRan) {
  const ScenarioFile file = TwoScenarios();
  const std::vector<const Scenario*> all = {&file.scenarios[0], &file.scenarios[1]};
  for (const int jobs : {1, 2}) {
    SweepOptions options{.jobs = jobs, .timelines_max = 3, .run = OddSeedsFail()};
    std::uint64_t next = 1;
    auto seeds = [&](std::size_t count) {
      std::vector<std::uint64_t> drawn;
      for (std::size_t i = 0; i < count && next <= 9; ++i) drawn.push_back(next++);
      return drawn;
    };
    int asked = 0;
    const SweepOutcome budgeted = RunBudgetedSweep(file, all, seeds, [&] { return ++asked > 3; }, options, {});
    const std::size_t ran = next - 1;
    ASSERT_GE(ran, 3u);  // three batches of at least one seed
    std::vector<std::uint64_t> list;
    for (std::uint64_t seed = 1; seed <= ran; ++seed) list.push_back(seed);
    EXPECT_EQ(budgeted.summary.seeds, FormatSeeds(list));
    const SweepOutcome plain = RunSweep(file, all, list, FormatSeeds(list), options, {});
    EXPECT_EQ(reports::SummaryJson(budgeted.summary), reports::SummaryJson(plain.summary)) << jobs;
    EXPECT_EQ(reports::TimelinesJson(budgeted.timelines), reports::TimelinesJson(plain.timelines)) << jobs;
    EXPECT_TRUE(budgeted.summary.suite.judged);
  }
}

TEST(BudgetedSweep, StopsWhenTheSeedsRunOut) {
  const ScenarioFile file = TwoScenarios();
  const std::vector<const Scenario*> all = {&file.scenarios[0]};
  bool given = false;
  auto seeds = [&](std::size_t) {
    if (given) return std::vector<std::uint64_t>{};
    given = true;
    return std::vector<std::uint64_t>{4, 5};
  };
  const SweepOutcome outcome = RunBudgetedSweep(file, all, seeds, [] { return false; }, SweepOptions{}, {});
  EXPECT_EQ(outcome.summary.seeds, "4-5");
  EXPECT_EQ(outcome.summary.runs.size(), 2u);
}

TEST(Seeds, FormatSeedsReadsBack) {
  EXPECT_EQ(FormatSeeds({1, 2, 3, 7, 9, 10}), "1-3,7,9-10");
  EXPECT_EQ(FormatSeeds({5}), "5");
  EXPECT_EQ(FormatSeeds({}), "");
  const auto parsed = ParseSeeds(FormatSeeds({1, 2, 3, 7, 9, 10}));
  EXPECT_EQ(std::get<std::vector<std::uint64_t>>(parsed), (std::vector<std::uint64_t>{1, 2, 3, 7, 9, 10}));
}

}  // namespace
}  // namespace leasesim::runner
