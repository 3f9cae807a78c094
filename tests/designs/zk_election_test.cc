// What only zk-election does, on small fixed-seed worlds: one ZooKeeper
// store in its world, the node's sequence as the token, and a suspended
// connection giving leadership up at once. What every design does (one
// leader, a takeover after a crash, the documented failure of
// scenarios/designs/zk_election.json with and without the token) is in
// design_rules_test.cc.

#include "designs/zk_election/zk_election.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/designs/design_worlds.h"

namespace leasesim::designs {
namespace {

using runner::RunResult;
using runner::Scenario;
using testing::Parse;

std::string World(const std::string& faults) { return testing::World("zk-election", "1000", faults); }

TEST(ZkElection, TheWorldOffersOneZooKeeperStore) {
  const std::vector<Scenario> scenarios = Parse("w.json", World(""));
  ASSERT_EQ(scenarios.size(), 1u);
  EXPECT_EQ(scenarios[0].kv.servers, 1);
  EXPECT_EQ(scenarios[0].kv.server.ttl_clock, backends::KvTtlClock::kMonotonic);
  EXPECT_EQ(scenarios[0].kv.server.expiry_period, 2'000'000'000);  // tickTime
}

// The token is the node's sequence: its create revision, above the empty store's 1.
TEST(ZkElection, TheTokenIsTheNodesSequence) {
  const RunResult result = runner::RunScenario(Parse("w.json", World(""))[0], 1, {.keep_history = true});
  EXPECT_TRUE(result.verdict.violations.empty()) << result.verdict.violations[0].message;
  ASSERT_EQ(result.history.beliefs.size(), 1u);
  EXPECT_GT(result.history.beliefs[0].term, 1);
}

// The Standard error policy: SUSPENDED (nothing heard for 2/3 of the session
// timeout) ends leadership at once, before the server could expire the
// session; reconnected within the session, the latch reads the children
// again and its node, still first, leads again under the same sequence.
TEST(ZkElection, ASuspendedConnectionGivesLeadershipUpBeforeTheSessionCouldExpire) {
  const RunResult result = runner::RunScenario(
      Parse("w.json", World(R"({"at_ms": 20000, "kind": "isolate", "node": "leader", "duration_ms": 4000})"))[0], 1,
      {.keep_history = true});
  EXPECT_TRUE(result.verdict.violations.empty()) << result.verdict.violations[0].message;
  ASSERT_GE(result.history.beliefs.size(), 2u);
  const checker::LeadershipBelief& first = result.history.beliefs.front();
  EXPECT_EQ(first.end_reason, "disconnected");
  EXPECT_LE(first.until_ns, 24'000'000'000);  // nothing heard for 2/3 of 10 s since the last ping before 20 s
  const checker::LeadershipBelief& again = result.history.beliefs[1];
  EXPECT_EQ(again.node, first.node);
  EXPECT_EQ(again.term, first.term);
  EXPECT_GE(again.from_ns, 24'000'000'000);  // once the isolation ended
}

}  // namespace
}  // namespace leasesim::designs
