// redlock on small fixed-seed worlds: one holder at a time without faults,
// a new holder after the holder crashes, and the documented failures
// replayed from scenarios/designs/redlock.json.

#include "designs/redlock/redlock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <variant>

#include "checker/checker.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"

namespace leasesim::designs {
namespace {

using runner::RunResult;
using runner::Scenario;

std::string World(const std::string& faults) {
  return R"({"scenarios": [{"name": "w", "nodes": 3, "duration_ms": 60000, "protocol": "redlock",
    "lease": {"duration_ms": 10000, "renew_interval_ms": 3000, "renew_deadline_ms": 7000,
              "retry_ms": 1000, "request_timeout_ms": 200, "drift_bound_ppm": 1000, "safety_margin_ms": 500},
    "settlement": {"period_ms": 2000, "batch_items": 3},
    "store": {"kind": "linearizable", "latency_ms": {"base": 2, "jitter": 3}},
    "network": {"latency_ms": {"base": 1, "jitter": 2}, "loss": 0},
    "faults": [)" + faults + "]}]}";
}

std::vector<Scenario> Parse(const std::string& path, const std::string& text) {
  auto parsed = runner::ParseScenarioText(path, text);
  if (!std::holds_alternative<runner::ScenarioFile>(parsed)) {
    ADD_FAILURE() << std::get<runner::ParseError>(parsed).message;
    return {};
  }
  return std::get<runner::ScenarioFile>(parsed).scenarios;
}

std::set<std::string> Kinds(const checker::Verdict& verdict) {
  std::set<std::string> kinds;
  for (const checker::Violation& v : verdict.violations) kinds.insert(v.kind);
  return kinds;
}

// The holders that believed they led, in order of their first belief.
std::vector<int> LeaderNodes(const checker::History& history) {
  std::vector<int> nodes;
  for (const checker::LeadershipBelief& belief : history.beliefs) {
    if (nodes.empty() || nodes.back() != belief.node) nodes.push_back(belief.node);
  }
  return nodes;
}

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

std::string ReadSource(const std::string& relative) {
  const char* dir = std::getenv("LEASESIM_SOURCE_DIR");
  std::ifstream in(std::string(dir != nullptr ? dir : ".") + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Each documented failure replays from its scenario file with the
// violations its "expect" names, and only those.
TEST(Redlock, TheDocumentedFailuresReplayFromTheirScenarioFile) {
  const std::vector<Scenario> scenarios =
      Parse("scenarios/designs/redlock.json", ReadSource("scenarios/designs/redlock.json"));
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
