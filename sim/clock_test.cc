#include "sim/clock.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

namespace leasesim::sim {
namespace {

constexpr Nanos kWallStart = Seconds(1'700'000'000);  // a realistic CLOCK_REALTIME

// What each clock reads, as Linux would show it to the node.
struct Readings {
  Nanos monotonic;
  Nanos boot;
  Nanos wall;
};
Readings Read(const NodeClock& clock, Nanos true_now) {
  return {clock.Monotonic(true_now), clock.Boot(true_now), clock.Wall(true_now)};
}

TEST(NodeClock, DriftMovesMonotonicBootAndWallAlike) {
  // +1000 ppm over 1 s of true time: every clock the node has reads 1.001 s later.
  NodeClock fast(Seconds(100), kWallStart, 1000);
  const Readings at = Read(fast, Seconds(1));
  EXPECT_EQ(at.monotonic, Seconds(100) + Seconds(1) + Millis(1));
  EXPECT_EQ(at.boot, Seconds(100) + Seconds(1) + Millis(1));
  EXPECT_EQ(at.wall, kWallStart + Seconds(1) + Millis(1));
  NodeClock slow(Seconds(100), kWallStart, -1000);
  EXPECT_EQ(slow.Monotonic(Seconds(3600)), Seconds(100) + Seconds(3600) - Millis(3600));
  EXPECT_EQ(slow.Wall(Seconds(3600)), kWallStart + Seconds(3600) - Millis(3600));
}

TEST(NodeClock, ANodeCannotSeeItsDriftByComparingItsClocks) {
  NodeClock clock(Seconds(7), kWallStart, 250);
  const Nanos gap = kWallStart - Seconds(7);
  for (Nanos t = 0; t < Seconds(100); t += Seconds(1)) {
    if (t == Seconds(20)) clock.SetDriftPpm(t, -40'000);
    if (t == Seconds(50)) clock.Slew(t, -Millis(30), 500);
    EXPECT_EQ(clock.Wall(t) - clock.Monotonic(t), gap) << "at true " << t;
  }
}

TEST(NodeClock, InverseFindsTheTrueInstant) {
  NodeClock clock(Seconds(5), 0, 300);
  const Nanos local = Seconds(5) + Seconds(10);
  const Nanos when = clock.TrueTimeAtMonotonic(local);
  EXPECT_GE(clock.Monotonic(when), local);
  EXPECT_LT(clock.Monotonic(when - 1), local);
}

TEST(NodeClock, AStepMovesTheWallClockOnly) {
  NodeClock clock(Seconds(3), kWallStart, 0);
  const Readings before = Read(clock, Seconds(1));
  clock.StepWall(-Seconds(30));  // an NTP step backwards
  Readings after = Read(clock, Seconds(1));
  EXPECT_EQ(after.wall, before.wall - Seconds(30));
  EXPECT_EQ(after.monotonic, before.monotonic);
  EXPECT_EQ(after.boot, before.boot);
  clock.StepWall(Seconds(60));
  after = Read(clock, Seconds(1));
  EXPECT_EQ(after.wall, before.wall + Seconds(30));
  EXPECT_EQ(after.monotonic, before.monotonic);
}

TEST(NodeClock, ASlewAdvancesMonotonicAndWallByTheCorrection) {
  // adjtime(+50 ms) at 500 ppm: absorbed over 100 s, on both clocks.
  NodeClock clock(Seconds(5), kWallStart, 0);
  const Nanos gap = clock.Wall(0) - clock.Monotonic(0);
  clock.Slew(0, Millis(50), 500);
  EXPECT_EQ(clock.Monotonic(Seconds(50)), Seconds(5) + Seconds(50) + Millis(25));
  EXPECT_EQ(clock.Monotonic(Seconds(100)), Seconds(5) + Seconds(100) + Millis(50));
  EXPECT_EQ(clock.Monotonic(Seconds(200)), Seconds(5) + Seconds(200) + Millis(50));
  EXPECT_EQ(clock.Wall(Seconds(200)), kWallStart + Seconds(200) + Millis(50));
  EXPECT_EQ(clock.Boot(Seconds(200)), clock.Monotonic(Seconds(200)));
  EXPECT_EQ(clock.Wall(Seconds(50)) - clock.Monotonic(Seconds(50)), gap);
  EXPECT_EQ(clock.Wall(Seconds(200)) - clock.Monotonic(Seconds(200)), gap);
}

TEST(NodeClock, ANegativeSlewHoldsBothClocksBack) {
  NodeClock clock(0, kWallStart, 0);
  clock.Slew(0, -Millis(50), 500);
  EXPECT_EQ(clock.Monotonic(Seconds(100)), Seconds(100) - Millis(50));
  EXPECT_EQ(clock.Monotonic(Seconds(300)), Seconds(300) - Millis(50));
  EXPECT_EQ(clock.Wall(Seconds(300)), kWallStart + Seconds(300) - Millis(50));
}

TEST(NodeClock, ASlewAddsToTheDrift) {
  // 1000 ppm drift + 500 ppm slew for 100 s, then the drift alone.
  NodeClock clock(0, 0, 1000);
  clock.Slew(0, Millis(50), 500);
  EXPECT_EQ(clock.Monotonic(Seconds(100)), Seconds(100) + Millis(150));
  EXPECT_EQ(clock.Monotonic(Seconds(200)), Seconds(200) + Millis(250));
}

TEST(NodeClock, ANewSlewReplacesTheRemainderAndZeroCancels) {
  NodeClock replaced(0, 0, 0);
  replaced.Slew(0, Millis(50), 500);
  replaced.Slew(Seconds(40), Millis(10), 500);  // 20 ms absorbed so far; 30 ms dropped
  EXPECT_EQ(replaced.Monotonic(Seconds(200)), Seconds(200) + Millis(30));
  NodeClock cancelled(0, 0, 0);
  cancelled.Slew(0, Millis(50), 500);
  cancelled.Slew(Seconds(40), 0, 500);
  EXPECT_EQ(cancelled.Monotonic(Seconds(200)), Seconds(200) + Millis(20));
}

TEST(NodeClock, ADriftChangeKeepsARunningSlew) {
  NodeClock clock(0, 0, 0);
  clock.Slew(0, Millis(50), 500);
  clock.SetDriftPpm(Seconds(40), 1000);
  // 40 s at 500 ppm, 60 s at 1500 ppm, then 100 s at 1000 ppm.
  EXPECT_EQ(clock.Monotonic(Seconds(100)), Seconds(100) + Millis(20) + Millis(90));
  EXPECT_EQ(clock.Monotonic(Seconds(200)), Seconds(200) + Millis(210));
}

TEST(NodeClock, AThreeSecondSuspendJumpsBootAndWallButNotMonotonic) {
  NodeClock clock(Seconds(100), kWallStart, 1000);
  clock.Freeze(Seconds(10));
  clock.Unfreeze(Seconds(13));
  const Readings before = Read(clock, Seconds(10));
  const Readings after = Read(clock, Seconds(13));
  EXPECT_EQ(before.monotonic, Seconds(110) + Millis(10));
  EXPECT_EQ(after.monotonic, before.monotonic);
  EXPECT_EQ(after.boot, before.boot + Seconds(3));
  EXPECT_EQ(after.wall, before.wall + Seconds(3));
  EXPECT_EQ(clock.Monotonic(Seconds(14)), after.monotonic + Seconds(1) + Millis(1));
}

TEST(NodeClock, SuspendStopsTheMonotonicClockButNotTheWallClock) {
  NodeClock clock(0, Seconds(1'000'000), 0);
  clock.Freeze(Seconds(10));
  EXPECT_TRUE(clock.frozen());
  EXPECT_EQ(clock.Monotonic(Seconds(25)), Seconds(10));
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(11)), kNeverNanos);
  EXPECT_EQ(clock.Wall(Seconds(25)), Seconds(1'000'025));
  clock.Unfreeze(Seconds(30));
  EXPECT_EQ(clock.Monotonic(Seconds(31)), Seconds(11));
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(11)), Seconds(31));
  // The past stays exact: the clock read 10 s from true 10 s to 30 s.
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(5)), Seconds(5));
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(10)), Seconds(10));
}

