#pragma once
// A simulated server's service time for one request, drawn from its own
// PRNG: the latency model's base, jitter and rare tail, drawn as the
// network draws a message's latency (sim::SampleLatency, the one
// definition). Shared by the simulated servers so each draws the same way.

#include "base/prng.h"
#include "sim/network.h"

namespace leasesim::backends {

inline sim::Nanos DrawService(base::Prng& prng, const sim::LatencyModel& model) {
  return sim::SampleLatency(prng, model);
}

}  // namespace leasesim::backends
