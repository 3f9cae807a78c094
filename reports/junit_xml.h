#pragma once
// junit.xml: a sweep in the form CI systems read (Ant/Jenkins JUnit XML):
// <testsuites> holds one <testsuite> per scenario, which holds one
// <testcase> per seed (properties seed, trace_hash, replay; a file
// attribute; system-out pointing into report.html); a failing run's testcase
// carries a <failure> with the first unexpected violation as its message,
// every violation and the replay command as its text. The file's suite-level
// requirements form one more <testsuite name="suite requirements">, a
// testcase per requirement (skipped in a shard: merge judges them). No wall-clock times, so the file is a pure function of
// the sweep (identical for --jobs N, sharded+merged, and reruns).

#include <cstddef>
#include <string>

#include "reports/run_summary.h"
#include "reports/sweep_totals.h"

namespace leasesim::reports {

// How many suite-level requirements (require_fault_points, require_probes)
// fail: 0 when unjudged (a shard) or all met.
int SuiteFailures(const SuiteRequirements& suite);

std::string JunitXml(const SweepSummary& sweep);

// The same document in pieces, for writing it run by run: JunitOpen, then
// per scenario JunitSuiteOpen, its runs' testcases and kJunitSuiteClose,
// then JunitClose. `header`: the sweep's fields (its runs are not read);
// `failing_index`: how many failing runs precede this one in sweep order.
std::string JunitOpen(const SweepSummary& header, const SweepTotals& sweep);
std::string JunitSuiteOpen(const SweepSummary& header, const SweepTotals& sweep, std::size_t scenario_index);
std::string JunitTestcase(const std::string& scenario_file, const RunSummary& run, std::size_t failing_index);
inline constexpr const char* kJunitSuiteClose = "  </testsuite>\n";
std::string JunitClose(const SweepSummary& header, const SweepTotals& sweep);

}  // namespace leasesim::reports
