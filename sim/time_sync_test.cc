#include "sim/time_sync.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace leasesim::sim {
namespace {

constexpr Nanos kReference = Seconds(1'000'000);

HostId AddNode(World& world, std::int64_t drift_ppm) {
  const HostId host = world.AddHost({.name = "n", .monotonic_start = Seconds(7), .wall_start = kReference,
                                     .drift_ppm = drift_ppm});
  world.Start(host);
  return host;
}

Nanos Offset(const World& world, HostId host) { return world.WallNow(host) - (kReference + world.now()); }

// A node whose oscillator runs 50% fast: NTP keeps its wall clock within one
// poll's worth of drift of true time by stepping it back, while its
// monotonic clock drifts on — the wall clock no longer betrays the drift.
TEST(TimeSync, StepsAWildlyDriftingWallClockBackAndLeavesMonotonicAlone) {
  World world(1, false);
  const HostId host = AddNode(world, 500'000);
  TimeSync sync(world, host, kReference, {.poll = Seconds(1)});
  sync.Start();
  world.RunUntil(Millis(20'500));
  EXPECT_EQ(sync.steps(), 20);
  EXPECT_LE(std::llabs(Offset(world, host)), Millis(250) + 1);
  EXPECT_EQ(world.MonotonicNow(host) - Seconds(7), Millis(30'750));
}

// Within the kernel's reach (here 100 ppm) offsets stay under the step
// threshold and are slewed away, so the wall clock never jumps.
TEST(TimeSync, SlewsSmallOffsetsWithoutAStep) {
  World world(1, false);
  const HostId host = AddNode(world, 100);
  TimeSync sync(world, host, kReference, {.poll = Seconds(16)});
  sync.Start();
  world.RunUntil(Seconds(600));
  EXPECT_EQ(sync.steps(), 0);
  EXPECT_GT(sync.slews(), 0);
  EXPECT_LT(std::llabs(Offset(world, host)), Millis(2));
}

TEST(TimeSync, AManualStepIsUndoneAtTheNextPollAndNotWhileTheHostIsStopped) {
  World world(1, false);
  const HostId host = AddNode(world, 0);
  TimeSync sync(world, host, kReference, {.poll = Seconds(1)});
  sync.Start();
  world.At(Millis(1'500), [&] { world.StepWall(host, -Seconds(5)); });
  world.At(Millis(1'600), [&] { world.Pause(host); });
  world.At(Millis(4'600), [&] { world.Unpause(host); });
  world.RunUntil(Millis(4'500));
  EXPECT_EQ(Offset(world, host), -Seconds(5)) << "a paused host's daemon does not run";
  world.RunUntil(Millis(5'500));
  EXPECT_EQ(Offset(world, host), 0);
  EXPECT_EQ(sync.steps(), 1);
}

TEST(TimeSync, OffByDefault) {
  World world(1, false);
  const HostId host = AddNode(world, 500'000);
  TimeSync sync(world, host, kReference, {});
  sync.Start();
  world.RunUntil(Seconds(10));
  EXPECT_EQ(Offset(world, host), Seconds(5));
}

}  // namespace
}  // namespace leasesim::sim
