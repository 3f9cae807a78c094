#include "runner/run.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "runner/scenario_parser.h"
#include "runner/test_scenarios.h"

namespace leasesim::runner {
namespace {

using testing::ParsedScenario;
using testing::ScenarioJson;

TEST(Run, SteadyStateHasOneLeaderAndSettlesEveryWindowOnce) {
  const Scenario scenario = ParsedScenario(ScenarioJson());
  const RunResult result = RunScenario(scenario, 1, {.keep_history = true});
  EXPECT_TRUE(result.ok()) << (result.unexpected.empty() ? "" : result.unexpected[0].message);
  EXPECT_EQ(result.figures.at("leader_terms"), 1);
  // 60 s of 5 s windows: 12 due; the last one may still be in flight at the end.
  EXPECT_GE(result.figures.at("settlements_applied"), 11);
  EXPECT_LE(result.figures.at("settlements_applied"), 12);
  EXPECT_EQ(result.figures.count("fenced_writes_rejected"), 0u);
}

TEST(Run, LeaderCrashLeadsToATakeoverWithAHigherTerm) {
  const Scenario scenario = ParsedScenario(ScenarioJson(R"("faults": [{"at_ms": 20000, "kind": "crash", "node": "leader"}])"));
  const RunResult result = RunScenario(scenario, 3, {.keep_history = true});
  EXPECT_TRUE(result.ok());
  ASSERT_GE(result.history.beliefs.size(), 2u);
  const auto& first = result.history.beliefs.front();
  const auto& second = result.history.beliefs.back();
  EXPECT_EQ(first.end_reason, "crash");
  EXPECT_NE(first.node, second.node);
  EXPECT_EQ(second.term, first.term + 1);
  // The successor waited at least a full lease duration after the crash.
  EXPECT_GE(second.from_ns, sim::Seconds(20) + sim::Seconds(10) - sim::Seconds(3));
  EXPECT_LE(second.from_ns, sim::Seconds(20) + sim::Seconds(15));
}

TEST(Run, ReplayGivesTheSameTraceHash) {
  const Scenario scenario = ParsedScenario(ScenarioJson(R"("faults": [{"at_ms": 20000, "kind": "crash", "node": "leader"}])"));
  EXPECT_EQ(RunScenario(scenario, 42).trace_hash, RunScenario(scenario, 42).trace_hash);
  EXPECT_NE(RunScenario(scenario, 42).trace_hash, RunScenario(scenario, 43).trace_hash);
}

RC_GTEST_PROP(Run, AnySeedRunTwiceGivesTheSameTraceHash, (std::uint64_t seed)) {
  static const Scenario scenario = ParsedScenario(ScenarioJson(
      R"("faults": [{"at_ms": 8000, "kind": "crash", "node": "leader"}, {"at_ms": 9000, "kind": "restart", "node": 1},
                    {"at_ms": 9000, "kind": "restart", "node": 2}, {"at_ms": 9000, "kind": "restart", "node": 3}])",
      3, 30000));
  const RunResult first = RunScenario(scenario, seed);
  const RunResult second = RunScenario(scenario, seed);
  RC_ASSERT(first.trace_hash == second.trace_hash);
  RC_ASSERT(first.trace_events == second.trace_events);
}

}  // namespace
}  // namespace leasesim::runner
