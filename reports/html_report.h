#pragma once
// report.html: one self-contained page (inline CSS and SVG, no script, no
// network) for people: a table of scenarios with pass/fail and figures, and
// for each failing run (the first kTimelinesMax) a timeline picture.
//
// The timeline has a lane per node (when it believed it led, coloured by
// term), a lane for the holder the store recorded, a lane of ledger writes
// (ticks coloured by result, labelled with their token), faults shaded on the
// lanes they hit, and each violation marked where it happened and explained
// below. Stable class names for tools and tests: svg.timeline, g.lane
// (.lane-node[data-node], .lane-store, .lane-ledger), rect.belief.term-K,
// rect.holder, .fault.fault-KIND (.instant for instantaneous ones, .beyond
// when outside the protocol's assumptions), g.write.applied / .rejected /
// .duplicate / .lost, g.violation, ol.violation-list.

#include <string>
#include <vector>

#include "reports/run_summary.h"
#include "reports/sweep_totals.h"
#include "reports/timeline.h"

namespace leasesim::reports {

// The timeline of one run as an HTML fragment: a <section class="run"> with
// the heading, the SVG, a legend and the list of violations.
std::string TimelineSection(const Timeline& timeline);

// A whole page with the timeline of one run (`leasesim replay --html`).
std::string TimelineHtml(const Timeline& timeline);

// The sweep's report; `timelines` are drawn in the order given (the caller
// passes the first failing runs in sweep order).
std::string ReportHtml(const SweepSummary& sweep, const std::vector<Timeline>& timelines);
// The same from a sweep's header fields (its runs not read) and totals (a
// sweep written run by run, reports/report_stream.h).
std::string ReportHtml(const SweepSummary& header, const SweepTotals& sweep, const std::vector<Timeline>& timelines);

}  // namespace leasesim::reports
