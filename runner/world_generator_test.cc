#include "runner/world_generator.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/timing.h"
#include "runner/run.h"
#include "runner/fault_generator.h"

namespace leasesim::runner {
namespace {

TEST(WorldGenerator, EveryTimingItDrawsObeysEveryRule) {
  PrngDraw draw(7);
  std::map<Nanos, int> leases;
  for (int i = 0; i < 5000; ++i) {
    const core::TimingConfig timing = GenerateTiming(draw);
    EXPECT_TRUE(core::ValidateTiming(timing).empty()) << i;
    leases[timing.lease_duration] += 1;
  }
  EXPECT_GE(leases.size(), 6u) << "the draw should span short and long leases";
}

TEST(WorldGenerator, SameSeedSameWorld) {
  const Scenario a = GenerateWorld(42);
  const Scenario b = GenerateWorld(42);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.duration, b.duration);
  EXPECT_EQ(a.timing.lease_duration, b.timing.lease_duration);
  EXPECT_EQ(a.clocks.size(), b.clocks.size());
  EXPECT_EQ(RunScenario(a, 42).trace_hash, RunScenario(b, 42).trace_hash);
}

// With no fault at all, whatever world is drawn, the correct protocol
// shows no violation: the world generator alone must not raise alarms.
TEST(WorldGenerator, TheCorrectProtocolPassesInFaultFreeWorlds) {
  std::map<std::string, int> kinds;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    const RunResult result = RunScenario(GenerateWorld(seed), seed);
    for (const checker::Violation& violation : result.unexpected) {
      if (kinds[violation.kind]++ == 0) ADD_FAILURE() << "seed " << seed << ": " << violation.kind << ": " << violation.message;
    }
  }
  EXPECT_TRUE(kinds.empty());
}

}  // namespace
}  // namespace leasesim::runner
