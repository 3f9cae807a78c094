#pragma once
// junit.xml: a sweep in the form CI systems read (Ant/Jenkins JUnit XML):
// <testsuites> holds one <testsuite> per scenario, which holds one
// <testcase> per seed; a failing run's testcase carries a <failure> with the
// first unexpected violation as its message, every violation and the replay
// command as its text. No wall-clock times, so the file is a pure function of
// the sweep (identical for --jobs N, sharded+merged, and reruns).

#include <string>

#include "reports/run_summary.h"
#include "reports/sweep_totals.h"

namespace leasesim::reports {

std::string JunitXml(const SweepSummary& sweep);

// The same document in pieces, for writing it run by run: JunitOpen, then
// per scenario JunitSuiteOpen, its runs' testcases and kJunitSuiteClose,
// then kJunitClose.
std::string JunitOpen(const SweepTotals& sweep);
std::string JunitSuiteOpen(const SweepTotals& sweep, std::size_t scenario_index);
std::string JunitTestcase(const RunSummary& run);
inline constexpr const char* kJunitSuiteClose = "  </testsuite>\n";
inline constexpr const char* kJunitClose = "</testsuites>\n";

}  // namespace leasesim::reports
