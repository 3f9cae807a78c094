#pragma once
// Integer time. True time is the one global virtual clock of a simulation;
// local times are what a node's own clocks read. Both are nanoseconds, in
// the project's one unit vocabulary (base/units.h).

#include "base/units.h"

namespace leasesim::sim {

using base::kNanosPerMicro;
using base::kNanosPerMilli;
using base::kNanosPerSecond;
using base::kNeverNanos;
using base::Millis;
using base::Nanos;
using base::Seconds;

}  // namespace leasesim::sim
