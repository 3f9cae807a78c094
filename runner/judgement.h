#pragma once
// Judgement of a finished run: the assumptions the protocol states (from
// the scenario's timing), the checker's verdict on the recorded history,
// which violations the scenario expected, the fault points it required,
// and the run's figures.

#include "runner/run.h"
#include "runner/run_world.h"

namespace leasesim::runner {

// Hands the world's history to the checker; the world's run must be over.
RunResult Judge(RunWorld& world, const RunOptions& options);

}  // namespace leasesim::runner
