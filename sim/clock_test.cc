#include "sim/clock.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace leasesim::sim {
namespace {

TEST(NodeClock, DriftScalesElapsedTime) {
  NodeClock fast(Seconds(100), 0, 1000);   // +1000 ppm
  NodeClock slow(Seconds(100), 0, -1000);  // -1000 ppm
  EXPECT_EQ(fast.Monotonic(Seconds(1)), Seconds(100) + Seconds(1) + Millis(1));
  EXPECT_EQ(slow.Monotonic(Seconds(1)), Seconds(100) + Seconds(1) - Millis(1));
  EXPECT_EQ(fast.Monotonic(Seconds(3600)), Seconds(100) + Seconds(3600) + Millis(3600));
}

TEST(NodeClock, InverseFindsTheTrueInstant) {
  NodeClock clock(Seconds(5), 0, 300);
  const Nanos local = Seconds(5) + Seconds(10);
  const Nanos when = clock.TrueTimeAtMonotonic(local);
  EXPECT_GE(clock.Monotonic(when), local);
  EXPECT_LT(clock.Monotonic(when - 1), local);
}

TEST(NodeClock, SuspendStopsTheMonotonicClockButNotTheWallClock) {
  NodeClock clock(0, Seconds(1'000'000), 0);
  clock.Freeze(Seconds(10));
  EXPECT_EQ(clock.Monotonic(Seconds(25)), Seconds(10));
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(11)), kNeverNanos);
  EXPECT_EQ(clock.Wall(Seconds(25)), Seconds(1'000'025));
  clock.Unfreeze(Seconds(30));
  EXPECT_EQ(clock.Monotonic(Seconds(31)), Seconds(11));
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(11)), Seconds(31));
  // The past stays exact: the clock read 10 s from true 10 s to 30 s.
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(5)), Seconds(5));
}

TEST(NodeClock, WallStepsGoBothWays) {
  NodeClock clock(0, Seconds(1000), 0);
  clock.StepWall(-Seconds(30));
  EXPECT_EQ(clock.Wall(Seconds(1)), Seconds(971));
  clock.StepWall(Seconds(60));
  EXPECT_EQ(clock.Wall(Seconds(1)), Seconds(1031));
}

RC_GTEST_PROP(NodeClock, MonotonicNeverGoesBackAndInverseIsTight,
              (std::int16_t drift_a, std::int16_t drift_b, std::uint32_t change_ms)) {
  NodeClock clock(Seconds(7), 0, drift_a);
  const Nanos change = Millis(change_ms % 100'000);
  clock.SetDriftPpm(change, drift_b);
  Nanos previous = clock.Monotonic(0);
  for (Nanos t = 0; t < Seconds(200); t += Millis(7919)) {
    const Nanos local = clock.Monotonic(t);
    RC_ASSERT(local >= previous);
    previous = local;
    const Nanos back = clock.TrueTimeAtMonotonic(local);
    RC_ASSERT(back <= t);
    RC_ASSERT(clock.Monotonic(back) >= local);
  }
}

}  // namespace
}  // namespace leasesim::sim
