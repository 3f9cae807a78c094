// Strikes timed by protocol state (at_point with arrival and
// lease_remaining_below_ms, for any kind) and BUGGIFY hiccups.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "base/units.h"
#include "core/fault_points.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "runner/test_scenarios.h"

namespace leasesim::runner {
namespace {

using testing::ParsedScenario;
using testing::ScenarioErrorOf;
using testing::ScenarioJson;

using base::Millis;

// The fault records of one kind.
std::vector<checker::FaultRecord> Records(const RunResult& result, const std::string& kind) {
  std::vector<checker::FaultRecord> records;
  for (const checker::FaultRecord& record : result.history.faults) {
    if (record.kind == kind) records.push_back(record);
  }
  return records;
}

// When the host reached before_renew (the only point whose name has 12
// characters: the trace keeps the name's length), at or after `from`.
std::vector<Nanos> BeforeRenewArrivals(const RunResult& result, int host, Nanos from) {
  std::vector<Nanos> times;
  for (const sim::TraceEvent& event : result.trace) {
    if (std::string_view(event.kind) == "fault_point" && event.host == host && event.a == static_cast<std::int64_t>(core::FaultPoint::kBeforeRenew) && event.time >= from) {
      times.push_back(event.time);
    }
  }
  return times;
}

const RunOptions kKeep{.retain_trace = true, .keep_history = true};

// The host of the node that believed it led at `t` (nodes are hosts 0..N-1).
int LeaderHostAt(const RunResult& result, Nanos t) {
  for (const checker::LeadershipBelief& belief : result.history.beliefs) {
    if (belief.from_ns <= t && t < belief.until_ns) return belief.node - 1;
  }
  ADD_FAILURE() << "no leader at " << t;
  return -1;
}

RunResult RunArmedPause(int arrival) {
  const Scenario scenario = ParsedScenario(ScenarioJson(R"("faults": [{"at_ms": 15000, "kind": "pause", "node": "leader",
      "duration_ms": 100, "at_point": "before_renew", "arrival": )" + std::to_string(arrival) + "}]"));
  return RunScenario(scenario, 5, kKeep);
}

TEST(TimedStrikes, ArrivalKStrikesOnTheKthArrivalAfterArming) {
  // A run where the armed pause never strikes shows when the leader arrives.
  const RunResult reference = RunArmedPause(1000);
  ASSERT_TRUE(Records(reference, "pause").at(0).description.starts_with("never struck"));
  const std::vector<Nanos> arrivals =
      BeforeRenewArrivals(reference, LeaderHostAt(reference, sim::Seconds(15)), sim::Seconds(15));
  ASSERT_GE(arrivals.size(), 4u);
  for (int k : {1, 2, 3}) {
    const RunResult run = RunArmedPause(k);
    const std::vector<checker::FaultRecord> pauses = Records(run, "pause");
    ASSERT_EQ(pauses.size(), 1u) << "arrival " << k;
    EXPECT_EQ(pauses[0].at_point, "before_renew");
    // Nothing differs from the reference until the strike.
    EXPECT_EQ(pauses[0].start_ns, arrivals[static_cast<std::size_t>(k - 1)]) << "arrival " << k;
  }
}

TEST(TimedStrikes, AnArmedFaultThatNeverQualifiesIsLoggedAsNeverStruck) {
  const Scenario scenario = ParsedScenario(ScenarioJson(R"("faults": [{"at_ms": 15000, "kind": "pause", "node": "leader",
      "duration_ms": 100, "at_point": "before_renew", "arrival": 1000}])"));
  const RunResult result = RunScenario(scenario, 5, {.keep_history = true});
  const std::vector<checker::FaultRecord> pauses = Records(result, "pause");
  ASSERT_EQ(pauses.size(), 1u);
  EXPECT_TRUE(pauses[0].description.starts_with("never struck")) << pauses[0].description;
}

// The leader's renewals fail from 20 s on (cut off from the store), so the
// lease it believes it has (renew_deadline, 7 s, from each renewal's send)
// runs down, one retry a second, to its deadline. Renewing normally it has
// about 4 s left at each before_renew.
RunResult RunShortLeaseStrike(bool cut_off) {
  const std::string cut = cut_off ? R"({"at_ms": 20000, "kind": "isolate_from_store", "node": "leader", "duration_ms": 30000},)" : "";
  const Scenario scenario = ParsedScenario(ScenarioJson(R"("faults": [)" + cut + R"(
      {"at_ms": 15000, "kind": "store_latency", "extra_ms": 50, "duration_ms": 100,
       "at_point": "before_renew", "node": "leader", "lease_remaining_below_ms": 2500}])"));
  return RunScenario(scenario, 7, kKeep);
}