TEST(NodeClock, ASlewPausesWhileSuspended) {
  NodeClock clock(0, 0, 0);
  clock.Slew(0, Millis(50), 500);
  clock.Freeze(Seconds(40));  // 20 ms absorbed
  clock.Unfreeze(Seconds(43));
  EXPECT_EQ(clock.Monotonic(Seconds(103)), Seconds(100) + Millis(50));
  EXPECT_EQ(clock.Boot(Seconds(103)), Seconds(103) + Millis(50));
  EXPECT_EQ(clock.Monotonic(Seconds(203)), Seconds(200) + Millis(50));
}

TEST(NodeClock, TimersFireExactlyAcrossASlewsEnd) {
  NodeClock clock(0, 0, 0);
  clock.Slew(0, Millis(50), 500);
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(50) + Millis(25)), Seconds(50));
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(100) + Millis(50)), Seconds(100));
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(100) + Millis(50) + 1), Seconds(100) + 1);
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(150) + Millis(50)), Seconds(150));
}

TEST(NodeClock, TimersWaitOutASuspend) {
  NodeClock clock(0, 0, 0);
  clock.Freeze(Seconds(10));
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(12)), kNeverNanos);
  clock.Unfreeze(Seconds(13));
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(12)), Seconds(15));
  EXPECT_EQ(clock.TrueTimeAtMonotonic(Seconds(9)), Seconds(9));
}

