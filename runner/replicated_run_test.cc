// Whole runs on the replicated store: the checker's linearizability check
// passes on its histories under faults (and the store's own applied order
// proves it, without a search), while the unsafe read mode is caught.

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "checker/applied_order_check.h"
#include "checker/checker.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "runner/test_scenarios.h"

namespace leasesim::runner {
namespace {

const Scenario& RegionsScenario(const std::string& name) {
  static const ScenarioFile file = [] {
    const char* root = std::getenv("LEASESIM_SOURCE_DIR");
    const std::string path = std::string(root == nullptr ? "." : root) + "/scenarios/regions.json";
    auto parsed = LoadScenarioFile(path);
    if (!std::holds_alternative<ScenarioFile>(parsed)) {
      ADD_FAILURE() << std::get<base::InputError>(parsed).ToString();
      return ScenarioFile{};
    }
    return std::get<ScenarioFile>(parsed);
  }();
  for (const Scenario& scenario : file.scenarios) {
    if (scenario.name == name) return scenario;
  }
  ADD_FAILURE() << "no scenario " << name;
  static const Scenario none;
  return none;
}

std::set<std::string> Kinds(const RunResult& result) {
  std::set<std::string> kinds;
  for (const checker::Violation& violation : result.verdict.violations) kinds.insert(violation.kind);
  return kinds;
}

TEST(ReplicatedRun, LinearizableUnderStoreFaultsAndTheAppliedOrderProvesIt) {
  for (const char* name : {"store-leader-crash-during-renewal", "store-leader-and-holder-minority", "region-isolated",
                           "three-regions-holder-far", "stale-read-replica-campaign-linearizable"}) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      const RunResult result = RunScenario(RegionsScenario(name), seed, {.keep_history = true});
      EXPECT_TRUE(result.verdict.violations.empty())
          << name << " seed " << seed << ": " << result.verdict.violations.front().message;
      const checker::AppliedOrderResult order = checker::CheckAppliedOrder(result.history.store_ops);
      EXPECT_EQ(order.verdict, checker::AppliedOrderVerdict::kConsistent)
          << name << " seed " << seed << ": " << order.explanation;
      // The black-box search agrees with the recorded order.
      checker::CheckOptions options;
      options.store.cross_check = true;
      EXPECT_TRUE(checker::CheckHistory(result.history, options).violations.empty()) << name << " seed " << seed;
      EXPECT_GT(result.figures.at("store_leaders_elected"), 0);
    }
  }
}

TEST(ReplicatedRun, TheStoreLeaderCrashIsSeenAsLatencyNotAsALostWrite) {
  const RunResult result = RunScenario(RegionsScenario("store-leader-crash-during-renewal"), 1, {.keep_history = true});
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(result.figures.at("store_failovers"), 2);
  EXPECT_EQ(result.figures.at("leader_terms"), 1);  // the lease survived both store failovers
  EXPECT_GT(result.figures.at("store_client_unavailable_ms_max"), 0);
  EXPECT_GT(result.figures.at("store_election_ms_max"), 0);
}

TEST(ReplicatedRun, UnsafeReadsAreCaughtAndWithAReadTrustingProtocolMakeADualLeader) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const RunResult result = RunScenario(RegionsScenario("stale-read-replica-campaign-unsafe"), seed);
    const std::set<std::string> kinds = Kinds(result);
    EXPECT_TRUE(kinds.contains("not_linearizable")) << "seed " << seed;
    EXPECT_TRUE(kinds.contains("lease_overlap")) << "seed " << seed;
    EXPECT_GT(result.figures.at("store_stale_reads"), 0);
  }
}

TEST(ReplicatedRun, UnsafeReadsAreCaughtButCompareAndSetKeepsTheCorrectProtocolSafe) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    const RunResult result = RunScenario(RegionsScenario("stale-read-replica-campaign-correct-unsafe"), seed);
    EXPECT_EQ(Kinds(result), std::set<std::string>{"not_linearizable"}) << "seed " << seed;
  }
}

