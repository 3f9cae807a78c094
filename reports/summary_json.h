#pragma once
// summary.json: the machine-readable result of a sweep, format documented in
// docs/REPORTS.md. Versioned: readers check "format" and "version".

#include <string>
#include <variant>

#include "reports/run_summary.h"

namespace leasesim::reports {

inline constexpr int kSummaryVersion = 2;

std::string SummaryJson(const SweepSummary& sweep);

// Reads a summary.json back (what `leasesim merge` combines). Every field
// SummaryJson writes comes back, so SummaryJson(ParseSummaryJson(x)) == x.
// On a malformed file, the message names what is wrong.
std::variant<SweepSummary, std::string> ParseSummaryJson(const std::string& text);

// Shard text "K/N" -> Shard; an error message otherwise.
std::variant<Shard, std::string> ParseShard(const std::string& text);
std::string FormatShard(const Shard& shard);

// Writes `content` to `path` via a temporary file and rename, so a reader
// never sees half a report. Returns an error message, or empty on success.
std::string WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace leasesim::reports
