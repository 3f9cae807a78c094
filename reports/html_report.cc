#include "reports/html_report.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/hash_text.h"
#include "reports/html_page.h"
#include "reports/html_parts.h"
#include "reports/markup.h"
#include "reports/summary_json.h"
#include "reports/timeline_svg.h"

namespace leasesim::reports {
namespace {

using base::HashText;
using html::Attr;
using html::NodeList;
using html::PageHead;
using html::RunId;
using html::Text;
using html::TimelineLegend;
using html::TimeOrdered;

constexpr std::size_t kFailingSeedsListed = 12;  // per scenario, in the table
constexpr std::size_t kMoreFailuresListed = 200;

bool Drawn(const std::vector<Timeline>& timelines, const std::string& scenario, std::uint64_t seed) {
  bool drawn = false;
  for (const Timeline& t : timelines) drawn = drawn || (t.scenario == scenario && t.seed == seed);
  return drawn;
}

// One row of the scenarios table: status, runs, failures (the first seeds
// linked to their timelines) and two mean figures.
std::string ScenarioRow(const SweepTotals& sweep, const std::vector<Timeline>& timelines, std::size_t index) {
  const std::string& scenario = sweep.scenarios()[index];
  const ScenarioTotals& totals = sweep.by_scenario()[index];
  std::string failing;
  for (std::size_t i = 0; i < totals.failed_seeds.size() && i < kFailingSeedsListed; ++i) {
    const std::uint64_t seed_number = totals.failed_seeds[i];
    const std::string seed = std::to_string(seed_number);
    failing += (failing.empty() ? "" : ", ") +
               (Drawn(timelines, scenario, seed_number) ? "<a href=\"#" + Attr(RunId(scenario, seed_number)) + "\">" + seed + "</a>"
                                                        : seed);
  }
  if (totals.failed_seeds.size() > kFailingSeedsListed) failing += ", \xE2\x80\xA6";
  auto mean = [&](const char* name, const char* unit) -> std::string {
    auto it = totals.figures.find(name);
    if (it == totals.figures.end() || it->second.runs == 0) return "\xE2\x80\x93";
    return std::to_string(it->second.sum / it->second.runs) + unit;
  };
  const bool pass = totals.failed == 0;
  return "<tr class=\"scenario " + std::string(pass ? "pass" : "fail") + "\" id=\"scenario-" +
         Attr(IdFragment(scenario)) + "\"><td class=\"status " + (pass ? "pass\">pass" : "fail\">FAIL") +
         "</td><td>" + Text(scenario) + "</td><td class=\"num\">" + std::to_string(totals.runs) +
         "</td><td class=\"num\">" + std::to_string(totals.failed) + "</td><td>" + failing +
         "</td><td class=\"num\">" + mean("leaderless_ms", " ms") + "</td><td class=\"num\">" +
         mean("leader_terms", "") + "</td></tr>\n";
}

std::string ScenarioTable(const SweepTotals& sweep, const std::vector<Timeline>& timelines) {
  std::string html =
      "<h2>Scenarios</h2>\n<table class=\"scenarios\">\n<tr><th>status</th><th>scenario</th><th>runs</th>"
      "<th>failed</th><th>failing seeds</th><th>mean leaderless</th><th>mean leader terms</th></tr>\n";
  for (std::size_t i = 0; i < sweep.scenarios().size(); ++i) html += ScenarioRow(sweep, timelines, i);
  html += "</table>\n";
  return html;
}

// The failing runs without a timeline: one line each, with the first
// unexpected violation and the replay command. Every timeline is of a
// failing run, so the runs not drawn number failed - timelines.
std::string MoreFailures(const SweepTotals& sweep, const std::vector<Timeline>& timelines) {
  std::size_t kept_drawn = 0;
  std::size_t listed = 0;
  std::string rest;
  for (const RunSummary& run : sweep.first_failing()) {
    if (Drawn(timelines, run.scenario, run.seed)) {
      ++kept_drawn;
      continue;
    }
    if (++listed > kMoreFailuresListed) continue;
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
  // Failing runs beyond those kept whole: all of them, less the drawn ones among them.
  const std::size_t beyond = static_cast<std::size_t>(sweep.failed()) - sweep.first_failing().size();
  const std::size_t drawn_beyond = std::min(beyond, timelines.size() - std::min(timelines.size(), kept_drawn));
  listed += beyond - drawn_beyond;
  if (listed == 0) return "";
  std::string html = "<h2>More failing runs</h2>\n<ul class=\"more-failures\">\n" + rest;
  if (listed > kMoreFailuresListed) {
    html += "<li>\xE2\x80\xA6 and " + std::to_string(listed - kMoreFailuresListed) +
            " more (summary.json lists every one)</li>\n";
  }
  html += "</ul>\n";
  return html;
}

std::string FailingRuns(const SweepTotals& sweep, const std::vector<Timeline>& timelines) {
  const int failed = sweep.failed();
  std::string html = "<h2>Failing runs</h2>\n";
  if (static_cast<std::size_t>(failed) > timelines.size()) {
    html += "<p class=\"meta\">Timelines of the first " + std::to_string(timelines.size()) + " of " +
            std::to_string(failed) +
            " failing runs; draw any other with <code>leasesim replay \xE2\x80\xA6 --html FILE</code>.</p>\n";
  }
  for (const Timeline& timeline : timelines) html += TimelineSection(timeline);
  html += MoreFailures(sweep, timelines);
  return html;
}

// Every figure by scenario: mean [min - max]; open when nothing failed.
std::string FiguresTable(const SweepTotals& sweep, bool open) {
  std::set<std::string> figure_names;
  for (const ScenarioTotals& totals : sweep.by_scenario()) {
    for (const auto& [name, range] : totals.figures) figure_names.insert(name);
  }
  if (figure_names.empty()) return "";
  std::string html = "<details class=\"figures\"" + std::string(open ? " open" : "") +
                     "><summary><h2>Figures</h2></summary>\n"
                     "<p class=\"meta\">mean [min \xE2\x80\x93 max] over each scenario's runs</p>\n"
                     "<div class=\"wide\"><table class=\"figures\">\n<tr><th>figure</th>";
  for (const std::string& scenario : sweep.scenarios()) html += "<th>" + Text(scenario) + "</th>";
  html += "</tr>\n";
  for (const std::string& name : figure_names) {
    html += "<tr><td><code>" + Text(name) + "</code></td>";
    for (const ScenarioTotals& totals : sweep.by_scenario()) {
      auto it = totals.figures.find(name);
      if (it == totals.figures.end() || it->second.runs == 0) {
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
  return html;
}

// The suite-level requirements (id "suite"): what the file requires, and
// what no run met; in a shard, that merge judges them.
std::string SuiteSection(const SuiteRequirements& suite, const std::string& file) {
  if (!suite.any()) return "";
  auto line = [&](const char* requirement, const std::vector<std::string>& names,
                  const std::vector<std::string>& unmet, const char* never) {
    if (names.empty()) return std::string();
    const bool pass = !suite.judged || unmet.empty();
    std::string text = "<li class=\"" + std::string(!suite.judged ? "pending" : pass ? "pass" : "fail") +
                       "\"><code>" + requirement + "</code>: " + std::to_string(names.size()) + " required";
    if (!suite.judged) return text + ", judged by <code>leasesim merge</code> over all shards</li>\n";
    if (pass) return text + ", all met</li>\n";
    std::string list;
    for (const std::string& name : unmet) list += (list.empty() ? "" : ", ") + Text(name);
    return text + "; FAIL: " + std::to_string(unmet.size()) + " " + never + ": " + list + "</li>\n";
  };
  return "<h2 id=\"suite\">Suite requirements of " + Text(file) + "</h2>\n<ul class=\"suite\">\n" +
         line("require_fault_points", suite.fault_points, suite.fault_points_unmet, "never fired in any run") +
         line("require_probes", suite.probes, suite.probes_unmet, "reached in no run") + "</ul>\n";
}

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
  html += TimelineSvg(t);
  html += TimelineLegend();
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

std::string ReportHtml(const SweepSummary& header, const SweepTotals& sweep, const std::vector<Timeline>& timelines) {
  const int failed = sweep.failed();
  const std::size_t total = sweep.runs();
  std::string html = PageHead("leasesim report: " + header.scenario_file + " seeds " + header.seeds);
  html += "<h1>leasesim: " +
          (failed == 0 ? "all " + std::to_string(total) + " runs passed"
                       : std::to_string(failed) + " of " + std::to_string(total) + " runs failed") +
          (header.suite.failed() ? "; the suite's requirements are not met" : "") + "</h1>\n";
  html += "<p class=\"meta\">scenario file <code>" + Text(header.scenario_file) + "</code>" +
          (header.file_digest.empty() ? "" : " (SHA-256 <code class=\"file-digest\">" + Text(header.file_digest) + "</code>)") +
          ", seeds <code>" + Text(header.seeds) + "</code>" +
          (header.shard.whole() ? "" : ", shard " + FormatShard(header.shard)) + ", leasesim <code class=\"version\">" +
          Text(header.leasesim_version) + "</code></p>\n";
  html += SuiteSection(header.suite, header.scenario_file);
  html += ScenarioTable(sweep, timelines);
  if (failed > 0) html += FailingRuns(sweep, timelines);
  html += FiguresTable(sweep, failed == 0);
  html += "</body>\n</html>\n";
  return html;
}

std::string ReportHtml(const SweepSummary& sweep, const std::vector<Timeline>& timelines) {
  return ReportHtml(sweep, SweepTotals::Of(sweep), timelines);
}

}  // namespace leasesim::reports
