#pragma once
// Judges a sweep's suite-level requirements (the file's
// require_fault_points and require_probes, recorded in the summary) over its
// runs. Only a whole sweep is judged: by `leasesim run` unsharded, or by
// `leasesim merge` once every shard is in; a shard never fails on them.

#include <map>
#include <string>
#include <vector>

#include "reports/run_summary.h"

namespace leasesim::runner {

// Fills sweep.suite's unmet lists from the runs' figures and marks it judged.
void JudgeSuite(reports::SweepSummary& sweep);
// The same over given figures instead of sweep.runs' (each map one run's,
// or any maps whose values are at least the runs' largest: a figure is
// positive in some run when it is positive in some map).
void JudgeSuite(reports::SweepSummary& sweep, const std::vector<const std::map<std::string, std::int64_t>*>& figures);

}  // namespace leasesim::runner
