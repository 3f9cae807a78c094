#pragma once
// Judges a sweep's suite-level requirements (the file's
// require_fault_points and require_probes, recorded in the summary) over its
// runs. Only a whole sweep is judged: by `leasesim run` unsharded, or by
// `leasesim merge` once every shard is in; a shard never fails on them.

#include "reports/run_summary.h"

namespace leasesim::runner {

// Fills sweep.suite's unmet lists from the runs' figures and marks it judged.
void JudgeSuite(reports::SweepSummary& sweep);

}  // namespace leasesim::runner
