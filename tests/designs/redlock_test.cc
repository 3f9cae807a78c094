// redlock on small fixed-seed worlds: one holder at a time without faults,
// a new holder after the holder crashes, and the documented failures
// replayed from scenarios/designs/redlock.json.

#include "designs/redlock/redlock.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/designs/design_worlds.h"

namespace leasesim::designs {
namespace {

using runner::RunResult;
using runner::Scenario;
using testing::Kinds;
using testing::LeaderNodes;
using testing::Parse;

std::string World(const std::string& faults) { return testing::World("redlock", "200", faults); }

TEST(Redlock, TheWorldOffersFiveRedisStores) {
  const std::vector<Scenario> scenarios = Parse("w.json", World(""));
  ASSERT_EQ(scenarios.size(), 1u);
  EXPECT_EQ(scenarios[0].kv.servers, 5);
  EXPECT_EQ(scenarios[0].kv.server.ttl_clock, backends::KvTtlClock::kWall);
}

TEST(Redlock, OneHolderKeepsTheLockAndSettlesEveryWindow) {
  const RunResult result = runner::RunScenario(Parse("w.json", World(""))[0], 1, {.keep_history = true});
  EXPECT_TRUE(result.verdict.violations.empty()) << result.verdict.violations[0].message;
  EXPECT_EQ(LeaderNodes(result.history).size(), 1u);
  // Extended by node-redlock's `using` every ttl - 500 ms, never lost.
  EXPECT_EQ(result.history.beliefs.size(), 1u);
  EXPECT_GE(result.figures.at("renewals_ok"), 5);
  EXPECT_GT(result.history.ledger_writes.size(), 20u);
}

TEST(Redlock, AnotherNodeTakesTheLockOnceTheCrashedHoldersKeysExpire) {
  const RunResult result = runner::RunScenario(
      Parse("w.json", World(R"({"at_ms": 20000, "kind": "crash", "node": "leader"})"))[0], 1, {.keep_history = true});
  EXPECT_TRUE(result.verdict.violations.empty()) << result.verdict.violations[0].message;
  const std::vector<int> leaders = LeaderNodes(result.history);
  ASSERT_EQ(leaders.size(), 2u);
  EXPECT_NE(leaders[0], leaders[1]);
  const auto& beliefs = result.history.beliefs;
  const auto second = std::find_if(beliefs.begin(), beliefs.end(), [&](const auto& b) { return b.node == leaders[1]; });
  ASSERT_NE(second, beliefs.end());
  EXPECT_GT(second->from_ns, 20'000'000'000);
}

// Each documented failure replays from its scenario file with the
// violations its "expect" names, and only those.
TEST(Redlock, TheDocumentedFailuresReplayFromTheirScenarioFile) {
  const std::vector<Scenario> scenarios =
      testing::ParseSourceFile("scenarios/designs/redlock.json");
  ASSERT_EQ(scenarios.size(), 2u);
  for (const Scenario& scenario : scenarios) {
    const RunResult result = runner::RunScenario(scenario, 1);
    EXPECT_TRUE(result.ok()) << scenario.name << ": " << result.unexpected[0].message;
    EXPECT_FALSE(result.verdict.violations.empty()) << scenario.name;
    // The write that reached the ledger after the lock passed on carried an
    // older acquisition's term.
    EXPECT_TRUE(Kinds(result.verdict).contains("stale_token_accepted")) << scenario.name;
  }
}

}  // namespace
}  // namespace leasesim::designs
