#pragma once
// summary.json: the machine-readable result of a sweep, format documented in
// docs/REPORTS.md. Versioned: readers check "format" and "version".

#include <string>

#include "reports/run_summary.h"

namespace leasesim::reports {

inline constexpr int kSummaryVersion = 1;

std::string SummaryJson(const SweepSummary& sweep);

// Writes `content` to `path` via a temporary file and rename, so a reader
// never sees half a report. Returns an error message, or empty on success.
std::string WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace leasesim::reports