// A lease deadline on CLOCK_BOOTTIME passes at its true instant even while
// the node is suspended (CLOCK_MONOTONIC's would not), and after a resume.
TEST(NodeClock, BootDeadlinesPassDuringAndAfterASuspend) {
  NodeClock clock(Seconds(100), 0, 1000);
  clock.Freeze(Seconds(10));
  const Nanos at_freeze = clock.Boot(Seconds(10));
  EXPECT_EQ(clock.TrueTimeAtBoot(at_freeze + Seconds(2)), Seconds(12));  // boot runs on while frozen
  clock.Unfreeze(Seconds(13));
  EXPECT_EQ(clock.TrueTimeAtBoot(at_freeze + Seconds(2)), Seconds(12));  // the past stays exact
  EXPECT_EQ(clock.TrueTimeAtBoot(at_freeze), Seconds(10));
  // After the resume boot drifts with the oscillator: +1000 ppm.
  const Nanos later = clock.Boot(Seconds(13)) + Seconds(1) + Millis(1);
  EXPECT_EQ(clock.TrueTimeAtBoot(later), Seconds(14));
  EXPECT_EQ(clock.Boot(clock.TrueTimeAtBoot(later)), later);
  EXPECT_LT(clock.Boot(clock.TrueTimeAtBoot(later) - 1), later);
}

