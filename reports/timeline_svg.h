#pragma once
// The timeline picture of one run, as inline SVG (reports/html_report.h
// describes what it shows and its stable class names). Integer arithmetic
// only: the same run gives the same bytes on every machine.

#include <string>

#include "reports/timeline.h"

namespace leasesim::reports {

std::string TimelineSvg(const Timeline& timeline);

}  // namespace leasesim::reports
