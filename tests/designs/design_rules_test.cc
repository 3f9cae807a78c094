// What every reference design must do, on small fixed-seed worlds, each
// design through the same tests: one leader who settles every window
// without faults; another node taking over once the crashed leader's
// lease, session or keys are gone (never before, and with a higher term);
// its documented failures replaying from scenarios/designs/<design>.json,
// and with the design's token at the fenced ledger, no stale batch applied.
// Then the designs on the replicated (Raft) store, where it applies.
// What only one design does stays in its own file (redlock_test.cc,
// zk_election_test.cc).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runner/protocol_stores.h"
#include "runner/test_scenarios.h"
#include "tests/designs/design_worlds.h"

namespace leasesim::designs {
namespace {

using runner::RunResult;
using runner::Scenario;
using testing::Kinds;
using testing::LeaderNodes;
using testing::Parse;

struct DesignCase {
  std::string protocol;         // the untokened registration
  std::string fenced;           // its tokened one; empty when it has no token (Redlock)
  std::string request_timeout;  // ms: Redlock's calls are "small compared to the TTL"
  std::string scenario_file;    // its documented failures
  // The successor of a leader crashed at 20 s leads no earlier than this
  // (ms): etcd's lease lasts the 10 s TTL from the last keep-alive, sent a
  // third of it after the previous answer on a 500 ms tick; ZooKeeper's
  // session lasts it from the last ping, sent once nothing was sent for a
  // third of it; a client-go candidate
  // waits LeaseDuration from when it saw the last renewal (every RetryPeriod
  // and its jitter, so at most ~2.2 s before the crash); Redlock's keys may
  // have been extended just before it or be about to expire.
  std::int64_t takeover_not_before_ms;
  bool replicated_applies;  // its store is (or, for ZooKeeper, stands in part for) a Raft-replicated one
};

std::string CaseName(const ::testing::TestParamInfo<DesignCase>& info) {
  std::string name = info.param.protocol;
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

class DesignRules : public ::testing::TestWithParam<DesignCase> {
 protected:
  Scenario World(const std::string& faults) const {
    std::vector<Scenario> scenarios =
        Parse("w.json", testing::World(GetParam().protocol, GetParam().request_timeout, faults));
    return scenarios.empty() ? Scenario{} : scenarios[0];
  }
};

TEST_P(DesignRules, ElectsOneLeaderWhoSettlesEveryWindow) {
  const RunResult result = runner::RunScenario(World(""), 1, {.keep_history = true});
  EXPECT_TRUE(result.verdict.violations.empty()) << result.verdict.violations[0].message;
  EXPECT_EQ(LeaderNodes(result.history).size(), 1u);
  // 60 s of 2 s windows, less the first election.
  EXPECT_GE(result.figures.at("settlements_applied"), 20);
}

TEST_P(DesignRules, AnotherNodeTakesOverOnceTheCrashedLeadersClaimIsGone) {
  const RunResult result =
      runner::RunScenario(World(R"({"at_ms": 20000, "kind": "crash", "node": "leader"})"), 1, {.keep_history = true});
  EXPECT_TRUE(result.verdict.violations.empty()) << result.verdict.violations[0].message;
  const std::vector<int> leaders = LeaderNodes(result.history);
  ASSERT_EQ(leaders.size(), 2u);
  EXPECT_NE(leaders[0], leaders[1]);
  const checker::LeadershipBelief& second = result.history.beliefs.back();
  EXPECT_EQ(second.node, leaders[1]);
  EXPECT_GT(second.term, result.history.beliefs.front().term);
  EXPECT_GE(second.from_ns, GetParam().takeover_not_before_ms * 1'000'000);
  EXPECT_GE(result.figures.at("settlements_applied"), 15);
}

// Each scenario of the design's file replays with the violations its
// "expect" names and only those; an untokened one shows the stale batch
// reaching the ledger, a fenced one none. The untokened ones run again with
// the token at the ledger: no deposed writer's batch is applied (the
// beliefs may still overlap: the token does not stop a process believing).
TEST_P(DesignRules, TheDocumentedFailuresReplayAndTheTokenKeepsTheStaleBatchesOut) {
  const std::vector<Scenario> scenarios = testing::ParseSourceFile(GetParam().scenario_file);
  ASSERT_FALSE(scenarios.empty());
  for (Scenario scenario : scenarios) {
    const RunResult result = runner::RunScenario(scenario, 1);
    EXPECT_TRUE(result.ok()) << scenario.name << ": " << result.unexpected[0].message;
    const bool tokened = scenario.protocol == GetParam().fenced;
    EXPECT_EQ(Kinds(result.verdict).contains("stale_token_accepted"), !tokened) << scenario.name;
    if (tokened || GetParam().fenced.empty()) continue;
    runner::SetScenarioProtocol(scenario, GetParam().fenced);
    const RunResult fenced = runner::RunScenario(scenario, 1);
    for (const char* stale : {"stale_token_write", "stale_token_accepted", "dual_writer"}) {
      EXPECT_FALSE(Kinds(fenced.verdict).contains(stale)) << scenario.name << " fenced: " << stale;
    }
  }
}

// On the replicated store ("kv": {"replicated": true}, docs/SCENARIOS.md):
// one leader settles, through a crash of the store's own leader (two of
// three replicas carry on) and of the design's leader after it.
TEST_P(DesignRules, RunsOnTheReplicatedStoreThroughAStoreLeaderCrash) {
  if (!GetParam().replicated_applies) GTEST_SKIP() << "Redlock's five Redis instances are independent, not replicas";
  std::string error;
  const Scenario scenario = runner::testing::FirstScenario(
      runner::testing::ReplicatedScenarioJson(
          R"("protocol": ")" + GetParam().protocol + R"(", "kv": {"replicated": true},
             "faults": [{"at_ms": 15000, "kind": "replica_crash", "replica": "store_leader"},
                        {"at_ms": 35000, "kind": "crash", "node": "leader"}])"),
      error);
  ASSERT_EQ(error, "");
  EXPECT_TRUE(scenario.kv.replicated);
  const RunResult result = runner::RunScenario(scenario, 1, {.keep_history = true});
  EXPECT_TRUE(result.verdict.violations.empty()) << result.verdict.violations[0].message;
  EXPECT_GE(LeaderNodes(result.history).size(), 2u);
  EXPECT_GT(result.figures.at("kv_ops"), 0);
  EXPECT_GE(result.figures.at("settlements_applied"), 6);
}

// A protocol needing one etcd gets the replicated store by itself in a
// world whose store is replicated; ZooKeeper and Redis keep their servers.
TEST_P(DesignRules, TakesTheReplicatedStoreForItsEtcdOnlyByItself) {
  std::string error;
  const Scenario scenario = runner::testing::FirstScenario(
      runner::testing::ReplicatedScenarioJson(R"("protocol": ")" + GetParam().protocol + R"(")"), error);
  ASSERT_EQ(error, "");
  const bool etcd = GetParam().protocol == "kube-lease" || GetParam().protocol == "etcd-election";
  EXPECT_EQ(scenario.kv.replicated, etcd);
  EXPECT_EQ(scenario.kv.hosts(), etcd ? 0 : scenario.kv.servers);
}

// scenarios/designs/replicated.json: the documented failures on the Raft
// store (Jepsen's etcd 3.4.3 setting) and a store failover, each with the
// violations its "expect" names and only those.
TEST(DesignsOnTheReplicatedStore, TheScenarioFileReplays) {
  const std::vector<Scenario> scenarios = testing::ParseSourceFile("scenarios/designs/replicated.json");
  ASSERT_EQ(scenarios.size(), 5u);
  for (const Scenario& scenario : scenarios) {
    EXPECT_TRUE(scenario.kv.replicated) << scenario.name;
    const RunResult result = runner::RunScenario(scenario, 1);
    EXPECT_TRUE(result.ok()) << scenario.name << ": " << result.unexpected[0].message;
    EXPECT_GT(result.figures.at("kv_ops"), 0) << scenario.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryDesign, DesignRules,
    ::testing::Values(
        DesignCase{"kube-lease", "kube-lease-fenced", "1000", "scenarios/designs/kube_lease.json", 27'000, true},
        DesignCase{"etcd-election", "etcd-election-fenced", "1000", "scenarios/designs/etcd_election.json", 26'000,
                   true},
        DesignCase{"redlock", "", "200", "scenarios/designs/redlock.json", 20'000, false},
        DesignCase{"zk-election", "zk-election-fenced", "1000", "scenarios/designs/zk_election.json", 26'666, true}),
    CaseName);

}  // namespace
}  // namespace leasesim::designs
