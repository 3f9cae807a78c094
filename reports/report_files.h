#pragma once
// The files a sweep leaves under --out: summary.json, junit.xml,
// report.html and timelines.json (docs/REPORTS.md).

#include <string>
#include <vector>

#include "reports/run_summary.h"
#include "reports/timeline.h"

namespace leasesim::reports {

inline constexpr const char* kSummaryFile = "summary.json";
inline constexpr const char* kJunitFile = "junit.xml";
inline constexpr const char* kReportFile = "report.html";
inline constexpr const char* kTimelinesFile = "timelines.json";

// Creates `directory` if needed and refuses (returns an error message) when
// it holds a summary.json that leasesim did not write. Empty on success.
std::string PrepareOutputDirectory(const std::string& directory);

// Writes the four files, each atomically. `timelines`: the first failing
// runs' timelines in sweep order, at most kTimelinesMax (more are ignored).
// Returns an error message, or empty on success.
std::string WriteReports(const std::string& directory, const SweepSummary& sweep,
                         const std::vector<Timeline>& timelines);

// Reads a whole file into `content`; false when it cannot be read.
bool ReadWholeFile(const std::string& path, std::string& content);

}  // namespace leasesim::reports
