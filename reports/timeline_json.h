#pragma once
// timelines.json: the timelines of a sweep's first failing runs (at most
// kTimelinesMax), kept beside summary.json so that `leasesim merge` can draw
// report.html from shard outputs without running anything again.
// Format "leasesim-timelines", version 1 (docs/REPORTS.md).

#include <string>
#include <variant>
#include <vector>

#include "base/input_error.h"

#include "reports/timeline.h"

namespace leasesim::reports {

inline constexpr int kTimelinesVersion = 1;

std::string TimelinesJson(const std::vector<Timeline>& timelines);
// Reads a timelines.json back; on a malformed file the bad-input error names
// the field and the rule, and the caller names the file (error.In(path)).
std::variant<std::vector<Timeline>, base::InputError> ParseTimelinesJson(const std::string& text);

}  // namespace leasesim::reports
