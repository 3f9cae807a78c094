#pragma once
// The frame of every report page: the document head with its inline style
// sheet (no script, no network), and the legend under each timeline.

#include <string>

namespace leasesim::reports::html {

// "<!DOCTYPE html>..." up to and including "<body>".
std::string PageHead(const std::string& title);

// The legend explaining a timeline's colours and marks.
const char* TimelineLegend();

}  // namespace leasesim::reports::html
