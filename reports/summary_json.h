#pragma once
// summary.json: the machine-readable result of a sweep, format documented in
// docs/REPORTS.md. Versioned: readers check "format" and "version".

#include <string>
#include <variant>

#include "base/input_error.h"
#include "reports/run_summary.h"
#include "reports/sweep_totals.h"

namespace leasesim::reports {

inline constexpr int kSummaryVersion = 2;

std::string SummaryJson(const SweepSummary& sweep);

// The same document in pieces, for writing it run by run: the text before
// the first run entry and after the last (from the sweep's header fields,
// its runs not read, and its totals), and each run's entry. The file is
// JoinSummary(frame, entries) with every entry appended by AppendRunEntry.
struct SummaryFrame {
  std::string head;
  std::string tail;
};
SummaryFrame SummaryJsonFrame(const SweepSummary& header, const SweepTotals& sweep);
std::string SummaryRunEntry(const RunSummary& run);
void AppendRunEntry(std::string& entries, const RunSummary& run);  // with its separator
std::string JoinSummary(const SummaryFrame& frame, const std::string& entries);

// Reads a summary.json back (what `leasesim merge` combines). Every field
// SummaryJson writes comes back, so SummaryJson(ParseSummaryJson(x)) == x.
// On a malformed file, the bad-input error names the field and what is wrong
// with it; the caller names the file (error.In(path)).
std::variant<SweepSummary, base::InputError> ParseSummaryJson(const std::string& text);

// Shard text "K/N" -> Shard; otherwise the bad-input error, its rule saying
// what a shard is (no path: the caller knows the flag or the field).
std::variant<Shard, base::InputError> ParseShard(const std::string& text);
std::string FormatShard(const Shard& shard);

// Writes `content` to `path` via a temporary file and rename, so a reader
// never sees half a report. Returns an error message, or empty on success.
std::string WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace leasesim::reports