TEST(TimedStrikes, LeaseRemainingBelowStrikesOnlyWhenTheLeaseIsShort) {
  const RunResult healthy = RunShortLeaseStrike(false);
  const std::vector<checker::FaultRecord> unstruck = Records(healthy, "store_latency");
  ASSERT_EQ(unstruck.size(), 1u);
  EXPECT_TRUE(unstruck[0].description.starts_with("never struck")) << unstruck[0].description;

  const RunResult failing = RunShortLeaseStrike(true);
  const std::vector<checker::FaultRecord> struck = Records(failing, "store_latency");
  ASSERT_EQ(struck.size(), 1u);
  EXPECT_EQ(struck[0].description, "+50 ms per request at before_renew");
  EXPECT_TRUE(struck[0].nodes.empty());  // a store fault: the leader only triggered it
  // The belief the leader held when cut off ends at its own deadline.
  const auto belief = std::find_if(failing.history.beliefs.begin(), failing.history.beliefs.end(),
                                   [](const checker::LeadershipBelief& b) { return b.from_ns < sim::Seconds(20); });
  ASSERT_NE(belief, failing.history.beliefs.end());
  const Nanos left = belief->until_ns - struck[0].start_ns;
  EXPECT_LT(left, Millis(2500));
  EXPECT_GT(left, Millis(1000));  // the first short arrival (retries come a second apart), not a later one
}

TEST(TimedStrikes, AnyKindArmedAtAPointStrikesWhenTheLeaderGetsThere) {
  const Scenario scenario = ParsedScenario(ScenarioJson(R"("faults": [{"at_ms": 15000, "kind": "partition_oneway",
      "from": ["store"], "to": ["leader"], "duration_ms": 2000, "at_point": "before_renew"}])"));
  const RunResult result = RunScenario(scenario, 5, kKeep);
  const std::vector<checker::FaultRecord> cuts = Records(result, "partition_oneway");
  ASSERT_EQ(cuts.size(), 1u);
  EXPECT_EQ(cuts[0].at_point, "before_renew");
  const std::vector<Nanos> arrivals = BeforeRenewArrivals(result, LeaderHostAt(result, sim::Seconds(15)), sim::Seconds(15));
  ASSERT_FALSE(arrivals.empty());
  EXPECT_EQ(cuts[0].start_ns, arrivals.front());
}

std::string BuggifyScenario(const std::string& buggify) {
  return ScenarioJson(R"("faults": [{"at_ms": 20000, "kind": "crash", "node": "leader"},
      {"at_ms": 21000, "kind": "restart", "node": 1}, {"at_ms": 21000, "kind": "restart", "node": 2},
      {"at_ms": 21000, "kind": "restart", "node": 3}])" + (buggify.empty() ? "" : ", " + buggify));
}

TEST(Buggify, OnChangesTheTraceAndRecordsPausesAtPoints) {
  const RunResult off = RunScenario(ParsedScenario(BuggifyScenario("")), 3, {.keep_history = true});
  const RunResult on = RunScenario(ParsedScenario(BuggifyScenario(R"("buggify": {"probability": 0.2, "delay_ms_max": 300})")), 3,
                                   {.keep_history = true});
  EXPECT_NE(on.trace_hash, off.trace_hash);
  EXPECT_TRUE(Records(off, "pause").empty());
  const std::vector<checker::FaultRecord> hiccups = Records(on, "pause");
  ASSERT_FALSE(hiccups.empty());
  for (const checker::FaultRecord& hiccup : hiccups) {
    EXPECT_TRUE(hiccup.description.starts_with("buggify hiccup at ")) << hiccup.description;
    EXPECT_FALSE(hiccup.at_point.empty());
    EXPECT_GE(hiccup.end_ns - hiccup.start_ns, Millis(1));
    EXPECT_LE(hiccup.end_ns - hiccup.start_ns, Millis(300));
    EXPECT_FALSE(hiccup.within_assumptions);  // this scenario promises no pause budget
  }
  EXPECT_EQ(on.trace_hash, RunScenario(ParsedScenario(BuggifyScenario(R"("buggify": {"probability": 0.2, "delay_ms_max": 300})")),
                                       3).trace_hash);
}

