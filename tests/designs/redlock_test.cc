// What only redlock does, on small fixed-seed worlds: five Redis stores in
// its world, and one acquisition extended for the whole run. What every
// design does (one leader, a takeover after a crash, the documented
// failures of scenarios/designs/redlock.json) is in design_rules_test.cc.

#include "designs/redlock/redlock.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/designs/design_worlds.h"

namespace leasesim::designs {
namespace {

using runner::RunResult;
using runner::Scenario;
using testing::Parse;

std::string World(const std::string& faults) { return testing::World("redlock", "200", faults); }

TEST(Redlock, TheWorldOffersFiveRedisStores) {
  const std::vector<Scenario> scenarios = Parse("w.json", World(""));
  ASSERT_EQ(scenarios.size(), 1u);
  EXPECT_EQ(scenarios[0].kv.servers, 5);
  EXPECT_EQ(scenarios[0].kv.server.ttl_clock, backends::KvTtlClock::kWall);
}

// Extended by node-redlock's `using` every ttl - 500 ms: one acquisition,
// never lost, in a world without faults.
TEST(Redlock, TheHolderExtendsOneAcquisitionRatherThanAcquiringAgain) {
  const RunResult result = runner::RunScenario(Parse("w.json", World(""))[0], 1, {.keep_history = true});
  EXPECT_TRUE(result.verdict.violations.empty()) << result.verdict.violations[0].message;
  EXPECT_EQ(result.history.beliefs.size(), 1u);
  EXPECT_GE(result.figures.at("renewals_ok"), 5);
}

}  // namespace
}  // namespace leasesim::designs
