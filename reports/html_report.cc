#include "reports/html_report.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "reports/markup.h"
#include "reports/summary_json.h"

namespace leasesim::reports {
namespace {

__extension__ using Int128 = __int128;

// ---- Layout (SVG user units = CSS pixels) ----------------------------------

constexpr int kWidth = 1160;
constexpr int kLabelWidth = 96;
constexpr int kRightMargin = 24;
constexpr int kPlotWidth = kWidth - kLabelWidth - kRightMargin;
constexpr int kAxisHeight = 30;
constexpr int kLaneHeight = 30;
constexpr int kLaneGap = 6;
constexpr int kLedgerLaneHeight = 44;
constexpr int kViolationRowHeight = 26;

// Term colours (colour-blind-friendly Okabe-Ito order, then a few more).
constexpr const char* kTermColours[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                        "#56b4e9", "#d55e00", "#7f7f00", "#6a3d9a"};
constexpr int kTermColourCount = 8;

const char* TermColour(std::int64_t term) {
  const std::int64_t index = term <= 0 ? 0 : (term - 1) % kTermColourCount;
  return kTermColours[index];
}

// A coordinate in tenths of a unit, printed with one decimal: integer
// arithmetic only, so the file is identical on every machine.
std::string Coord(std::int64_t tenths) {
  const bool negative = tenths < 0;
  const std::int64_t magnitude = negative ? -tenths : tenths;
  return (negative ? "-" : "") + std::to_string(magnitude / 10) + "." + std::to_string(magnitude % 10);
}

std::string Int(std::int64_t value) { return std::to_string(value); }

std::string Attr(const std::string& text) { return EscapeXml(text, /*attribute=*/true); }
std::string Text(const std::string& text) { return EscapeXml(text); }

std::string HashText(std::uint64_t hash) {
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string NodeList(const std::vector<int>& nodes) {
  std::string text;
  for (int node : nodes) text += (text.empty() ? "n" : ", n") + std::to_string(node);
  return text;
}

std::string RunId(const std::string& scenario, std::uint64_t seed) {
  return "run-" + IdFragment(scenario) + "-" + std::to_string(seed);
}

// Maps true time to x, in tenths of a unit.
class Scale {
 public:
  explicit Scale(std::int64_t end_ns) : end_ns_(std::max<std::int64_t>(end_ns, 1)) {}
  std::int64_t X(std::int64_t ns) const {
    const std::int64_t clamped = std::clamp<std::int64_t>(ns, 0, end_ns_);
    return kLabelWidth * 10 +
           static_cast<std::int64_t>(static_cast<Int128>(clamped) * (kPlotWidth * 10) / end_ns_);
  }
  std::int64_t end_ns() const { return end_ns_; }

 private:
  std::int64_t end_ns_;
};

// A tick step of 1, 2 or 5 x 10^k ms giving at most 12 ticks.
std::int64_t TickStepNs(std::int64_t end_ns) {
  std::int64_t step_ms = 1;
  for (;;) {
    for (std::int64_t factor : {1, 2, 5}) {
      if (end_ns / (step_ms * factor * 1'000'000) <= 12) return step_ms * factor * 1'000'000;
    }
    step_ms *= 10;
  }
}

std::string TickLabel(std::int64_t ns) {
  const std::int64_t ms = ns / 1'000'000;
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

std::string Rect(const std::string& cls, std::int64_t x0, std::int64_t x1, int y, int height,
                 const std::string& extra = "") {
  const std::int64_t width = std::max<std::int64_t>(x1 - x0, 10);  // at least one unit wide
  return "<rect class=\"" + cls + "\" x=\"" + Coord(x0) + "\" y=\"" + Int(y) + "\" width=\"" + Coord(width) +
         "\" height=\"" + Int(height) + "\"" + extra;
}

std::string Span(std::int64_t from_ns, std::int64_t until_ns) {
  return FormatSeconds(from_ns) + " \xE2\x80\x93 " + FormatSeconds(until_ns);
}

std::string WriteResultWords(const std::string& result) {
  if (result == "applied") return "applied";
  if (result == "rejected_stale") return "rejected: stale token (fenced)";
  if (result == "duplicate") return "duplicate: idempotency key already applied";
  if (result == "lost") return "lost: never reached the ledger";
  return result;
}

std::string WriteClass(const std::string& result) {
  if (result == "rejected_stale") return "rejected";
  return IdFragment(result);
}

struct Lanes {
  int node_count = 0;
  int top = kAxisHeight;
  int NodeY(int node) const { return top + (node - 1) * (kLaneHeight + kLaneGap); }
  int StoreY() const { return top + node_count * (kLaneHeight + kLaneGap); }
  int LedgerY() const { return StoreY() + kLaneHeight + kLaneGap; }
  int ViolationY() const { return LedgerY() + kLedgerLaneHeight + kLaneGap; }
  int Height() const { return ViolationY() + kViolationRowHeight + 4; }
};

// Faults drawn as intervals: a crash lasts until the node's next restart.
struct FaultShape {
  const TimelineFault* fault;
  std::int64_t start_ns;
  std::int64_t end_ns;
  bool instant;
};

std::vector<FaultShape> FaultShapes(const Timeline& t) {
  std::vector<FaultShape> shapes;
  for (std::size_t i = 0; i < t.faults.size(); ++i) {
    const TimelineFault& fault = t.faults[i];
    if (fault.kind == "crash" && !fault.nodes.empty()) {
      std::int64_t until = t.end_ns;
      for (std::size_t j = i + 1; j < t.faults.size(); ++j) {
        const TimelineFault& later = t.faults[j];
        if (later.kind == "restart" && later.nodes == fault.nodes && later.start_ns >= fault.start_ns) {
          until = later.start_ns;
          break;
        }
      }
      shapes.push_back({&fault, fault.start_ns, until, false});
      continue;
    }
    if (fault.description.rfind("skipped", 0) == 0) {
      shapes.push_back({&fault, fault.start_ns, fault.start_ns, true});
      continue;
    }
    // A clock step or a restart happens at one instant, whatever span the
    // record gives it (a step stays in effect to the end of the run).
    const bool instant = fault.kind == "clock_step" || fault.kind == "restart" || fault.end_ns <= fault.start_ns;
    shapes.push_back({&fault, fault.start_ns, instant ? fault.start_ns : fault.end_ns, instant});
  }
  return shapes;
}

std::string FaultTitle(const TimelineFault& fault, const FaultShape& shape) {
  std::string title = fault.kind;
  if (!fault.nodes.empty()) title += " " + NodeList(fault.nodes);
  if (shape.instant) {
    title += " at " + FormatSeconds(fault.start_ns);
  } else if (fault.kind == "crash") {
    title += ": down " + Span(shape.start_ns, shape.end_ns);
  } else {
    title += ": " + Span(shape.start_ns, shape.end_ns);
  }
  if (!fault.description.empty()) title += " (" + fault.description + ")";
  title += fault.within_assumptions ? "; within the protocol's assumptions" : "; BEYOND the protocol's assumptions";
  return title;
}

// Violations by the instant they happened (ties in the checker's order).
std::vector<const TimelineViolation*> TimeOrdered(const std::vector<TimelineViolation>& violations) {
  std::vector<const TimelineViolation*> ordered;
  for (const TimelineViolation& v : violations) ordered.push_back(&v);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const TimelineViolation* a, const TimelineViolation* b) { return a->at_ns < b->at_ns; });
  return ordered;
}

std::string Svg(const Timeline& t) {
  const Scale scale(t.end_ns);
  Lanes lanes;
  lanes.node_count = std::max(t.node_count, 0);
  for (const TimelineBelief& belief : t.beliefs) lanes.node_count = std::max(lanes.node_count, belief.node);
  const int height = lanes.Height();
  const std::string id = RunId(t.scenario, t.seed);
  std::string svg;
  svg += "<svg class=\"timeline\" id=\"timeline-" + Attr(id) + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         Int(kWidth) + "\" height=\"" + Int(height) + "\" viewBox=\"0 0 " + Int(kWidth) + " " + Int(height) +
         "\" role=\"img\" aria-label=\"" +
         Attr("timeline of " + t.scenario + " seed " + std::to_string(t.seed)) + "\">\n";
  svg += "<defs><pattern id=\"hatch-" + Attr(id) +
         "\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" patternTransform=\"rotate(45)\">"
         "<rect width=\"6\" height=\"6\" fill=\"#7f7f7f\" fill-opacity=\"0.18\"/>"
         "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#444\" stroke-width=\"2\" stroke-opacity=\"0.45\"/>"
         "</pattern></defs>\n";

  // Axis.
  const int lanes_bottom = lanes.ViolationY() + kViolationRowHeight;
  svg += "<g class=\"axis\">";
  const std::int64_t step = TickStepNs(scale.end_ns());
  for (std::int64_t tick = 0; tick <= scale.end_ns(); tick += step) {
    const std::string x = Coord(scale.X(tick));
    svg += "<line class=\"grid\" x1=\"" + x + "\" y1=\"" + Int(kAxisHeight - 6) + "\" x2=\"" + x + "\" y2=\"" +
           Int(lanes_bottom) + "\"/>";
    svg += "<text class=\"tick\" x=\"" + x + "\" y=\"" + Int(kAxisHeight - 10) + "\">" + TickLabel(tick) + "</text>";
  }
  svg += "</g>\n";

  // Node lanes with beliefs.
  for (int node = 1; node <= lanes.node_count; ++node) {
    const int y = lanes.NodeY(node);
    svg += "<g class=\"lane lane-node\" id=\"" + Attr(id) + "-lane-n" + Int(node) + "\" data-node=\"" + Int(node) +
           "\">";
    svg += "<rect class=\"lane-bg\" x=\"" + Int(kLabelWidth) + "\" y=\"" + Int(y) + "\" width=\"" + Int(kPlotWidth) +
           "\" height=\"" + Int(kLaneHeight) + "\"/>";
    svg += "<text class=\"lane-label\" x=\"8\" y=\"" + Int(y + 19) + "\">node n" + Int(node) + "</text>";
    for (const TimelineBelief& belief : t.beliefs) {
      if (belief.node != node) continue;
      const std::int64_t x0 = scale.X(belief.from_ns);
      const std::int64_t x1 = scale.X(belief.until_ns);
      svg += Rect("belief term-" + Int(belief.term), x0, x1, y + 4, kLaneHeight - 8,
                  " fill=\"" + std::string(TermColour(belief.term)) + "\" data-term=\"" + Int(belief.term) + "\">");
      svg += "<title>" +
             Text("n" + std::to_string(node) + " (" + belief.holder + ") believed it led, term " +
                  std::to_string(belief.term) + ", " + Span(belief.from_ns, belief.until_ns) +
                  "; ended: " + belief.end_reason) +
             "</title></rect>";
      if (x1 - x0 >= 450) {
        svg += "<text class=\"belief-label\" x=\"" + Coord(x0 + 40) + "\" y=\"" + Int(y + 19) + "\">term " +
               Int(belief.term) + "</text>";
      }
    }
    svg += "</g>\n";
  }

  // Store lane: the holder the store recorded.
  {
    const int y = lanes.StoreY();
    svg += "<g class=\"lane lane-store\" id=\"" + Attr(id) + "-lane-store\">";
    svg += "<rect class=\"lane-bg\" x=\"" + Int(kLabelWidth) + "\" y=\"" + Int(y) + "\" width=\"" + Int(kPlotWidth) +
           "\" height=\"" + Int(kLaneHeight) + "\"/>";
    svg += "<text class=\"lane-label\" x=\"8\" y=\"" + Int(y + 19) + "\">store holder</text>";
    for (const TimelineHolder& holder : t.holders) {
      const std::int64_t x0 = scale.X(holder.from_ns);
      const std::int64_t x1 = scale.X(holder.until_ns);
      const bool released = holder.holder.empty();
      svg += Rect(std::string("holder") + (released ? " released" : " term-" + Int(holder.term)), x0, x1, y + 4,
                  kLaneHeight - 8,
                  released ? std::string(">")
                           : " fill=\"" + std::string(TermColour(holder.term)) + "\" data-term=\"" +
                                 Int(holder.term) + "\">");
      svg += "<title>" +
             Text(released ? "store record released (no holder), term " + std::to_string(holder.term) + ", " +
                                 Span(holder.from_ns, holder.until_ns)
                           : "store record: holder " + holder.holder + " (n" + std::to_string(holder.node) +
                                 "), term " + std::to_string(holder.term) + ", " +
                                 Span(holder.from_ns, holder.until_ns)) +
             "</title></rect>";
      if (!released && x1 - x0 >= 450) {
        svg += "<text class=\"holder-label\" x=\"" + Coord(x0 + 40) + "\" y=\"" + Int(y + 19) + "\">n" +
               Int(holder.node) + " term " + Int(holder.term) + "</text>";
      }
    }
    svg += "</g>\n";
  }

  // Ledger lane: writes as ticks at arrival (lost ones at sending).
  {
    const int y = lanes.LedgerY();
    svg += "<g class=\"lane lane-ledger\" id=\"" + Attr(id) + "-lane-ledger\">";
    svg += "<rect class=\"lane-bg\" x=\"" + Int(kLabelWidth) + "\" y=\"" + Int(y) + "\" width=\"" + Int(kPlotWidth) +
           "\" height=\"" + Int(kLedgerLaneHeight) + "\"/>";
    svg += "<text class=\"lane-label\" x=\"8\" y=\"" + Int(y + 19) + "\">ledger writes</text>";
    svg += "<text class=\"lane-sublabel\" x=\"8\" y=\"" + Int(y + 33) + "\">(token)</text>";
    std::int64_t last_label_x[2] = {-100000, -100000};
    for (std::size_t i = 0; i < t.writes.size(); ++i) {
      const TimelineWrite& write = t.writes[i];
      const bool arrived = write.arrived_ns >= 0;
      const std::int64_t x = scale.X(arrived ? write.arrived_ns : write.sent_ns);
      const std::string cls = WriteClass(write.result);
      svg += "<g class=\"write " + cls + "\" data-token=\"" + Int(write.token) + "\" data-node=\"" + Int(write.node) +
             "\">";
      svg += "<title>" +
             Text("write by n" + std::to_string(write.node) + " (" + write.holder + "), token " +
                  std::to_string(write.token) + ", window " + std::to_string(write.window) + ": " +
                  WriteResultWords(write.result) + "; sent " + FormatSeconds(write.sent_ns) +
                  (arrived ? ", arrived " + FormatSeconds(write.arrived_ns) : std::string()) +
                  (write.lease_valid_at_send ? "" : "; the writer's lease had lapsed when it sent")) +
             "</title>";
      const bool tall = write.result != "applied";
      svg += "<line class=\"tick-mark\" x1=\"" + Coord(x) + "\" y1=\"" + Int(y + (tall ? 2 : 6)) + "\" x2=\"" +
             Coord(x) + "\" y2=\"" + Int(y + 24) + "\"/>";
      if (write.result == "rejected_stale") {
        svg += "<path class=\"cross\" d=\"M" + Coord(x - 35) + " " + Int(y + 3) + " l7 7 m-7 0 l7 -7\"/>";
      }
      // Token labels on two staggered rows, skipped where they would collide.
      for (int row = 0; row < 2; ++row) {
        if (x - last_label_x[row] >= 120 || tall) {
          svg += "<text class=\"token\" x=\"" + Coord(x) + "\" y=\"" + Int(y + 34 + row * 9) + "\">" +
                 Int(write.token) + "</text>";
          last_label_x[row] = x;
          break;
        }
      }
      svg += "</g>";
    }
    svg += "</g>\n";
  }

  // Faults, shaded over the lanes they hit (node lanes; the store lane when
  // they name no node).
  const std::string hatch = "url(#hatch-" + id + ")";
  for (const FaultShape& shape : FaultShapes(t)) {
    const TimelineFault& fault = *shape.fault;
    std::vector<int> ys;
    for (int node : fault.nodes) {
      if (node >= 1 && node <= lanes.node_count) ys.push_back(lanes.NodeY(node));
    }
    if (ys.empty()) ys.push_back(lanes.StoreY());
    const std::string cls = "fault fault-" + IdFragment(fault.kind) + (shape.instant ? " instant" : "") +
                            (fault.within_assumptions ? "" : " beyond");
    const std::string title = "<title>" + Text(FaultTitle(fault, shape)) + "</title>";
    svg += "<g class=\"" + cls + "\">";
    for (int y : ys) {
      const std::int64_t x0 = scale.X(shape.start_ns);
      if (shape.instant) {
        svg += "<line class=\"fault-line\" x1=\"" + Coord(x0) + "\" y1=\"" + Int(y - 2) + "\" x2=\"" + Coord(x0) +
               "\" y2=\"" + Int(y + kLaneHeight + 2) + "\"/>";
        svg += "<path class=\"fault-mark\" d=\"M" + Coord(x0 - 45) + " " + Int(y - 3) + " h9 l-4.5 7 z\">" + title +
               "</path>";
      } else {
        svg += Rect("fault-area", x0, scale.X(shape.end_ns), y, kLaneHeight, " fill=\"" + Attr(hatch) + "\">") +
               title + "</rect>";
      }
      svg += "<text class=\"fault-label\" x=\"" + Coord(x0 + 25) + "\" y=\"" +
             Int(shape.instant ? y + 10 : y + kLaneHeight - 3) + "\">" +
             Text(fault.kind == "crash" ? "crashed" : fault.kind) + "</text>";
    }
    svg += "</g>\n";
  }

  // Violations, in time order: a line through every lane, circles on the
  // nodes named, and below a numbered badge; violations closer than a badge's
  // width share one badge ("3\xE2\x80\x935"), and a kind label is written
  // where it has room.
  const std::vector<const TimelineViolation*> violations = TimeOrdered(t.violations);
  for (std::size_t i = 0; i < violations.size(); ++i) {
    const TimelineViolation& violation = *violations[i];
    const std::int64_t x = scale.X(violation.at_ns);
    const std::string number = std::to_string(i + 1);
    svg += "<g class=\"violation" + std::string(violation.expected ? " expected" : "") + "\" id=\"" + Attr(id) +
           "-v" + number + "\" data-kind=\"" + Attr(violation.kind) + "\">";
    svg += "<title>" + Text(number + ". " + violation.kind + " at " + FormatSeconds(violation.at_ns) + ": " +
                            violation.message) +
           "</title>";
    svg += "<line class=\"violation-line\" x1=\"" + Coord(x) + "\" y1=\"" + Int(kAxisHeight - 4) + "\" x2=\"" +
           Coord(x) + "\" y2=\"" + Int(lanes.ViolationY() + 2) + "\"/>";
    for (int node : violation.nodes) {
      if (node < 1 || node > lanes.node_count) continue;
      svg += "<circle class=\"violation-node\" cx=\"" + Coord(x) + "\" cy=\"" + Int(lanes.NodeY(node) + kLaneHeight / 2) +
             "\" r=\"5\"/>";
    }
    svg += "</g>\n";
  }
  struct Badge {
    std::size_t first;
    std::size_t last;
    std::int64_t x;     // tenths
    std::int64_t half;  // half its width, tenths
  };
  std::vector<Badge> badges;
  for (std::size_t first = 0; first < violations.size();) {
    const std::int64_t x = scale.X(violations[first]->at_ns);
    std::size_t last = first;
    while (last + 1 < violations.size() && scale.X(violations[last + 1]->at_ns) - x < 260) ++last;
    const std::size_t digits = std::to_string(first + 1).size() + (first == last ? 0 : 1 + std::to_string(last + 1).size());
    badges.push_back({first, last, x, first == last ? 100 : 40 + 35 * static_cast<std::int64_t>(digits)});
    first = last + 1;
  }
  std::int64_t label_free_from = 0;  // x (tenths) where the next kind label may start
  for (std::size_t b = 0; b < badges.size(); ++b) {
    const Badge& badge = badges[b];
    const std::string text = badge.first == badge.last ? std::to_string(badge.first + 1)
                                                       : std::to_string(badge.first + 1) + "\xE2\x80\x93" +
                                                             std::to_string(badge.last + 1);
    bool all_expected = true;
    std::string kinds;
    std::string title;
    for (std::size_t k = badge.first; k <= badge.last; ++k) {
      all_expected = all_expected && violations[k]->expected;
      if (kinds.find(violations[k]->kind) == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + violations[k]->kind;
      title += (title.empty() ? "" : "\n") + std::to_string(k + 1) + ". " + violations[k]->kind + " at " +
               FormatSeconds(violations[k]->at_ns);
    }
    const int cy = lanes.ViolationY() + kViolationRowHeight / 2;
    svg += "<g class=\"violation-badge" + std::string(all_expected ? " expected" : "") + "\"><title>" + Text(title) +
           "</title>";
    svg += "<rect class=\"violation-marker\" x=\"" + Coord(badge.x - badge.half) + "\" y=\"" + Int(cy - 10) +
           "\" width=\"" + Coord(2 * badge.half) + "\" height=\"20\" rx=\"10\"/>";
    svg += "<text class=\"violation-number\" x=\"" + Coord(badge.x) + "\" y=\"" + Int(cy + 4) + "\">" + text +
           "</text>";
    // The kind label goes right of the badge when it fits before the next one.
    const std::int64_t label_x = badge.x + badge.half + 40;
    const std::int64_t label_end = label_x + static_cast<std::int64_t>(kinds.size()) * 68;
    const std::int64_t room_until =
        b + 1 < badges.size() ? badges[b + 1].x - badges[b + 1].half - 40 : (kLabelWidth + kPlotWidth + kRightMargin) * 10;
    if (badge.x - badge.half >= label_free_from && label_end <= room_until) {
      svg += "<text class=\"violation-kind\" x=\"" + Coord(label_x) + "\" y=\"" + Int(cy + 4) + "\">" + Text(kinds) +
             "</text>";
      label_free_from = label_end + 40;
    }
    svg += "</g>\n";
  }
  svg += "<text class=\"lane-label\" x=\"8\" y=\"" + Int(lanes.ViolationY() + 17) + "\">violations</text>\n";
  svg += "</svg>\n";
  return svg;
}

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

std::string PageHead(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         Text(title) + "</title>\n" + kStyle + "</head>\n<body>\n";
}

struct FigureRange {
  std::int64_t min = 0;
  std::int64_t max = 0;
  std::int64_t sum = 0;
  int runs = 0;
};

}  // namespace

std::string TimelineSection(const Timeline& t) {
  const std::string id = RunId(t.scenario, t.seed);
  std::string html;
  html += "<section class=\"run" + std::string(t.ok ? " ok" : " failed") + "\" id=\"" + Attr(id) + "\">\n";
  html += "<h3><span class=\"status " + std::string(t.ok ? "pass\">PASS" : "fail\">FAIL") + "</span> " +
          Text(t.scenario) + " seed " + std::to_string(t.seed) + "</h3>\n";
  html += "<p class=\"meta\">trace <code>" + HashText(t.trace_hash) + "</code>, " + std::to_string(t.node_count) +
          " nodes, " + FormatSeconds(t.end_ns) + " of simulated time";
  if (!t.replay_command.empty()) html += "<br>replay: <code class=\"replay\">" + Text(t.replay_command) + "</code>";
  html += "</p>\n";
  html += Svg(t);
  html += kLegend;
  if (t.violations.empty()) {
    html += "<p class=\"no-violations\">No violations.</p>\n";
  } else {
    html += "<ol class=\"violation-list\">\n";
    const std::vector<const TimelineViolation*> ordered = TimeOrdered(t.violations);
    for (std::size_t i = 0; i < ordered.size(); ++i) {
      const TimelineViolation& v = *ordered[i];
      html += "<li" + std::string(v.expected ? " class=\"expected\"" : "") + " id=\"" + Attr(id) + "-explain-v" +
              std::to_string(i + 1) + "\"><span class=\"kind\">" + Text(v.kind) + "</span>" +
              (v.expected ? " (expected by the scenario)" : "") + " at " + FormatSeconds(v.at_ns) +
              (v.nodes.empty() ? "" : " (" + Text(NodeList(v.nodes)) + ")") + ": " + Text(v.message) + "</li>\n";
    }
    html += "</ol>\n";
  }
  if (!t.notes.empty()) {
    html += "<ul class=\"notes\">\n";
    for (const std::string& note : t.notes) html += "<li>note: " + Text(note) + "</li>\n";
    html += "</ul>\n";
  }
  html += "</section>\n";
  return html;
}

std::string TimelineHtml(const Timeline& timeline) {
  std::string html = PageHead("leasesim: " + timeline.scenario + " seed " + std::to_string(timeline.seed));
  html += "<h1>leasesim run: " + Text(timeline.scenario) + " seed " + std::to_string(timeline.seed) + "</h1>\n";
  html += TimelineSection(timeline);
  html += "</body>\n</html>\n";
  return html;
}

std::string ReportHtml(const SweepSummary& sweep, const std::vector<Timeline>& timelines) {
  const int failed = sweep.failed();
  const std::size_t total = sweep.runs.size();
  std::string html = PageHead("leasesim report: " + sweep.scenario_file + " seeds " + sweep.seeds);
  html += "<h1>leasesim: " +
          (failed == 0 ? "all " + std::to_string(total) + " runs passed"
                       : std::to_string(failed) + " of " + std::to_string(total) + " runs failed") +
          "</h1>\n";
  html += "<p class=\"meta\">scenario file <code>" + Text(sweep.scenario_file) + "</code>, seeds <code>" +
          Text(sweep.seeds) + "</code>" + (sweep.shard.whole() ? "" : ", shard " + FormatShard(sweep.shard)) +
          "</p>\n";

  // Per-scenario totals and figures.
  std::set<std::string> figure_names;
  for (const RunSummary& run : sweep.runs) {
    for (const auto& [name, value] : run.figures) figure_names.insert(name);
  }
  html += "<h2>Scenarios</h2>\n<table class=\"scenarios\">\n<tr><th>status</th><th>scenario</th><th>runs</th>"
          "<th>failed</th><th>failing seeds</th><th>mean leaderless</th><th>mean leader terms</th></tr>\n";
  std::map<std::string, std::map<std::string, FigureRange>> ranges;
  for (const std::string& scenario : sweep.scenarios) {
    int runs = 0;
    int scenario_failed = 0;
    std::string failing;
    int listed = 0;
    std::map<std::string, FigureRange>& figures = ranges[scenario];
    for (const RunSummary& run : sweep.runs) {
      if (run.scenario != scenario) continue;
      ++runs;
      for (const auto& [name, value] : run.figures) {
        FigureRange& range = figures[name];
        range.min = range.runs == 0 ? value : std::min(range.min, value);
        range.max = range.runs == 0 ? value : std::max(range.max, value);
        range.sum += value;
        range.runs += 1;
      }
      if (run.ok) continue;
      ++scenario_failed;
      if (listed++ < 12) {
        bool drawn = false;
        for (const Timeline& t : timelines) drawn = drawn || (t.scenario == scenario && t.seed == run.seed);
        const std::string seed = std::to_string(run.seed);
        failing += (failing.empty() ? "" : ", ") +
                   (drawn ? "<a href=\"#" + Attr(RunId(scenario, run.seed)) + "\">" + seed + "</a>" : seed);
      }
    }
    if (listed > 12) failing += ", \xE2\x80\xA6";
    auto mean = [&](const char* name, const char* unit) -> std::string {
      auto it = figures.find(name);
      if (it == figures.end() || it->second.runs == 0) return "\xE2\x80\x93";
      return std::to_string(it->second.sum / it->second.runs) + unit;
    };
    const bool pass = scenario_failed == 0;
    html += "<tr class=\"scenario " + std::string(pass ? "pass" : "fail") + "\" id=\"scenario-" +
            Attr(IdFragment(scenario)) + "\"><td class=\"status " + (pass ? "pass\">pass" : "fail\">FAIL") +
            "</td><td>" + Text(scenario) + "</td><td class=\"num\">" + std::to_string(runs) +
            "</td><td class=\"num\">" + std::to_string(scenario_failed) + "</td><td>" + failing +
            "</td><td class=\"num\">" + mean("leaderless_ms", " ms") + "</td><td class=\"num\">" +
            mean("leader_terms", "") + "</td></tr>\n";
  }
  html += "</table>\n";

  if (failed > 0) {
    html += "<h2>Failing runs</h2>\n";
    if (static_cast<std::size_t>(failed) > timelines.size()) {
      html += "<p class=\"meta\">Timelines of the first " + std::to_string(timelines.size()) + " of " +
              std::to_string(failed) +
              " failing runs; draw any other with <code>leasesim replay \xE2\x80\xA6 --html FILE</code>.</p>\n";
    }
    for (const Timeline& timeline : timelines) html += TimelineSection(timeline);
    std::size_t listed = 0;
    std::string rest;
    for (const RunSummary& run : sweep.runs) {
      if (run.ok) continue;
      bool drawn = false;
      for (const Timeline& t : timelines) drawn = drawn || (t.scenario == run.scenario && t.seed == run.seed);
      if (drawn) continue;
      if (++listed > 200) continue;
      std::string first;
      for (const ViolationSummary& v : run.violations) {
        if (!v.expected) {
          first = v.kind + ": " + v.message;
          break;
        }
      }
      rest += "<li>" + Text(run.scenario) + " seed " + std::to_string(run.seed) + ": " + Text(first) +
              "<br><code class=\"replay\">" + Text(run.replay_command) + "</code></li>\n";
    }
    if (listed > 0) {
      html += "<h2>More failing runs</h2>\n<ul class=\"more-failures\">\n" + rest;
      if (listed > 200) html += "<li>\xE2\x80\xA6 and " + std::to_string(listed - 200) + " more (summary.json lists every one)</li>\n";
      html += "</ul>\n";
    }
  }
  if (!figure_names.empty()) {
    html += "<details class=\"figures\"" + std::string(failed == 0 ? " open" : "") +
            "><summary><h2>Figures</h2></summary>\n"
            "<p class=\"meta\">mean [min \xE2\x80\x93 max] over each scenario's runs</p>\n"
            "<div class=\"wide\"><table class=\"figures\">\n<tr><th>figure</th>";
    for (const std::string& scenario : sweep.scenarios) html += "<th>" + Text(scenario) + "</th>";
    html += "</tr>\n";
    for (const std::string& name : figure_names) {
      html += "<tr><td><code>" + Text(name) + "</code></td>";
      for (const std::string& scenario : sweep.scenarios) {
        const auto& figures = ranges[scenario];
        auto it = figures.find(name);
        if (it == figures.end() || it->second.runs == 0) {
          html += "<td class=\"num\">\xE2\x80\x93</td>";
          continue;
        }
        const FigureRange& r = it->second;
        html += "<td class=\"num\">" + std::to_string(r.sum / r.runs) + " [" + std::to_string(r.min) +
                " \xE2\x80\x93 " + std::to_string(r.max) + "]</td>";
      }
      html += "</tr>\n";
    }
    html += "</table></div>\n</details>\n";
  }

  html += "</body>\n</html>\n";
  return html;
}

}  // namespace leasesim::reports
