#pragma once
// A simulated server's service time for one request, drawn from its own
// PRNG: the latency model's base, jitter and rare tail. Shared by the
// simulated servers so each draws the same way.

#include "sim/network.h"
#include "sim/prng.h"

namespace leasesim::backends {

inline sim::Nanos DrawService(sim::Prng& prng, const sim::LatencyModel& model) {
  sim::Nanos latency = model.base_ns;
  if (model.jitter_ns > 0) latency += prng.UniformRange(0, model.jitter_ns);
  if (model.tail_ppm > 0 && prng.ChancePpm(model.tail_ppm)) latency += prng.UniformRange(0, model.tail_ns);
  return latency;
}

}  // namespace leasesim::backends
