// Speed of the simulator's hot paths, each beside a baseline measured in the
// same binary so figures read as ratios: the event loop, a fiber switch
// through sim::Fiber against a raw Boost.Context resume round trip, and whole
// scenario runs (simulated seconds per wall second).

#include <benchmark/benchmark.h>

#include <boost/context/fiber.hpp>

#include "bench/workloads.h"
#include "sim/fiber.h"
#include "sim/world.h"

namespace leasesim {
namespace {

// Steady state: `pending` events in the queue, each one scheduling the next
// at a pseudo-random later time, as timers and messages do in a run. With
// 1,000 pending this is the in-run baseline's event (bench/workloads.h).
void BM_EventLoop(benchmark::State& state) {
  const int pending = static_cast<int>(state.range(0));
  const int events = 200'000;
  for (auto _ : state) bench::RunEventLoop(pending, events);
  state.SetItemsProcessed(state.iterations() * events);
}
BENCHMARK(BM_EventLoop)->Arg(16)->Arg(1'000)->Arg(100'000);

void BM_RawBoostContextRoundTrip(benchmark::State& state) {
  namespace ctx = boost::context;
  bool stop = false;
  ctx::fiber fiber([&stop](ctx::fiber&& caller) {
    while (!stop) caller = std::move(caller).resume();
    return std::move(caller);
  });
  for (auto _ : state) fiber = std::move(fiber).resume();
  stop = true;
  fiber = std::move(fiber).resume();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RawBoostContextRoundTrip);

void BM_SimFiberRoundTrip(benchmark::State& state) {
  sim::StackPool pool(64 * 1024);
  bool stop = false;
  sim::Fiber* self = nullptr;
  sim::Fiber fiber(pool, [&] {
    while (!stop) self->Suspend();
  });
  self = &fiber;
  for (auto _ : state) fiber.Resume();
  stop = true;
  fiber.Resume();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SimFiberRoundTrip);

void BM_WorldSleepWake(benchmark::State& state) {
  // A fiber sleeping on its node's clock: timer event + resume + suspend.
  const int wakes = 10'000;
  for (auto _ : state) {
    sim::World world(1, false);
    const sim::HostId host = world.AddHost({.name = "n"});
    world.Start(host);
    world.Spawn(host, [&] {
      for (int i = 1; i <= wakes; ++i) world.SleepUntilLocal(i * sim::kNanosPerMilli);
    });
    world.RunUntil(sim::Seconds(100));
  }
  state.SetItemsProcessed(state.iterations() * wakes);
}
BENCHMARK(BM_WorldSleepWake);

void BM_StandardScenarioHour(benchmark::State& state) {
  const runner::Scenario scenario = bench::StandardScenario();
  std::uint64_t seed = 1;
  std::int64_t events = 0;
  for (auto _ : state) {
    const std::int64_t ran = bench::RunStandardHour(scenario, seed++);
    if (ran < 0) state.SkipWithError("the standard scenario found a violation");
    events += ran;
  }
  // items = simulated seconds, so items/s reads as the speed-up over real time.
  state.SetItemsProcessed(state.iterations() * 3600);
  state.counters["sim_events_per_run"] = benchmark::Counter(static_cast<double>(events) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_StandardScenarioHour)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace leasesim

BENCHMARK_MAIN();
