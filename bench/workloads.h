#pragma once
// The benchmark's workloads as plain functions, so the Google Benchmark
// targets (sim_bench) and the regression guard (bench_ratio) measure the
// same code: the standard hour, and the in-run baseline it is judged
// against (an event through the world's queue, a raw fiber round trip).

#include <cstdint>

#include "runner/scenario.h"

namespace leasesim::bench {

// 5 nodes, one simulated hour, renewal every second, settlement every 5 s,
// a leader crash and restart every 10 minutes, 0.1% message loss.
runner::Scenario StandardScenario();

// One run of `scenario` for `seed`; returns the events it ran, or -1 when
// the run found a violation (the standard hour never does).
std::int64_t RunStandardHour(const runner::Scenario& scenario, std::uint64_t seed);

// The baseline event: `events` events through a world whose queue holds
// `pending` of them, each scheduling the next at a pseudo-random later time
// (as timers and messages do in a run) with a closure of one reference.
void RunEventLoop(int pending, int events);

// `trips` resume-and-suspend round trips of a raw Boost.Context fiber.
void RunRawContextRoundTrips(std::int64_t trips);

}  // namespace leasesim::bench