TEST(NodeClock, ChangesAtTheSameInstantReplaceEachOther) {
  NodeClock clock(0, 0, 0);
  clock.SetDriftPpm(Seconds(1), 100'000);
  clock.SetDriftPpm(Seconds(1), -100'000);
  EXPECT_EQ(clock.Monotonic(Seconds(11)), Seconds(10));
  EXPECT_EQ(clock.drift_ppm(), -100'000);
}

// Runs a RapidCheck property on a fixed seed, so every run checks the same cases.
template <typename Property>
void CheckOnSeed(std::uint64_t seed, Property property) {
  rc::detail::TestParams params;
  params.seed = seed;
  params.maxSuccess = 200;
  const auto result = rc::detail::checkTestable(std::move(property), rc::detail::TestMetadata{}, params);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  EXPECT_TRUE(result.template is<rc::detail::SuccessResult>()) << message.str();
}

// A test-side model of the suspend and step history, for the property below.
struct History {
  bool frozen = false;
  Nanos frozen_since = 0;
  Nanos suspended = 0;  // completed suspends
  Nanos steps = 0;
  Nanos SuspendedAt(Nanos t) const { return suspended + (frozen ? t - frozen_since : 0); }
};

struct Sample {
  Nanos t;
  Nanos monotonic;
  Nanos boot;
};

// Checks what a node could observe at true time t against the model.
void CheckAt(const NodeClock& clock, const History& history, Nanos t, std::vector<Sample>& samples) {
  const Readings now = Read(clock, t);
  if (!samples.empty()) {
    RC_ASSERT(now.monotonic >= samples.back().monotonic);
    RC_ASSERT(now.boot >= samples.back().boot);
    if (history.frozen && samples.back().t >= history.frozen_since) {
      RC_ASSERT(now.monotonic == samples.back().monotonic);
    }
  }
  const Nanos gap = kWallStart - Seconds(9);
  RC_ASSERT(now.boot - now.monotonic == history.SuspendedAt(t));
  RC_ASSERT(now.wall - now.monotonic == gap + history.steps + history.SuspendedAt(t));
  const Nanos back = clock.TrueTimeAtMonotonic(now.monotonic);
  RC_ASSERT(back <= t);
  RC_ASSERT(clock.Monotonic(back) >= now.monotonic);
  const Nanos ahead = now.monotonic + Millis(1500) + 1;
  const Nanos when = clock.TrueTimeAtMonotonic(ahead);
  if (history.frozen) {
    RC_ASSERT(when == kNeverNanos);
  } else {
    RC_ASSERT(when > t);
    RC_ASSERT(clock.Monotonic(when) >= ahead);
    RC_ASSERT(clock.Monotonic(when - 1) < ahead);
  }
  // The boot clock's inverse is exact and tight, frozen or not.
  const Nanos boot_back = clock.TrueTimeAtBoot(now.boot);
  RC_ASSERT(boot_back <= t);
  RC_ASSERT(clock.Boot(boot_back) >= now.boot);
  const Nanos boot_ahead = now.boot + Millis(1500) + 1;
  const Nanos boot_when = clock.TrueTimeAtBoot(boot_ahead);
  RC_ASSERT(boot_when > t);
  RC_ASSERT(clock.Boot(boot_when) >= boot_ahead);
  RC_ASSERT(clock.Boot(boot_when - 1) < boot_ahead);
  samples.push_back(Sample{t, now.monotonic, now.boot});
}

using Op = std::tuple<std::uint8_t, std::uint16_t, std::int32_t>;  // kind, gap ms, argument

void Apply(NodeClock& clock, History& history, Nanos t, std::uint8_t kind, std::int32_t argument) {
  switch (kind % 5) {
    case 0:
      clock.SetDriftPpm(t, argument % 100'001);
      break;
    case 1: {
      const std::int64_t rate = 1 + (argument < 0 ? -(argument % 500) : argument % 500);
      clock.Slew(t, argument, rate);  // up to about ±2.1 s
      break;
    }
    case 2:
      clock.StepWall(Nanos{argument} * 1000);
      history.steps += Nanos{argument} * 1000;
      break;
    case 3:
      if (history.frozen) {
        clock.Unfreeze(t);
        history.suspended += t - history.frozen_since;
      } else {
        clock.Freeze(t);
        history.frozen_since = t;
      }
      history.frozen = !history.frozen;
      break;
    default:
      break;  // time just passes
  }
}

TEST(NodeClockProperty, RandomHistoriesKeepTheClocksConsistent) {
  CheckOnSeed(20'240'512, [](const std::vector<Op>& ops, std::int16_t drift) {
    NodeClock clock(Seconds(9), kWallStart, drift);
    History history;
    std::vector<Sample> samples;
    Nanos t = 0;
    for (const auto& [kind, gap_ms, argument] : ops) {
      const Nanos next = t + Millis(gap_ms);
      CheckAt(clock, history, t + (next - t) / 2, samples);
      t = next;
      CheckAt(clock, history, t, samples);
      Apply(clock, history, t, kind, argument);
      CheckAt(clock, history, t, samples);
    }
    CheckAt(clock, history, t + Seconds(500), samples);
    // Later changes never rewrite what the clocks read earlier.
    for (const Sample& sample : samples) {
      RC_ASSERT(clock.Monotonic(sample.t) == sample.monotonic);
      RC_ASSERT(clock.Boot(sample.t) == sample.boot);
    }
  });
}

TEST(NodeClockProperty, MonotonicNeverGoesBackAndInverseIsTight) {
  CheckOnSeed(7'919, [](std::int16_t drift_a, std::int16_t drift_b, std::uint32_t change_ms) {
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
      const Nanos boot = clock.Boot(t);
      const Nanos boot_back = clock.TrueTimeAtBoot(boot);
      RC_ASSERT(boot_back <= t);
      RC_ASSERT(clock.Boot(boot_back) >= boot);
    }
  });
}

}  // namespace
}  // namespace leasesim::sim
