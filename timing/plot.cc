// SweepSvg (timing/sweep.h): the sweep as a small line chart, drawn with
// integer coordinates so the same rows always give the same bytes.

#include <algorithm>

#include <absl/strings/str_format.h>

#include "base/units.h"
#include "timing/explain.h"
#include "timing/sweep.h"

namespace leasesim::timing {
namespace {

constexpr std::int64_t kWidth = 720, kHeight = 400;
constexpr std::int64_t kLeft = 80, kRight = 90, kTop = 50, kBottom = 60;
constexpr std::int64_t kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr int kTicks = 5;
constexpr const char* kFailoverColour = "#1f5fbf";
constexpr const char* kDemotionColour = "#d9731a";
constexpr const char* kRenewalColour = "#e8b27a";

// What a series plots of a row.
enum class Measure { kFailoverP99, kSpuriousDemotions, kRenewalsFailed };

std::int64_t ValueOf(const SweepRow& row, Measure measure) {
  switch (measure) {
    case Measure::kFailoverP99: return row.failover_p99_ms;
    case Measure::kSpuriousDemotions: return row.spurious_demotions_per_hour;
    case Measure::kRenewalsFailed: return row.renew_failed_per_hour;
  }
  return 0;
}

// Tick labels: "30 s", "2.5 s"; per-hour rates "60", "2.5".
std::string SecondsTick(std::int64_t ms) {
  std::string text = std::to_string(ms / 1000);
  if (ms % 1000 != 0) {
    std::string fraction = std::to_string(1000 + ms % 1000).substr(1);
    while (fraction.back() == '0') fraction.pop_back();
    text += "." + fraction;
  }
  return text + " s";
}
std::string RateTick(std::int64_t hundredths) {
  std::string text = std::to_string(hundredths / 100);
  if (hundredths % 100 != 0) {
    std::string fraction = std::to_string(100 + hundredths % 100).substr(1);
    if (fraction.back() == '0') fraction.pop_back();
    text += "." + fraction;
  }
  return text;
}

// A 1, 2 or 5 times a power of ten at least max/kTicks: the tick step.
std::int64_t TickStep(std::int64_t max) {
  const std::int64_t want = std::max<std::int64_t>(1, (max + kTicks - 1) / kTicks);
  for (std::int64_t power = 1; power <= want * 10; power *= 10) {
    for (const std::int64_t m : {1, 2, 5}) {
      if (m * power >= want) return m * power;
    }
  }
  return want;
}

std::string Text(std::int64_t x, std::int64_t y, const std::string& anchor, const std::string& body,
                 const std::string& extra = "") {
  return absl::StrFormat("<text x=\"%d\" y=\"%d\" text-anchor=\"%s\"%s>", x, y, anchor, extra) + body + "</text>\n";
}

std::string Line(std::int64_t x1, std::int64_t y1, std::int64_t x2, std::int64_t y2, const std::string& style) {
  return absl::StrFormat("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" %s/>\n", x1, y1, x2, y2, style);
}

// One axis: the value range [0, max] mapped onto the plot's pixels.
struct Scale {
  std::int64_t max = 1;  // domain [0, max], a whole number of ticks
  std::int64_t step = 1;
  std::int64_t X(std::int64_t v) const { return kLeft + v * kPlotW / max; }
  std::int64_t Y(std::int64_t v) const { return kTop + kPlotH - v * kPlotH / max; }
};

Scale MakeScale(std::int64_t max) {
  Scale scale;
  scale.step = TickStep(std::max<std::int64_t>(1, max));
  scale.max = (std::max<std::int64_t>(1, max) + scale.step - 1) / scale.step * scale.step;
  return scale;
}

std::string Series(const std::vector<SweepRow>& rows, const Scale& x, const Scale& y, Measure measure,
                   const char* colour, const char* dash = "") {
  std::string points, marks;
  for (const SweepRow& row : rows) {
    if (!row.valid) continue;
    const std::int64_t value = ValueOf(row, measure);
    absl::StrAppendFormat(&points, "%d,%d ", x.X(row.duration_ms), y.Y(value));
    absl::StrAppendFormat(&marks, "<circle cx=\"%d\" cy=\"%d\" r=\"%d\" fill=\"%s\"/>\n", x.X(row.duration_ms),
                          y.Y(value), row.derived ? 6 : 3, colour);
  }
  if (!points.empty()) points.pop_back();
  return "<polyline fill=\"none\" stroke=\"" + std::string(colour) + "\" stroke-width=\"2\"" +
         (*dash != 0 ? " stroke-dasharray=\"" + std::string(dash) + "\"" : std::string()) + " points=\"" + points +
         "\"/>\n" + marks;
}

std::string Axes(const Scale& x, const Scale& left, const Scale& right) {
  std::string svg = Line(kLeft, kTop + kPlotH, kLeft + kPlotW, kTop + kPlotH, "stroke=\"#333\"");
  svg += Line(kLeft, kTop, kLeft, kTop + kPlotH, "stroke=\"#333\"");
  svg += Line(kLeft + kPlotW, kTop, kLeft + kPlotW, kTop + kPlotH, "stroke=\"#333\"");
  for (std::int64_t v = 0; v <= x.max; v += x.step) {
    svg += Line(x.X(v), kTop + kPlotH, x.X(v), kTop + kPlotH + 5, "stroke=\"#333\"");
    svg += Text(x.X(v), kTop + kPlotH + 20, "middle", SecondsTick(v));
  }
  for (std::int64_t v = 0; v <= left.max; v += left.step) {
    svg += Line(kLeft - 5, left.Y(v), kLeft, left.Y(v), "stroke=\"#333\"");
    svg += Text(kLeft - 8, left.Y(v) + 4, "end", SecondsTick(v), " fill=\"" + std::string(kFailoverColour) + "\"");
  }
  for (std::int64_t v = 0; v <= right.max; v += right.step) {
    svg += Line(kLeft + kPlotW, right.Y(v), kLeft + kPlotW + 5, right.Y(v), "stroke=\"#333\"");
    svg += Text(kLeft + kPlotW + 8, right.Y(v) + 4, "start", RateTick(v),
                " fill=\"" + std::string(kDemotionColour) + "\"");
  }
  svg += Text(kLeft + kPlotW / 2, kHeight - 15, "middle", "lease duration");
  return svg;
}

}  // namespace

std::string SweepSvg(const std::vector<SweepRow>& rows, const Targets& targets) {
  std::int64_t x_max = 1, failover_max = targets.failover_target_ms, demotions_max = 100;
  for (const SweepRow& row : rows) {
    if (!row.valid) continue;
    x_max = std::max(x_max, row.duration_ms);
    failover_max = std::max(failover_max, row.failover_p99_ms);
    demotions_max = std::max({demotions_max, row.spurious_demotions_per_hour, row.renew_failed_per_hour});
  }
  const Scale x = MakeScale(x_max), left = MakeScale(failover_max), right = MakeScale(demotions_max);
  std::string svg = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n",
      kWidth, kHeight, kWidth, kHeight);
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += Text(kWidth / 2, 20, "middle", "What a lease duration costs: failover p99 against renewal failures and spurious demotions", " font-size=\"14\"");
  svg += Text(kLeft, 40, "start", "failover p99 (leader crash)", " fill=\"" + std::string(kFailoverColour) + "\"");
  svg += Text(kLeft + kPlotW, 40, "end", "per hour (quiet worlds): spurious demotions",
              " fill=\"" + std::string(kDemotionColour) + "\"");
  svg += Text(kLeft + kPlotW, kHeight - 15, "end", "- - renewals failed per hour", " fill=\"" + std::string(kRenewalColour) + "\"");
  svg += Axes(x, left, right);
  const std::int64_t target_y = left.Y(targets.failover_target_ms);
  svg += Line(kLeft, target_y, kLeft + kPlotW, target_y, "stroke=\"#b22\" stroke-dasharray=\"6 4\"");
  svg += Text(kLeft + 6, target_y - 6, "start", "failover target " + SecondsTick(targets.failover_target_ms),
              " fill=\"#b22\"");
  svg += Series(rows, x, right, Measure::kRenewalsFailed, kRenewalColour, "5 3");
  svg += Series(rows, x, right, Measure::kSpuriousDemotions, kDemotionColour);
  svg += Series(rows, x, left, Measure::kFailoverP99, kFailoverColour);
  svg += "</svg>\n";
  return svg;
}

}  // namespace leasesim::timing
