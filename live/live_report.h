#pragma once
// What a judged live run leaves for people and tools: OUT/history.jsonl
// (the merged history in the checker's format, checker::WriteHistory, so
// `leasesim check OUT/history.jsonl` re-judges it), OUT/summary.json (the
// format of `leasesim run`) and the console verdict.

#include <iosfwd>
#include <string>

#include "live/live_judge.h"
#include "live/live_run.h"

namespace leasesim::live {

inline constexpr const char* kHistoryFileName = "history.jsonl";
inline constexpr const char* kSummaryFileName = "summary.json";

// Writes both files; an error message per file that could not be written.
std::string WriteRunFiles(const LiveOptions& options, const Judgement& judgement);

// The failovers, the PASS/FAIL line, the violations and notes, and where
// the files are.
void PrintVerdict(const LiveOptions& options, const Judgement& judgement, std::ostream& out);

}  // namespace leasesim::live
