#pragma once
// Liveness checks that only apply to runs whose faults healed in time: every
// due settlement window applied, and a leader back within the recovery bound.
// Both stay silent when the history does not leave room to judge fairly.

#include "checker/history.h"
#include "checker/verdict.h"

namespace leasesim::checker {

// A window that fell due is never applied, in a run whose last fault ended at
// least recovery_bound + 2 settlement periods before the end. Only windows
// due before end - recovery_bound - one period are judged (later ones may
// legitimately still be in flight).
void CheckMissedSettlements(const History& history, Verdict& verdict);

// After the last fault ended, no node holds a lease (a belief active at some
// instant) within assumptions.recovery_bound_ns. Judged only when faults
// exist, all ended, and the run lasted at least the bound past the last one.
void CheckSlowRecovery(const History& history, Verdict& verdict);

}  // namespace leasesim::checker