TEST(Buggify, HiccupsWithinThePauseBudgetAreWithinTheAssumptions) {
  std::string text = BuggifyScenario(R"("buggify": {"probability": 0.2, "delay_ms_max": 3000})");
  text.replace(text.find("\"safety_margin_ms\": 500}"), 24, "\"safety_margin_ms\": 500, \"pause_budget_ms\": 2000}");
  const RunResult result = RunScenario(ParsedScenario(text), 3, {.keep_history = true});
  int within = 0;
  int beyond = 0;
  // Back-to-back stops of a node are one stop as it sees it: judged by the
  // whole stretch (records come in strike order).
  std::map<int, std::pair<Nanos, Nanos>> stretch;  // node -> [from, until]
  for (const checker::FaultRecord& hiccup : Records(result, "pause")) {
    auto& [from, until] = stretch[hiccup.nodes.at(0)];
    if (hiccup.start_ns > until) from = hiccup.start_ns;
    until = std::max(until, hiccup.end_ns);
    const bool short_enough = until - from <= Millis(2000);
    EXPECT_EQ(hiccup.within_assumptions, short_enough);
    (short_enough ? within : beyond) += 1;
  }
  EXPECT_GT(within, 0);
  EXPECT_GT(beyond, 0);
}

TEST(Buggify, OffLeavesTheTraceIdentical) {
  const std::uint64_t without = RunScenario(ParsedScenario(BuggifyScenario("")), 3).trace_hash;
  const std::uint64_t zero = RunScenario(ParsedScenario(BuggifyScenario(R"("buggify": {"probability": 0, "delay_ms_max": 300})")), 3)
                                 .trace_hash;
  EXPECT_EQ(without, zero);
}

TEST(TimedStrikes, NewFieldsAreParsedStrictly) {
  auto fault = [](const std::string& body) {
    return ScenarioErrorOf(ScenarioJson(R"("faults": [{"at_ms": 5000, )" + body + "}]"));
  };
  EXPECT_NE(fault(R"("kind": "pause", "node": 1, "duration_ms": 5, "arrival": 2)")
                .find("faults[0].arrival: needs at_point"), std::string::npos);
  EXPECT_NE(fault(R"("kind": "pause", "node": 1, "duration_ms": 5, "at_point": "before_renew", "arrival": 0)")
                .find("faults[0].arrival: must be in [1, 1000000]"), std::string::npos);
  EXPECT_NE(fault(R"("kind": "crash", "node": 1, "at_point": "before_renew", "lease_remaining_below_ms": 0)")
                .find("faults[0].lease_remaining_below_ms: must be in [1, "), std::string::npos);
  EXPECT_NE(fault(R"("kind": "crash", "node": 1, "lease_remaining_below_ms": 10)")
                .find("faults[0].lease_remaining_below_ms: needs at_point"), std::string::npos);
  EXPECT_NE(fault(R"("kind": "restart", "node": 1, "at_point": "before_renew")")
                .find("faults[0].at_point: a restart cannot strike at a fault point"), std::string::npos);
  EXPECT_NE(fault(R"("kind": "store_latency", "extra_ms": 5, "duration_ms": 5, "node": 1)")
                .find("faults[0].node: a store_latency fault takes a node only with at_point"), std::string::npos);
  EXPECT_NE(fault(R"("kind": "store_latency", "extra_ms": 5, "duration_ms": 5, "at_point": "nowhere")")
                .find("faults[0].at_point: unknown fault point \"nowhere\" (known: "), std::string::npos);
  auto buggify = [](const std::string& body) { return ScenarioErrorOf(ScenarioJson(R"("buggify": {)" + body + "}")); };
  EXPECT_NE(buggify(R"("probability": 1.5, "delay_ms_max": 10)").find("buggify.probability: must be a probability"),
            std::string::npos);
  EXPECT_NE(buggify(R"("probability": 0.1)").find("buggify.delay_ms_max: is required"), std::string::npos);
  EXPECT_NE(buggify(R"("probability": 0.1, "delay_ms_max": 0)").find("buggify.delay_ms_max: must be in [1, "),
            std::string::npos);
  EXPECT_NE(buggify(R"("probability": 0.1, "delay_ms_max": 5, "seed": 3)").find("buggify.seed: is not a known field"),
            std::string::npos);
}

}  // namespace
}  // namespace leasesim::runner
