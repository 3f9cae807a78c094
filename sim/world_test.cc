#include "sim/world.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace leasesim::sim {
namespace {

TEST(World, EventsRunInTimeThenSequenceOrder) {
  World world(1, false);
  std::vector<int> order;
  world.At(Millis(5), [&] { order.push_back(2); });
  world.At(Millis(1), [&] { order.push_back(0); });
  world.At(Millis(5), [&] { order.push_back(3); });
  world.At(Millis(1), [&] { order.push_back(1); });
  world.RunUntil(Seconds(1));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(world.now(), Seconds(1));
}

TEST(World, SleepFollowsTheNodesOwnDriftingClock) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n", .monotonic_start = Seconds(50), .drift_ppm = -100'000});
  Nanos woke = -1;
  world.Start(host);
  world.Spawn(host, [&] {
    world.SleepUntilLocal(world.clock(host).Monotonic(world.now()) + Seconds(9));
    woke = world.now();
  });
  world.RunUntil(Seconds(20));
  // 9 s on a clock running 10% slow take 10 s of true time.
  EXPECT_EQ(woke, Seconds(10));
}

TEST(World, APausedNodesTimerFiresLate) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  world.Start(host);
  Nanos woke = -1;
  world.Spawn(host, [&] {
    world.SleepUntilLocal(Seconds(1));
    woke = world.now();
  });
  world.At(Millis(500), [&] { world.Pause(host); });
  world.At(Seconds(4), [&] { world.Unpause(host); });
  world.RunUntil(Seconds(10));
  EXPECT_EQ(woke, Seconds(4));
  // A pause does not stop the clock.
  EXPECT_EQ(world.clock(host).Monotonic(Seconds(4)), Seconds(4));
}

TEST(World, ASuspendedNodesMonotonicClockStandsStill) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  world.Start(host);
  Nanos woke = -1;
  Nanos local_at_wake = -1;
  world.Spawn(host, [&] {
    world.SleepUntilLocal(Seconds(2));
    woke = world.now();
    local_at_wake = world.clock(host).Monotonic(world.now());
  });
  world.At(Seconds(1), [&] { world.Suspend(host); });
  world.At(Seconds(6), [&] { world.Unsuspend(host); });
  world.RunUntil(Seconds(10));
  // 1 s ran before the suspend, 5 s stood still, the remaining 1 s after.
  EXPECT_EQ(woke, Seconds(7));
  EXPECT_EQ(local_at_wake, Seconds(2));
}

TEST(World, ASuspendJumpsBootAndWallButNotMonotonic) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n", .monotonic_start = Seconds(100), .wall_start = Seconds(5000)});
  world.Start(host);
  std::vector<Nanos> seen;  // monotonic, boot, wall as the node reads them after waking
  world.Spawn(host, [&] {
    world.SleepUntilLocal(Seconds(102));
    seen = {world.MonotonicNow(host), world.BootNow(host), world.WallNow(host)};
  });
  world.At(Seconds(1), [&] { world.Suspend(host); });
  world.At(Seconds(4), [&] { world.Unsuspend(host); });
  world.RunUntil(Seconds(10));
  // 1 s ran, 3 s suspended, 1 s more: CLOCK_MONOTONIC saw 2 s, the others 5 s.
  EXPECT_EQ(seen, (std::vector<Nanos>{Seconds(102), Seconds(105), Seconds(5005)}));
}

TEST(World, TimersFollowASlew) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  world.Start(host);
  world.Slew(host, Millis(50), 500);  // +50 ms over the first 100 s
  Nanos woke = -1;
  world.Spawn(host, [&] {
    world.SleepUntilLocal(Seconds(150) + Millis(50));
    woke = world.now();
  });
  world.RunUntil(Seconds(200));
  EXPECT_EQ(woke, Seconds(150));
}