// With a majority of its replicas down the store answers nothing: the run
// records that as a fault lasting until a restart brings the quorum back,
// so no recovery is asked of the lease before then.
TEST(ReplicatedRun, AStoreWithoutAQuorumIsAFaultUntilTheQuorumReturns) {
  auto parsed = ParseScenarioText("r.json", testing::ReplicatedScenarioJson(R"("faults": [
      {"at_ms": 10000, "kind": "replica_crash", "replica": 1},
      {"at_ms": 12000, "kind": "replica_crash", "replica": 2},
      {"at_ms": 20000, "kind": "replica_restart", "replica": 2},
      {"at_ms": 30000, "kind": "replica_restart", "replica": 1}])"));
  ASSERT_TRUE(std::holds_alternative<ScenarioFile>(parsed)) << std::get<base::InputError>(parsed).ToString();
  const RunResult result = RunScenario(std::get<ScenarioFile>(parsed).scenarios.at(0), 1, {.keep_history = true});
  std::vector<std::pair<checker::TimeNs, checker::TimeNs>> lost;
  for (const checker::FaultRecord& fault : result.history.faults) {
    if (fault.kind == "store_quorum_lost") lost.emplace_back(fault.start_ns, fault.end_ns);
  }
  using Spans = std::vector<std::pair<checker::TimeNs, checker::TimeNs>>;
  EXPECT_EQ(lost, (Spans{{12'000 * sim::kNanosPerMilli, 20'000 * sim::kNanosPerMilli}}));
}

TEST(ReplicatedRun, TheSameSeedGivesTheSameTrace) {
  const Scenario& scenario = RegionsScenario("region-isolated");
  EXPECT_EQ(RunScenario(scenario, 5).trace_hash, RunScenario(scenario, 5).trace_hash);
  EXPECT_NE(RunScenario(scenario, 5).trace_hash, RunScenario(scenario, 6).trace_hash);
}

TEST(ReplicatedRun, TheParserRefusesStoreFaultsThatDoNotFit) {
  const std::string replicated = R"("store": {"kind": "replicated", "replicas": 3, "latency_ms": {"base": 1, "jitter": 1}})";
  auto error_of = [](const std::string& text) {
    auto parsed = ParseScenarioText("t.json", text);
    return std::holds_alternative<base::InputError>(parsed) ? std::get<base::InputError>(parsed).ToString() : std::string();
  };
  // A replica fault needs a replicated store.
  EXPECT_NE(error_of(testing::ScenarioJson(R"("faults": [{"at_ms": 1000, "kind": "replica_crash", "replica": 1}])"))
                .find("needs a store of kind \"replicated\""),
            std::string::npos);
  // A replicated store has no single "store" host to partition.
  std::string text = testing::ScenarioJson(R"("faults": [{"at_ms": 1000, "kind": "partition", "groups": [[1], ["store"]], "duration_ms": 100}])");
  text.replace(text.find(R"("store": {"kind": "linearizable")"), std::string(R"("store": {"kind": "linearizable", "latency_ms": {"base": 2, "jitter": 3}})").size(), replicated);
  EXPECT_NE(error_of(text).find("name them"), std::string::npos) << error_of(text);
  // Replica numbers are checked against the store.
  text = testing::ScenarioJson(R"("faults": [{"at_ms": 1000, "kind": "replica_crash", "replica": 5}])");
  text.replace(text.find(R"("store": {"kind": "linearizable")"), std::string(R"("store": {"kind": "linearizable", "latency_ms": {"base": 2, "jitter": 3}})").size(), replicated);
  EXPECT_NE(error_of(text).find("the store has 3"), std::string::npos) << error_of(text);
  // A region must be declared.
  text = testing::ScenarioJson(R"("regions": {"names": ["a", "b"], "within_ms": {"base": 1}, "nodes": ["a", "b", "c"]})");
  EXPECT_NE(error_of(text).find("gives no latency between a and b"), std::string::npos) << error_of(text);
}

}  // namespace
}  // namespace leasesim::runner
