// kube-lease's rules on small fixed-seed worlds: one leader, a takeover
// after a crash, and the documented failure (a leader paused past its
// lease writes after a successor took over) replayed by its scenario file.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "runner/test_scenarios.h"

namespace leasesim::designs {
namespace {

using runner::testing::BeliefHolders;
using runner::testing::ViolationKinds;

runner::Scenario Parse(const std::string& text) {
  std::string error;
  runner::Scenario scenario = runner::testing::FirstScenario(text, error);
  EXPECT_EQ(error, "");
  return scenario;
}

TEST(KubeLease, ElectsOneLeaderWhoSettlesEveryWindow) {
  const runner::Scenario scenario = Parse(runner::testing::ScenarioJson(R"("protocol": "kube-lease")"));
  const runner::RunResult result = runner::RunScenario(scenario, 1, {.keep_history = true});
  EXPECT_TRUE(result.ok()) << (result.unexpected.empty() ? "" : result.unexpected[0].message);
  EXPECT_EQ(BeliefHolders(result).size(), 1u);
  EXPECT_GE(result.figures.at("settlements_applied"), 10);
}

TEST(KubeLease, AnotherNodeTakesOverAfterTheLeaderCrashes) {
  const runner::Scenario scenario = Parse(runner::testing::ScenarioJson(
      R"("protocol": "kube-lease", "faults": [{"at_ms": 20000, "kind": "crash", "node": "leader"}])"));
  const runner::RunResult result = runner::RunScenario(scenario, 3, {.keep_history = true});
  EXPECT_TRUE(result.ok()) << (result.unexpected.empty() ? "" : result.unexpected[0].message);
  ASSERT_EQ(BeliefHolders(result).size(), 2u);
  // The successor counted one more transition: its token is higher.
  EXPECT_LT(result.history.beliefs.front().term, result.history.beliefs.back().term);
  EXPECT_GE(result.figures.at("settlements_applied"), 8);
}

// scenarios/designs/kube_lease.json: its first scenario without the
// token (the stale batch reaches the ledger after the successor's),
// its second with it (rejected).
TEST(KubeLease, APausedLeaderWritesAfterItsSuccessorUnlessFenced) {
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  ASSERT_NE(root, nullptr);
  auto loaded = runner::LoadScenarioFile(std::string(root) + "/scenarios/designs/kube_lease.json");
  ASSERT_TRUE(std::holds_alternative<runner::ScenarioFile>(loaded)) << std::get<runner::ParseError>(loaded).message;
  const auto& scenarios = std::get<runner::ScenarioFile>(loaded).scenarios;
  ASSERT_EQ(scenarios.size(), 2u);
  const runner::RunResult plain = runner::RunScenario(scenarios[0], 1);
  EXPECT_TRUE(plain.ok()) << (plain.unexpected.empty() ? "" : plain.unexpected[0].message);
  EXPECT_TRUE(ViolationKinds(plain).contains("stale_token_accepted"));
  EXPECT_GT(plain.figures.at("overlap_ms"), 0);
  const runner::RunResult fenced = runner::RunScenario(scenarios[1], 1);
  EXPECT_TRUE(fenced.ok()) << (fenced.unexpected.empty() ? "" : fenced.unexpected[0].message);
  EXPECT_TRUE(fenced.verdict.violations.empty());
  EXPECT_GT(fenced.figures.at("overlap_ms"), 0);  // the beliefs still overlap
  EXPECT_GE(fenced.figures.at("fenced_writes_rejected"), 1);
}

}  // namespace
}  // namespace leasesim::designs
