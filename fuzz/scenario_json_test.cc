// The scenario writer writes what the parser reads: parse(write(f)) == f for
// faults of every catalogue kind, armed or not, and the scenario fields the
// fault catalogue adds (nemesis.timed_strikes, buggify) survive the trip.

#include "fuzz/scenario_json.h"

#include <gtest/gtest.h>

#include <set>

#include "base/units.h"
#include "runner/fault_catalogue.h"
#include "runner/nemesis.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "runner/test_scenarios.h"

namespace leasesim::fuzz {
namespace {

using runner::Fault;
using runner::FaultKind;
using runner::Scenario;

Scenario Parse(const std::string& text) {
  auto parsed = runner::ParseScenarioText("t.json", text);
  if (!std::holds_alternative<runner::ScenarioFile>(parsed)) {
    ADD_FAILURE() << std::get<base::InputError>(parsed).ToString() << "\n" << text;
    return {};
  }
  return std::get<runner::ScenarioFile>(parsed).scenarios.at(0);
}

// Every drawable kind the scenario admits, drawn alone over some seeds
// (with timed strikes, so armed ones too).
std::vector<Fault> DrawEveryKind(Scenario scenario) {
  std::vector<Fault> faults;
  for (std::string_view kind : runner::NemesisKinds()) {
    scenario.nemesis = runner::NemesisConfig{.enabled = true, .faults_max = 3, .within_assumptions = false,
                                             .kinds = {std::string(kind)}, .swarm = false, .timed_strikes = true};
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      for (const Fault& fault : runner::GenerateNemesisFaults(scenario, seed)) faults.push_back(fault);
    }
  }
  return faults;
}

// Each armable kind once more, armed by hand with every arming field set.
void AddArmedCopies(std::vector<Fault>& faults) {
  std::set<FaultKind> done;
  const std::size_t drawn = faults.size();
  for (std::size_t i = 0; i < drawn; ++i) {
    const runner::FaultKindSpec& spec = runner::SpecOf(faults[i].kind);
    if (!spec.armable || !done.insert(spec.kind).second) continue;
    Fault armed = faults[i];
    armed.at_point = "after_cas_reply";
    armed.arrival = 4;
    armed.lease_remaining_below = base::Millis(2500);
    if (spec.target != runner::FaultTarget::kNode) armed.node = runner::NodeRef{.follower = true};
    faults.push_back(armed);
  }
}

std::vector<Fault> RoundTrip(Scenario scenario, const std::vector<Fault>& faults) {
  scenario.faults = faults;
  scenario.nemesis = {};
  return Parse(ScenarioFileText({scenario})).faults;
}

TEST(ScenarioJson, EveryKindArmedOrNotReadsBackAsWritten) {
  const Scenario plain = Parse(runner::testing::ScenarioJson());
  const Scenario replicated = Parse(runner::testing::ReplicatedScenarioJson());
  const Scenario with_kv = Parse(runner::testing::ScenarioJson(R"("kv": {"servers": 2, "ttl_clock": "wall"})"));
  std::set<FaultKind> kinds;
  for (const Scenario* world : {&plain, &replicated, &with_kv}) {
    std::vector<Fault> faults = DrawEveryKind(*world);
    AddArmedCopies(faults);
    for (const Fault& fault : faults) kinds.insert(fault.kind);
    const std::vector<Fault> read = RoundTrip(*world, faults);
    ASSERT_EQ(read.size(), faults.size());
    for (std::size_t i = 0; i < faults.size(); ++i) {
      EXPECT_TRUE(read[i] == faults[i]) << runner::FaultKindName(faults[i].kind) << ": wrote "
                                        << FaultToJson(faults[i], *world).dump() << ", read back "
                                        << FaultToJson(read[i], *world).dump();
    }
  }
  EXPECT_EQ(kinds.size(), static_cast<std::size_t>(runner::kFaultKindCount));
}

TEST(ScenarioJson, TimedStrikesAndBuggifyReadBackAsWritten) {
  Scenario scenario = Parse(runner::testing::ScenarioJson(
      R"("nemesis": {"faults_max": 3, "timed_strikes": true}, "buggify": {"probability": 0.05, "delay_ms_max": 40})"));
  EXPECT_TRUE(scenario.nemesis.timed_strikes);
  EXPECT_EQ(scenario.buggify.probability_ppm, 50'000u);
  EXPECT_EQ(scenario.buggify.delay_max, base::Millis(40));
  const Scenario again = Parse(ScenarioFileText({scenario}));
  EXPECT_TRUE(again.nemesis.timed_strikes);
  EXPECT_TRUE(again.buggify == scenario.buggify);
}

TEST(ScenarioJson, ANemesisScriptOnAReplicatedStoreReplaysTheSameRun) {
  Scenario scenario = Parse(runner::testing::ReplicatedScenarioJson(R"("nemesis": {"faults_max": 4, "timed_strikes": true})"));
  for (std::uint64_t seed : {2u, 9u}) {
    const Scenario replay = Parse(ScenarioFileText({runner::ExpandNemesis(scenario, seed)}));
    EXPECT_EQ(runner::RunScenario(replay, seed).trace_hash, runner::RunScenario(scenario, seed).trace_hash);
  }
}

}  // namespace
}  // namespace leasesim::fuzz
