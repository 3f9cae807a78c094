#pragma once
// What a service that runs its job under the lease relies on, besides
// mutual exclusion: the leader callbacks tell it the truth, in order and in
// time, and its metrics and health endpoint never say it leads when it
// cannot. Judged on the callback and metric records a protocol reports
// (History::callbacks, History::metrics); a protocol that reports none is
// not judged on them. docs/CHECKER.md states each rule and its allowances.

#include "checker/history.h"
#include "checker/history_index.h"
#include "checker/verdict.h"

namespace leasesim::checker {

// callback_order: a leadership reported started twice, stopped without
// being started, started while the process held no lease in its term, or a
// job step of a term never started. callback_late: a leadership reported
// started or stopped later than assumptions.callback_bound_ns (plus the
// pause budget) after its lease began or ended, or never. job_after_stop: a
// job step of a term after that term's stop. new_leader_not_holder:
// on_new_leader named a process no lease record named around then.
void CheckLeaderCallbacks(const History& history, Verdict& verdict);
void CheckLeaderCallbacks(const HistoryIndex& index, Verdict& verdict);

// leader_gauge_stale: a leader answer (the is_leader gauge, /healthz's
// healthz_leading) said 1 at an instant its process held no valid lease,
// outside a pause of its host. metric_regressed: the term gauge went back
// or a counter (a name ending in _total) decreased within one process.
void CheckServiceMetrics(const History& history, Verdict& verdict);

}  // namespace leasesim::checker
