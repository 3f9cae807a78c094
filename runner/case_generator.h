#pragma once
// A case of the generic search: a whole world (runner/world_generator.h)
// and a fault script from the one fault generator (runner/fault_generator.h),
// every choice taken from one choice source, nothing aimed at any mistake.
// Per case it also draws whether every fault stays within the protocol's
// stated assumptions (then two leaders at once is itself a violation) or
// may go beyond them (then fencing, exactly-once and term uniqueness must
// still hold), whether faults are timed by protocol state, and whether
// BUGGIFY-style scheduler hiccups strike at fault points. `leasesim fuzz`,
// `leasesim zoo --generic` and the generated-run sweep all draw from here.

#include <cstddef>
#include <string>

#include "runner/scenario.h"
#include "runner/world_generator.h"

namespace leasesim::runner {

class FaultDraw;

struct CaseLimits {
  WorldLimits world;
  int faults_max = 8;
};

// A scenario named "generated", running `protocol` (a registered name). Its first
// choice decides the mode (Percent(50): beyond the assumptions), and every
// later choice is drawn alike in both modes, so flipping that one choice
// asks whether what a case found beyond the assumptions happens within them.
inline constexpr std::size_t kModeChoice = 0;
Scenario GenerateCase(FaultDraw& draw, const std::string& protocol, const CaseLimits& limits = {});

}  // namespace leasesim::runner
