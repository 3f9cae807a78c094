#pragma once
// Small pieces the HTML report's rooms share (reports/html_report.cc,
// reports/timeline_svg.cc): escaping, node lists, run ids and the time order
// of violations.

#include <cstdint>
#include <string>
#include <vector>

#include "reports/timeline.h"

namespace leasesim::reports::html {

std::string Attr(const std::string& text);  // escaped for an attribute value
std::string Text(const std::string& text);  // escaped for element content
// "n1, n3".
std::string NodeList(const std::vector<int>& nodes);
// The anchor of a run's section: "run-<scenario>-<seed>".
std::string RunId(const std::string& scenario, std::uint64_t seed);
// Violations by the instant they happened (ties in the checker's order).
std::vector<const TimelineViolation*> TimeOrdered(const std::vector<TimelineViolation>& violations);

}  // namespace leasesim::reports::html