// A timer fires when the clock reads its deadline, as timerfd does, however
// the clock's rate changed after it was armed (issue 30): sooner when the
// clock speeds up, later when it slows down, in the order the timers were armed.
TEST(World, ARateChangeMovesTheTimersAlreadyArmed) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  world.Start(host);
  std::vector<std::pair<std::string, Nanos>> woke;
  for (const char* name : {"first", "second"}) {
    world.Spawn(host, [&, name] {
      world.SleepUntilLocal(Seconds(10));
      woke.emplace_back(name, world.now());
    });
  }
  Nanos slow_woke = -1;
  world.Spawn(host, [&] {
    world.SleepUntilLocal(Seconds(40));
    slow_woke = world.now();
  });
  // 10% fast from 1 s: the 9 s left on the clock take 9 / 1.1 s, rounded up.
  world.At(Seconds(1), [&] { world.SetDriftPpm(host, 100'000); });
  // Half speed from the clock's 20 s on: the 20 s left take 40 s.
  world.At(world.clock(host).TrueTimeAtMonotonic(Seconds(20)), [&] { world.SetDriftPpm(host, -500'000); });
  world.RunUntil(Seconds(100));
  const Nanos fast = Seconds(1) + (Seconds(9) * 1'000'000 + 1'099'999) / 1'100'000;
  using Woke = std::vector<std::pair<std::string, Nanos>>;
  EXPECT_EQ(woke, (Woke{{"first", fast}, {"second", fast}}));
  EXPECT_EQ(world.clock(host).Monotonic(fast), Seconds(10));
  EXPECT_EQ(world.clock(host).Monotonic(slow_woke), Seconds(40));
  EXPECT_LT(world.clock(host).Monotonic(slow_woke - 1), Seconds(40));
}

TEST(World, ASlewStartedAfterArmingMovesTheTimer) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  world.Start(host);
  Nanos woke = -1;
  world.Spawn(host, [&] {
    world.SleepUntilLocal(Seconds(150) + Millis(50));
    woke = world.now();
  });
  world.At(0, [&] { world.Slew(host, Millis(50), 500); });  // +50 ms over the first 100 s
  world.RunUntil(Seconds(200));
  EXPECT_EQ(woke, Seconds(150));
}

// Moving the timers keeps their kinds apart: a wait's timeout stays a
// timeout, a signal still wins, a crashed incarnation's timer stays dead,
// and the cancelled entries are not counted as events.
TEST(World, ARateChangeKeepsWaitsAndIncarnationsApart) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  std::vector<std::string> log;
  auto waiter = [&](std::uint64_t incarnation, bool signal) {
    const WaitToken token = world.PrepareWait();
    if (signal) world.At(world.now() + Seconds(1), [&, token] { world.Signal(token); });
    const bool signalled = world.Wait(token, world.MonotonicNow(host) + Seconds(4));
    log.push_back(std::to_string(incarnation) + (signalled ? " signalled at " : " timed out at ") +
                  std::to_string(world.now() / kNanosPerMilli));
  };
  world.SetBoot(host, [&](HostId id, std::uint64_t incarnation) {
    world.Spawn(id, [&, incarnation] { waiter(incarnation, incarnation == 2); });
    if (incarnation == 2) world.Spawn(id, [&] { waiter(2, false); });
    return std::make_unique<ProcessState>();
  });
  world.Start(host);
  // Incarnation 1's timeout, due at the clock's 4 s, dies with it at 2 s.
  world.At(Seconds(1), [&] { world.SetDriftPpm(host, 500'000); });
  world.At(Seconds(2), [&] {
    world.Crash(host);
    world.Restart(host);
  });
  // Incarnation 2 armed its timeouts for the clock's 6.5 s; at 2.5 s (the
  // clock at 3.25 s) the clock slows to half speed: 3.25 s left take 6.5 s.
  world.At(Seconds(2) + Millis(500), [&] { world.SetDriftPpm(host, -500'000); });
  world.RunUntil(Seconds(20));
  EXPECT_EQ(log, (std::vector<std::string>{"2 signalled at 3000", "2 timed out at 9000"}));
}

TEST(World, ACancelledTimerIsNoEvent) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  world.Start(host);
  world.Spawn(host, [&] { world.SleepUntilLocal(Seconds(10)); });
  world.At(Seconds(1), [&] { world.SetDriftPpm(host, 100'000); });
  world.At(Seconds(2), [&] { world.SetDriftPpm(host, -100'000); });
  world.RunUntil(Seconds(30));
  // The start, the two changes and one wake-up: the two entries the
  // changes cancelled pop unrun.
  EXPECT_EQ(world.events_processed(), 4u);
}

struct Counter : ProcessState {
  int* destroyed;
  explicit Counter(int* d) : destroyed(d) {}
  ~Counter() override { ++*destroyed; }
};

TEST(World, CrashLosesMemoryAndRestartBootsANewIncarnation) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  int destroyed = 0;
  std::vector<std::uint64_t> boots;
  int ran_after_crash = 0;
  world.SetBoot(host, [&](HostId id, std::uint64_t incarnation) {
    boots.push_back(incarnation);
    world.Spawn(id, [&, incarnation] {
      world.SleepUntilLocal(Seconds(5));
      if (incarnation == 1) ++ran_after_crash;
    });
    return std::make_unique<Counter>(&destroyed);
  });
  world.Start(host);
  world.At(Seconds(1), [&] { world.Crash(host); });
  world.At(Seconds(2), [&] { world.Restart(host); });
  world.RunUntil(Seconds(20));
  EXPECT_EQ(boots, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(destroyed, 1);
  EXPECT_EQ(ran_after_crash, 0);
}

TEST(World, ARestartKeepsTheMachinesClocks) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n", .monotonic_start = Seconds(100), .drift_ppm = 1000});
  world.Start(host);
  world.At(Seconds(1), [&] {
    world.StepWall(host, Seconds(30));
    world.Crash(host);
  });
  world.At(Seconds(2), [&] { world.Restart(host); });
  world.RunUntil(Seconds(10));
  EXPECT_EQ(world.incarnation(host), 2u);
  // The process is new; the machine's oscillator, boot time and NTP state are not.
  EXPECT_EQ(world.MonotonicNow(host), Seconds(110) + Millis(10));
  EXPECT_EQ(world.BootNow(host), Seconds(110) + Millis(10));
  EXPECT_EQ(world.WallNow(host), Seconds(40) + Millis(10));
  EXPECT_EQ(world.clock(host).drift_ppm(), 1000);
}

TEST(World, SignalWinsOverTimeoutAndStaleTimeoutsAreIgnored) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  world.Start(host);
  std::vector<std::string> log;
  world.Spawn(host, [&] {
    WaitToken token = world.PrepareWait();
    world.At(Millis(100), [&, token] { world.Signal(token); });
    log.push_back(world.Wait(token, Seconds(1)) ? "signalled" : "timeout");
    WaitToken second = world.PrepareWait();
    log.push_back(world.Wait(second, Millis(300)) ? "signalled" : "timeout");
    log.push_back(std::to_string(world.now() / kNanosPerMilli));
  });
  world.RunUntil(Seconds(5));
  EXPECT_EQ(log, (std::vector<std::string>{"signalled", "timeout", "300"}));
}

// A host with a drifting clock, paused and suspended for a while, whose
// fiber sleeps in 70 ms steps until a flag set at 1.234 s is seen; the
// steps either run in the scheduler (SleepInStepsLocal) or as the loop of
// sleeps they replace. Returns the wake-up instant, the looks taken and
// the events run.
std::vector<Nanos> SleepInSteps(bool in_scheduler) {
  World world(3, false);
  const HostId host = world.AddHost({.name = "n", .monotonic_start = Seconds(7), .drift_ppm = 31'000});
  world.Start(host);
  bool flag = false;
  Nanos looks = 0;
  Nanos woke = -1;
  world.At(Millis(300), [&] { world.Pause(host); });
  world.At(Millis(455), [&] { world.Unpause(host); });
  world.At(Millis(700), [&] { world.Suspend(host); });
  world.At(Millis(913), [&] { world.Unsuspend(host); });
  world.At(Millis(1234), [&] { flag = true; });
  world.Spawn(host, [&] {
    const Nanos step = Millis(70);
    const std::function<bool()> done = [&] { return ++looks, flag; };
    if (in_scheduler) {
      world.SleepInStepsLocal(step, done);
    } else {
      do {
        world.SleepUntilLocal(world.MonotonicNow(host) + step);
      } while (!done());
    }
    woke = world.now();
  });
  world.RunUntil(Seconds(3));
  return {woke, looks, static_cast<Nanos>(world.events_processed())};
}

TEST(World, StepsInTheSchedulerWakeWhenTheLoopOfSleepsWould) {
  const std::vector<Nanos> stepped = SleepInSteps(true);
  EXPECT_EQ(stepped, SleepInSteps(false));
  EXPECT_GT(stepped[0], Millis(1234));
  EXPECT_LT(stepped[0], Millis(1234) + Millis(80));
  EXPECT_GE(stepped[1], 10);
}

TEST(World, TheTimerOfASignalledWaitIsCancelledNotRun) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  world.Start(host);
  world.Spawn(host, [&] {
    const WaitToken token = world.PrepareWait();
    world.At(Millis(10), [&, token] { world.Signal(token); });
    EXPECT_TRUE(world.Wait(token, Seconds(1)));
  });
  world.RunUntil(Seconds(2));
  // The start, the signal's event and the wake-up; not the 1 s timer.
  EXPECT_EQ(world.events_processed(), 3u);
}

TEST(World, SameSeedSameTraceHash) {
  auto run = [](std::uint64_t seed) {
    World world(seed, false);
    base::Prng prng = world.MakePrng("test");
    for (int i = 0; i < 100; ++i) {
      const Nanos at = prng.UniformRange(0, Seconds(1));
      world.At(at, [&world, i] { world.trace().Record(world.now(), 0, "tick", i); });
    }
    world.RunUntil(Seconds(2));
    return world.trace().hash();
  };
  EXPECT_EQ(run(11), run(11));
  EXPECT_NE(run(11), run(12));
}

}  // namespace
}  // namespace leasesim::sim

namespace leasesim::sim {
namespace {
// A task that polls on its monotonic clock stops while the host is
// suspended and goes on polling after each resume.
TEST(World, APollingTaskGoesOnAfterEachSuspend) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n", .monotonic_start = Seconds(5)});
  world.Start(host);
  std::vector<Nanos> wakes;
  world.Spawn(host, [&] {
    for (int i = 0; i < 1000; ++i) {
      world.SleepUntilLocal(world.MonotonicNow(host) + Millis(110));
      wakes.push_back(world.now());
    }
  });
  world.At(Millis(355), [&] { world.Suspend(host); });
  world.At(Millis(2486), [&] { world.Unsuspend(host); });
  world.At(Millis(2936), [&] { world.Suspend(host); });
  world.At(Millis(7385), [&] { world.Unsuspend(host); });
  world.RunUntil(Seconds(8));
  int after = 0;
  for (Nanos t : wakes) after += t > Millis(2486) ? 1 : 0;
  EXPECT_GT(after, 3);
  int during = 0;
  for (Nanos t : wakes) during += (t > Millis(355) && t < Millis(2486)) || (t > Millis(2936) && t < Millis(7385)) ? 1 : 0;
  EXPECT_EQ(during, 0);
}
TEST(World, AtOnHostWaitsOutAPauseAndIsDroppedByACrash) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  world.Start(host);
  std::vector<Nanos> ran;
  world.At(Millis(5), [&] { world.Pause(host); });
  world.AtOnHost(Millis(10), host, 1, [&] { ran.push_back(world.now()); });
  world.At(Millis(30), [&] { world.Unpause(host); });
  world.AtOnHost(Millis(40), host, 1, [&] { ran.push_back(world.now()); });
  world.At(Millis(50), [&] {
    world.Crash(host);
    world.Restart(host);
  });
  world.AtOnHost(Millis(60), host, 1, [&] { ran.push_back(world.now()); });  // incarnation 1 is gone
  world.AtOnHost(Millis(70), host, 2, [&] { ran.push_back(world.now()); });
  world.RunUntil(Seconds(1));
  EXPECT_EQ(ran, (std::vector<Nanos>{Millis(30), Millis(40), Millis(70)}));
}

TEST(World, AWaitIsOpenUntilItReturnsAndClosedByACrash) {
  World world(1, false);
  const HostId host = world.AddHost({.name = "n"});
  world.Start(host);
  WaitToken first{};
  WaitToken second{};
  std::vector<bool> open;
  world.Spawn(host, [&] {
    first = world.PrepareWait();
    world.Wait(first, Millis(10));      // times out
    second = world.PrepareWait();
    world.Wait(second, Seconds(100));   // still waiting when the host crashes
  });
  world.At(Millis(5), [&] { open.push_back(world.WaitOpen(first)); });
  world.At(Millis(20), [&] {
    open.push_back(world.WaitOpen(first));
    open.push_back(world.WaitOpen(second));
    world.Crash(host);
    open.push_back(world.WaitOpen(second));
  });
  world.RunUntil(Seconds(1));
  EXPECT_EQ(open, (std::vector<bool>{true, false, true, false}));
}

}  // namespace
}  // namespace leasesim::sim
