// Speed of the simulator's hot paths, each beside a baseline measured in the
// same binary so figures read as ratios: the event loop, a fiber switch
// through sim::Fiber against a raw Boost.Context resume round trip, and whole
// scenario runs (simulated seconds per wall second).

#include <benchmark/benchmark.h>

#include <boost/context/fiber.hpp>

#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "sim/fiber.h"
#include "sim/world.h"

namespace leasesim {
namespace {

// Steady state: `pending` events in the queue, each one scheduling the next
// at a pseudo-random later time, as timers and messages do in a run.
void BM_EventLoop(benchmark::State& state) {
  const int pending = static_cast<int>(state.range(0));
  const int events = 200'000;
  for (auto _ : state) {
    sim::World world(1, false);
    sim::Prng prng(7);
    int remaining = events;
    std::function<void()> tick;
    tick = [&] {
      if (--remaining <= 0) return;
      world.At(world.now() + prng.UniformRange(1, 1'000'000), [&] { tick(); });
    };
    for (int i = 0; i < pending; ++i) world.At(prng.UniformRange(0, 1'000'000), [&] { tick(); });
    world.RunUntil(sim::Seconds(1'000'000));
  }
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

runner::Scenario StandardScenario() {
  // 5 nodes, one simulated hour, renewal every second, settlement every 5 s,
  // a leader crash and restart every 10 minutes.
  std::string faults;
  for (int minute = 5; minute < 60; minute += 10) {
    if (!faults.empty()) faults += ",";
    faults += R"({"at_ms": )" + std::to_string(minute * 60'000) + R"(, "kind": "crash", "node": "leader"})";
    for (int node = 1; node <= 5; ++node) {
      faults += R"(,{"at_ms": )" + std::to_string(minute * 60'000 + 20'000) + R"(, "kind": "restart", "node": )" +
                std::to_string(node) + "}";
    }
  }
  const std::string text = R"({"scenarios": [{"name": "standard", "nodes": 5, "duration_ms": 3600000,
    "lease": {"duration_ms": 4000, "renew_interval_ms": 1000, "renew_deadline_ms": 3000,
              "retry_ms": 500, "request_timeout_ms": 500, "drift_bound_ppm": 1000, "safety_margin_ms": 200},
    "settlement": {"period_ms": 5000, "batch_items": 4},
    "store": {"kind": "linearizable", "latency_ms": {"base": 2, "jitter": 3, "tail_p": 0.01, "tail": 100}},
    "network": {"latency_ms": {"base": 1, "jitter": 2}, "loss": 0.001},
    "faults": [)" + faults + "]}]}";
  auto parsed = runner::ParseScenarioText("standard", text);
  return std::get<runner::ScenarioFile>(parsed).scenarios.at(0);
}

void BM_StandardScenarioHour(benchmark::State& state) {
  const runner::Scenario scenario = StandardScenario();
  std::uint64_t seed = 1;
  std::int64_t events = 0;
  for (auto _ : state) {
    const runner::RunResult result = runner::RunScenario(scenario, seed++);
    if (!result.ok()) state.SkipWithError("the standard scenario found a violation");
    events += result.figures.at("sim_events");
  }
  // items = simulated seconds, so items/s reads as the speed-up over real time.
  state.SetItemsProcessed(state.iterations() * 3600);
  state.counters["sim_events_per_run"] = benchmark::Counter(static_cast<double>(events) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_StandardScenarioHour)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace leasesim

BENCHMARK_MAIN();
