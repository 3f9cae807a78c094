#pragma once
// A sweep's report files written run by run, so that a sweep of any number
// of seeds holds only its totals (reports/sweep_totals.h) in memory: each
// run's summary.json entry and junit.xml testcase go to spool files in the
// output directory as the run arrives, and Finish() assembles the four
// files around them. The bytes are those WriteReports writes for the same
// runs (both are built from the same pieces).

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "reports/run_summary.h"
#include "reports/sweep_totals.h"
#include "reports/timeline.h"

namespace leasesim::reports {

// The report files of one sweep, written as its runs arrive.
class ReportStream {
 public:
  // The sweep's scenario file and scenarios (in file order). The directory
  // must exist (PrepareOutputDirectory).
  ReportStream(std::string directory, std::string scenario_file, std::vector<std::string> scenarios);
  ~ReportStream();  // removes the spools
  ReportStream(const ReportStream&) = delete;
  ReportStream& operator=(const ReportStream&) = delete;

  // The next run, in sweep order (scenario order, then seed order).
  void Add(const RunSummary& run);
  const SweepTotals& totals() const { return totals_; }

  // Writes timelines.json, junit.xml, report.html and last summary.json,
  // each through a temporary file and a rename. `header`: the sweep's
  // fields as they ended (its runs are not read: they are the ones added);
  // `timelines`: the first failing runs' timelines in sweep order (at most
  // kTimelinesMax are drawn). Returns an error message, or empty on success.
  std::string Finish(const SweepSummary& header, const std::vector<Timeline>& timelines);

 private:
  std::string SpoolPath(const char* name) const;
  std::string WriteJunit(const SweepSummary& header, const std::string& path);
  std::string WriteSummary(const SweepSummary& header, const std::string& path);

  std::string directory_;
  std::string scenario_file_;
  SweepTotals totals_;
  std::fstream entries_;  // summary.json's run entries, each with its separator
  std::fstream cases_;    // junit.xml's testcases, scenario after scenario
  bool any_entry_ = false;
  // Per scenario, where its testcases lie in cases_: [begin, end).
  std::vector<std::pair<std::streamoff, std::streamoff>> case_ranges_;
  std::string error_;
};

}  // namespace leasesim::reports
