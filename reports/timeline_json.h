#pragma once
// timelines.json: the timelines of a sweep's first failing runs (at most
// kTimelinesMax), kept beside summary.json so that `leasesim merge` can draw
// report.html from shard outputs without running anything again.
// Format "leasesim-timelines", version 1 (docs/REPORTS.md).

#include <string>
#include <variant>
#include <vector>

#include "reports/timeline.h"

namespace leasesim::reports {

inline constexpr int kTimelinesVersion = 1;

std::string TimelinesJson(const std::vector<Timeline>& timelines);
std::variant<std::vector<Timeline>, std::string> ParseTimelinesJson(const std::string& text);

}  // namespace leasesim::reports
