#pragma once
// The settlement schedule's safety side: a window is settled only once it is
// over. missed_settlement (liveness_checks) is the other side, a window due
// and never applied.

#include "checker/history.h"
#include "checker/verdict.h"

namespace leasesim::checker {

// A write for window w sent before any reading of the writer's own wall
// clock had reached the window's end (assumptions.settlement_epoch_wall_ns
// + (w + 1) * settlement_period_ns). Judged on the writer's own readings, so
// no clock fault excuses it: a wall clock stepped back cannot un-see a
// reading, and one stepped ahead makes the window due by what the writer
// saw. Writes whose wall_seen_ns is unknown are skipped.
void CheckEarlySettlements(const History& history, Verdict& verdict);

}  // namespace leasesim::checker
