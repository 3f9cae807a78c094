#pragma once
// A comparison for people and tools: Markdown for a pull-request comment
// or a CI job summary (a one-line verdict, then tables), the console text
// `leasesim compare` prints, and JSON (format "leasesim-compare",
// version 1, docs/COMPARE.md).

#include <string>

#include "compare/compare.h"

namespace leasesim::compare {

inline constexpr int kCompareJsonVersion = 1;
// At most this many seeds are listed one by one per list (the counts are
// always whole), and of the newly failing ones with their violations and
// replay commands, the first few of each scenario.
inline constexpr std::size_t kSeedsListedMax = 30;
inline constexpr std::size_t kSeedsPerScenarioListed = 3;

// "no difference", "not worse" or "worse".
std::string VerdictWord(const Comparison& comparison);

// The one-line verdict, without Markdown.
std::string VerdictLine(const Comparison& comparison);

std::string Markdown(const Comparison& comparison);
std::string ConsoleText(const Comparison& comparison);
std::string Json(const Comparison& comparison);

// The decision rule in one paragraph, with the comparison's alpha.
std::string RuleText(const Comparison& comparison);

// A value for a table: "12", "12.5", "never".
std::string FormatValue(double value, std::int64_t never_value);

}  // namespace leasesim::compare
