#include "reports/timeline_svg.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "base/units.h"
#include "checker/fault_kind.h"
#include "reports/html_parts.h"
#include "reports/markup.h"

namespace leasesim::reports {
namespace {

using checker::FaultKind;
using checker::IsFaultKind;
using html::Attr;
using html::NodeList;
using html::RunId;
using html::Text;
using html::TimeOrdered;

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

// A tick step of 1, 2 or 5 x 10^k ms giving at most 12 ticks (k <= 12
// suffices for any int64 end).
std::int64_t TickStepNs(std::int64_t end_ns) {
  std::int64_t step_ms = 1;
  for (int decade = 0; decade < 13; ++decade) {
    for (std::int64_t factor : {1, 2, 5}) {
      if (end_ns / (step_ms * factor * base::kNanosPerMilli) <= 12) return step_ms * factor * base::kNanosPerMilli;
    }
    step_ms *= 10;
  }
  return std::max<std::int64_t>(end_ns, 1);  // not reached: 10^12 ms already gives at most 9 ticks
}

std::string TickLabel(std::int64_t ns) {
  const std::int64_t ms = ns / base::kNanosPerMilli;
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
    if (IsFaultKind(fault.kind, FaultKind::kCrash) && !fault.nodes.empty()) {
      std::int64_t until = t.end_ns;
      for (std::size_t j = i + 1; j < t.faults.size(); ++j) {
        const TimelineFault& later = t.faults[j];
        if (IsFaultKind(later.kind, FaultKind::kRestart) && later.nodes == fault.nodes && later.start_ns >= fault.start_ns) {
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
    const bool instant = IsFaultKind(fault.kind, FaultKind::kClockStep) || IsFaultKind(fault.kind, FaultKind::kRestart) || fault.end_ns <= fault.start_ns;
    shapes.push_back({&fault, fault.start_ns, instant ? fault.start_ns : fault.end_ns, instant});
  }
  return shapes;
}

std::string FaultTitle(const TimelineFault& fault, const FaultShape& shape) {
  std::string title = fault.kind;
  if (!fault.nodes.empty()) title += " " + NodeList(fault.nodes);
  if (shape.instant) {
    title += " at " + FormatSeconds(fault.start_ns);
  } else if (IsFaultKind(fault.kind, FaultKind::kCrash)) {
    title += ": down " + Span(shape.start_ns, shape.end_ns);
  } else {
    title += ": " + Span(shape.start_ns, shape.end_ns);
  }
  if (!fault.description.empty()) title += " (" + fault.description + ")";
  title += fault.within_assumptions ? "; within the protocol's assumptions" : "; BEYOND the protocol's assumptions";
  return title;
}

// Violations closer than a badge's width share one numbered badge.
struct Badge {
  std::size_t first;
  std::size_t last;
  std::int64_t x;     // tenths
  std::int64_t half;  // half its width, tenths
};

// One timeline being drawn: the run, its scale and lanes, and the SVG so
// far; each member draws one layer, in the order TimelineSvg calls them.
struct SvgCanvas {
  explicit SvgCanvas(const Timeline& timeline);

  void Open();
  void Axis();
  void NodeLanes();
  void StoreLane();
  void LedgerLane();
  void Faults();
  void Violations();
  std::vector<Badge> GroupBadges() const;
  void Badges();
  void Close();

  const Timeline& t;
  const Scale scale;
  Lanes lanes;
  const std::string id;
  const std::vector<const TimelineViolation*> violations;  // in time order
  std::string svg;
};

Lanes LanesFor(const Timeline& t) {
  Lanes lanes;
  lanes.node_count = std::max(t.node_count, 0);
  for (const TimelineBelief& belief : t.beliefs) lanes.node_count = std::max(lanes.node_count, belief.node);
  return lanes;
}

SvgCanvas::SvgCanvas(const Timeline& timeline)
    : t(timeline),
      scale(timeline.end_ns),
      lanes(LanesFor(timeline)),
      id(RunId(timeline.scenario, timeline.seed)),
      violations(TimeOrdered(timeline.violations)) {}

void SvgCanvas::Open() {
  const int height = lanes.Height();
  svg += "<svg class=\"timeline\" id=\"timeline-" + Attr(id) + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         Int(kWidth) + "\" height=\"" + Int(height) + "\" viewBox=\"0 0 " + Int(kWidth) + " " + Int(height) +
         "\" role=\"img\" aria-label=\"" +
         Attr("timeline of " + t.scenario + " seed " + std::to_string(t.seed)) + "\">\n";
  svg += "<defs><pattern id=\"hatch-" + Attr(id) +
         "\" patternUnits=\"userSpaceOnUse\" width=\"6\" height=\"6\" patternTransform=\"rotate(45)\">"
         "<rect width=\"6\" height=\"6\" fill=\"#7f7f7f\" fill-opacity=\"0.18\"/>"
         "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#444\" stroke-width=\"2\" stroke-opacity=\"0.45\"/>"
         "</pattern></defs>\n";
}

// The time axis and its grid.
void SvgCanvas::Axis() {
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
}

// Node lanes with beliefs.
void SvgCanvas::NodeLanes() {
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
}

// Store lane: the holder the store recorded.
void SvgCanvas::StoreLane() {
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
void SvgCanvas::LedgerLane() {
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
void SvgCanvas::Faults() {
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
             Text(IsFaultKind(fault.kind, FaultKind::kCrash) ? "crashed" : fault.kind) + "</text>";
    }
    svg += "</g>\n";
  }
}

// Violations, in time order: a line through every lane, circles on the
// nodes named, and below a numbered badge; violations closer than a badge's
// width share one badge ("3\xE2\x80\x935"), and a kind label is written
// where it has room.
void SvgCanvas::Violations() {
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
}

std::vector<Badge> SvgCanvas::GroupBadges() const {
  std::vector<Badge> badges;
  for (std::size_t first = 0; first < violations.size();) {
    const std::int64_t x = scale.X(violations[first]->at_ns);
    std::size_t last = first;
    while (last + 1 < violations.size() && scale.X(violations[last + 1]->at_ns) - x < 260) ++last;
    const std::size_t digits = std::to_string(first + 1).size() + (first == last ? 0 : 1 + std::to_string(last + 1).size());
    badges.push_back({first, last, x, first == last ? 100 : 40 + 35 * static_cast<std::int64_t>(digits)});
    first = last + 1;
  }
  return badges;
}

void SvgCanvas::Badges() {
  const std::vector<Badge> badges = GroupBadges();
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
}

void SvgCanvas::Close() {
  svg += "<text class=\"lane-label\" x=\"8\" y=\"" + Int(lanes.ViolationY() + 17) + "\">violations</text>\n";
  svg += "</svg>\n";
}

}  // namespace

std::string TimelineSvg(const Timeline& timeline) {
  SvgCanvas canvas(timeline);
  canvas.Open();
  canvas.Axis();
  canvas.NodeLanes();
  canvas.StoreLane();
  canvas.LedgerLane();
  canvas.Faults();
  canvas.Violations();
  canvas.Badges();
  canvas.Close();
  return std::move(canvas.svg);
}

}  // namespace leasesim::reports
