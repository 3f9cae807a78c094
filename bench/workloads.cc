#include "bench/workloads.h"

#include <functional>
#include <string>
#include <utility>
#include <variant>

#include <boost/context/fiber.hpp>

#include "base/prng.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "sim/world.h"

namespace leasesim::bench {

runner::Scenario StandardScenario() {
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

std::int64_t RunStandardHour(const runner::Scenario& scenario, std::uint64_t seed) {
  const runner::RunResult result = runner::RunScenario(scenario, seed);
  if (!result.ok()) return -1;
  return result.figures.at("sim_events");
}

void RunEventLoop(int pending, int events) {
  sim::World world(1, false);
  base::Prng prng(7);
  int remaining = events;
  std::function<void()> tick;
  tick = [&] {
    if (--remaining <= 0) return;
    world.At(world.now() + prng.UniformRange(1, 1'000'000), [&] { tick(); });
  };
  for (int i = 0; i < pending; ++i) world.At(prng.UniformRange(0, 1'000'000), [&] { tick(); });
  world.RunUntil(sim::Seconds(1'000'000));
}

void RunRawContextRoundTrips(std::int64_t trips) {
  namespace ctx = boost::context;
  bool stop = false;
  ctx::fiber fiber([&stop](ctx::fiber&& caller) {
    while (!stop) caller = std::move(caller).resume();
    return std::move(caller);
  });
  for (std::int64_t i = 0; i < trips; ++i) fiber = std::move(fiber).resume();
  stop = true;
  fiber = std::move(fiber).resume();
}

}  // namespace leasesim::bench
