// zk-election on small fixed-seed worlds: one leader without faults, the
// next candidate after the leader crashes (once the server expired its
// session), a suspended connection giving leadership up at once, and the
// documented failure replayed from scenarios/designs/zk_election.json, with
// and without the node's sequence as the ledger's fencing token.

#include "designs/zk_election/zk_election.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runner/protocol_stores.h"
#include "tests/designs/design_worlds.h"

namespace leasesim::designs {
namespace {

using runner::RunResult;
using runner::Scenario;
using testing::Kinds;
using testing::LeaderNodes;
using testing::Parse;

std::string World(const std::string& faults) { return testing::World("zk-election", "1000", faults); }

TEST(ZkElection, TheWorldOffersOneZooKeeperStore) {
  const std::vector<Scenario> scenarios = Parse("w.json", World(""));
  ASSERT_EQ(scenarios.size(), 1u);
  EXPECT_EQ(scenarios[0].kv.servers, 1);
  EXPECT_EQ(scenarios[0].kv.server.ttl_clock, backends::KvTtlClock::kMonotonic);
  EXPECT_EQ(scenarios[0].kv.server.expiry_period, 2'000'000'000);  // tickTime
}

TEST(ZkElection, TheLowestSequenceLeadsAloneAndSettlesEveryWindow) {
  const RunResult result = runner::RunScenario(Parse("w.json", World(""))[0], 1, {.keep_history = true});
  EXPECT_TRUE(result.verdict.violations.empty()) << result.verdict.violations[0].message;
  ASSERT_EQ(result.history.beliefs.size(), 1u);
  // The token is the node's sequence: its create revision, above the empty store's 1.
  EXPECT_GT(result.history.beliefs[0].term, 1);
  EXPECT_GT(result.history.ledger_writes.size(), 20u);
}

TEST(ZkElection, TheNextCandidateLeadsOnceTheServerExpiresTheCrashedLeadersSession) {
  const RunResult result = runner::RunScenario(
      Parse("w.json", World(R"({"at_ms": 20000, "kind": "crash", "node": "leader"})"))[0], 1, {.keep_history = true});
  EXPECT_TRUE(result.verdict.violations.empty()) << result.verdict.violations[0].message;
  const std::vector<int> leaders = LeaderNodes(result.history);
  ASSERT_EQ(leaders.size(), 2u);
  EXPECT_NE(leaders[0], leaders[1]);
  const checker::LeadershipBelief& second = result.history.beliefs.back();
  EXPECT_GT(second.term, result.history.beliefs.front().term);
  // Not before the 10 s session timeout ran out on the server's clock after
  // the last ping, which was at most a third of it before the crash.
  EXPECT_GE(second.from_ns, 20'000'000'000 + 10'000'000'000 * 2 / 3);
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

// Each documented failure replays from its scenario file with the
// violations its "expect" names, and only those.
// With the token at the fenced ledger, the same failure writes nothing stale.
TEST(ZkElection, TheJulietPauseReplaysAndTheSequenceFencesIt) {
  std::vector<Scenario> scenarios =
      testing::ParseSourceFile("scenarios/designs/zk_election.json");
  ASSERT_EQ(scenarios.size(), 1u);
  const RunResult plain = runner::RunScenario(scenarios[0], 1);
  EXPECT_TRUE(plain.ok()) << plain.unexpected[0].message;
  EXPECT_TRUE(Kinds(plain.verdict).contains("stale_token_accepted"));
  runner::SetScenarioProtocol(scenarios[0], kZkElectionFencedProtocol);
  const RunResult fenced = runner::RunScenario(scenarios[0], 1);
  EXPECT_TRUE(fenced.verdict.violations.empty()) << fenced.verdict.violations[0].message;
}

}  // namespace
}  // namespace leasesim::designs
