#include "reports/html_page.h"

#include "reports/html_parts.h"

namespace leasesim::reports::html {
namespace {

constexpr const char* kLegend =
    "<div class=\"legend\">"
    "<span><i class=\"sw\" style=\"background:#0072b2\"></i><i class=\"sw\" style=\"background:#e69f00\"></i>"
    "<i class=\"sw\" style=\"background:#009e73\"></i> believed it led / store holder, colour = term</span>"
    "<span><i class=\"sw hatch\"></i> fault (pause, suspend, partition, crash until restart, drift)</span>"
    "<span><i class=\"sw tri\"></i> instantaneous fault (clock step, restart)</span>"
    "<span><i class=\"tk applied\"></i> write applied</span>"
    "<span><i class=\"tk rejected\"></i> write rejected (stale token)</span>"
    "<span><i class=\"tk duplicate\"></i> duplicate</span>"
    "<span><i class=\"tk lost\"></i> lost</span>"
    "<span><i class=\"sw viol\"></i> violation</span>"
    "</div>\n";

constexpr const char* kStyle = R"(<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1b1b1b; margin: 24px; background: #fff; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; } h3 { font-size: 16px; margin: 0 0 6px; }
.meta { color: #555; margin: 0 0 16px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #d0d0d0; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { font-weight: 700; } .status.pass { color: #1a7f37; } .status.fail { color: #c62828; }
ul.suite li.fail { color: #c62828; } ul.suite li.pending { color: #555; }
code { font: 12.5px/1.4 "DejaVu Sans Mono", monospace; background: #f5f5f5; padding: 1px 4px; border-radius: 3px; }
section.run { border: 1px solid #ddd; border-left: 4px solid #c62828; padding: 12px 16px; margin: 18px 0; border-radius: 4px; }
section.run.ok { border-left-color: #1a7f37; }
svg.timeline { display: block; margin: 10px 0; max-width: 100%; height: auto; font-family: "DejaVu Sans", sans-serif; }
svg.timeline .lane-bg { fill: #f7f7f7; stroke: #e2e2e2; }
svg.timeline .lane-label { font-size: 12px; fill: #333; }
svg.timeline .lane-sublabel { font-size: 10px; fill: #777; }
svg.timeline .grid { stroke: #e6e6e6; stroke-width: 1; }
svg.timeline .tick { font-size: 11px; fill: #666; text-anchor: middle; }
svg.timeline .belief, svg.timeline .holder { stroke: #fff; stroke-width: 0.5; }
svg.timeline .holder { fill-opacity: 0.75; }
svg.timeline .holder.released { fill: #ffffff; stroke: #999; stroke-dasharray: 3 2; }
svg.timeline .belief-label, svg.timeline .holder-label { font-size: 11px; fill: #fff; font-weight: 600; pointer-events: none; }
svg.timeline .fault-area { stroke: #555; stroke-width: 0.6; }
svg.timeline .fault.beyond .fault-area { stroke: #c62828; stroke-width: 1.2; }
svg.timeline .fault-crash .fault-area { fill: #3a3a3a; fill-opacity: 0.4; }
svg.timeline .fault-line { stroke: #444; stroke-width: 1.5; stroke-dasharray: 2 2; }
svg.timeline .fault-mark { fill: #444; }
svg.timeline .fault-label { font-size: 10px; fill: #222; font-weight: 600; }
svg.timeline .write .tick-mark { stroke-width: 2; }
svg.timeline .write.applied .tick-mark { stroke: #1a7f37; }
svg.timeline .write.rejected .tick-mark { stroke: #c62828; stroke-width: 3; }
svg.timeline .write.duplicate .tick-mark { stroke: #e69f00; stroke-width: 3; }
svg.timeline .write.lost .tick-mark { stroke: #9e9e9e; stroke-dasharray: 2 2; }
svg.timeline .cross { stroke: #c62828; stroke-width: 2; fill: none; }
svg.timeline .token { font-size: 9px; fill: #333; text-anchor: middle; }
svg.timeline .write.rejected .token { fill: #c62828; font-weight: 700; }
svg.timeline .violation-line { stroke: #c62828; stroke-width: 2; stroke-dasharray: 6 3; }
svg.timeline .violation.expected .violation-line { stroke: #e69f00; }
svg.timeline .violation-marker { fill: #c62828; }
svg.timeline .violation-badge.expected .violation-marker { fill: #e69f00; }
svg.timeline .violation-node { fill: none; stroke: #c62828; stroke-width: 2.5; }
svg.timeline .violation-number { font-size: 11px; fill: #fff; font-weight: 700; text-anchor: middle; }
svg.timeline .violation-kind { font-size: 11px; fill: #c62828; font-weight: 600; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; font-size: 12px; color: #444; margin: 4px 0 8px; }
.legend .sw { display: inline-block; width: 14px; height: 10px; margin-right: 2px; vertical-align: middle; }
.legend .sw.hatch { background: repeating-linear-gradient(45deg, #bbb 0 2px, #eee 2px 5px); border: 1px solid #777; }
.legend .sw.tri { width: 0; height: 0; border-left: 5px solid transparent; border-right: 5px solid transparent; border-top: 8px solid #444; }
.legend .sw.viol { width: 3px; background: #c62828; }
.legend .tk { display: inline-block; width: 3px; height: 12px; vertical-align: middle; margin-right: 3px; }
.legend .tk.applied { background: #1a7f37; } .legend .tk.rejected { background: #c62828; }
.legend .tk.duplicate { background: #e69f00; } .legend .tk.lost { background: #9e9e9e; }
ol.violation-list li { margin: 4px 0; } ol.violation-list .kind { font-weight: 700; color: #c62828; }
ol.violation-list li.expected .kind { color: #b26a00; }
.notes { color: #555; }
div.wide { overflow-x: auto; max-width: 100%; }
details.figures > summary { cursor: pointer; } details.figures > summary h2 { display: inline; }
</style>
)";

}  // namespace

std::string PageHead(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         Text(title) + "</title>\n" + kStyle + "</head>\n<body>\n";
}

const char* TimelineLegend() { return kLegend; }

}  // namespace leasesim::reports::html
