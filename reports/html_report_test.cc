#include "reports/html_report.h"

#include <gtest/gtest.h>

#include "base/units.h"
#include "reports/sample_report.h"
#include "reports/xml_test_util.h"

namespace leasesim::reports {
namespace {

using testing::XmlElement;
using testing::XmlReader;

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

// Every element (depth first) whose class list holds all of `classes`.
void Collect(const XmlElement& element, const std::vector<std::string>& classes, std::vector<const XmlElement*>& out) {
  auto it = element.attributes.find("class");
  if (it != element.attributes.end()) {
    const std::string list = " " + it->second + " ";
    bool all = true;
    for (const std::string& c : classes) all = all && list.find(" " + c + " ") != std::string::npos;
    if (all) out.push_back(&element);
  }
  for (const auto& child : element.children) Collect(*child, classes, out);
}

std::vector<const XmlElement*> Find(const XmlElement& root, const std::vector<std::string>& classes) {
  std::vector<const XmlElement*> found;
  Collect(root, classes, found);
  return found;
}

std::unique_ptr<XmlElement> ParseSvg(const std::string& html) {
  const std::size_t begin = html.find("<svg");
  const std::size_t end = html.find("</svg>");
  if (begin == std::string::npos || end == std::string::npos) return nullptr;
  return XmlReader::Parse(html.substr(begin, end + 6 - begin), false);
}

TEST(TimelineHtml, DrawsLanesBeliefsHolderFaultsWritesAndTheViolation) {
  const Timeline t = testing::SampleFailingTimeline();
  const std::string html = TimelineHtml(t);
  std::unique_ptr<XmlElement> svg;
  ASSERT_NO_THROW(svg = ParseSvg(html));
  ASSERT_NE(svg, nullptr);
  EXPECT_EQ(Find(*svg, {"lane", "lane-node"}).size(), 3u);
  EXPECT_EQ(Find(*svg, {"lane", "lane-store"}).size(), 1u);
  EXPECT_EQ(Find(*svg, {"lane", "lane-ledger"}).size(), 1u);
  const auto beliefs = Find(*svg, {"belief"});
  ASSERT_EQ(beliefs.size(), 2u);
  EXPECT_EQ(Find(*svg, {"belief", "term-2"}).size(), 1u);
  EXPECT_NE(beliefs[0]->attributes.at("fill"), beliefs[1]->attributes.at("fill"));  // coloured by term
  EXPECT_EQ(Find(*svg, {"holder"}).size(), 2u);
  EXPECT_EQ(Find(*svg, {"fault", "fault-pause", "beyond"}).size(), 1u);
  EXPECT_EQ(Find(*svg, {"fault", "fault-partition"}).size(), 1u);
  EXPECT_EQ(Find(*svg, {"fault", "fault-clock_step", "instant"}).size(), 1u);
  EXPECT_EQ(Find(*svg, {"fault", "fault-crash"}).size(), 1u);  // shaded until the restart
  EXPECT_EQ(Find(*svg, {"write", "rejected"}).size(), 1u);
  EXPECT_EQ(Find(*svg, {"write", "lost"}).size(), 1u);
  EXPECT_EQ(Find(*svg, {"write", "applied"}).size(), t.writes.size() - 2);
  const auto violations = Find(*svg, {"violation"});
  ASSERT_EQ(violations.size(), 2u);
  // In time order: the overlap (31 s) before the stale write (40.2 s).
  EXPECT_EQ(violations[0]->attributes.at("data-kind"), "lease_overlap");
  EXPECT_EQ(violations[1]->attributes.at("data-kind"), "stale_token_write");
  EXPECT_EQ(Find(*svg, {"violation", "expected"}).size(), 1u);
  EXPECT_EQ(Find(*svg, {"violation-badge"}).size(), 2u);
  EXPECT_LT(html.find("1. lease_overlap at 31.000 s"), html.find("2. stale_token_write at 40.200 s"));
  // The explanation, escaped, under the picture.
  EXPECT_NE(html.find("&lt;no fencing&gt; &amp; &quot;stale&quot;"), std::string::npos);
  EXPECT_NE(html.find("class=\"violation-list\""), std::string::npos);
  // The token of each write is written on its tick.
  EXPECT_NE(html.find("token 1, window 3: applied"), std::string::npos);
}

TEST(TimelineHtml, CloseViolationsShareOneBadge) {
  Timeline t = testing::SampleFailingTimeline();
  t.violations.clear();
  for (int i = 0; i < 4; ++i) {
    t.violations.push_back({"dual_writer", "w" + std::to_string(i), base::Seconds(20) + i * base::kNanosPerMilli, {1, 2}, false});
  }
  t.violations.push_back({"term_reuse", "far", base::Seconds(50), {2}, false});
  std::unique_ptr<XmlElement> svg;
  ASSERT_NO_THROW(svg = ParseSvg(TimelineHtml(t)));
  EXPECT_EQ(Find(*svg, {"violation"}).size(), 5u);  // every violation keeps its line
  const auto badges = Find(*svg, {"violation-badge"});
  ASSERT_EQ(badges.size(), 2u);
  EXPECT_EQ(Find(*badges[0], {"violation-number"}).at(0)->text, "1\xE2\x80\x93" "4");
  EXPECT_EQ(Find(*badges[1], {"violation-number"}).at(0)->text, "5");
}

TEST(TimelineHtml, IsSelfContained) {
  const std::string html = TimelineHtml(testing::SampleFailingTimeline());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  // The only URL is the SVG namespace name (never fetched).
  EXPECT_EQ(Count(html, "http"), Count(html, "http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
}

TEST(TimelineHtml, HandlesAnEmptyRunAndFaultsOnNoNode) {
  Timeline t{.scenario = "quiet", .seed = 1, .node_count = 2, .end_ns = 0};
  t.faults.push_back({"store_outage", {}, 0, 0, true, ""});
  std::unique_ptr<XmlElement> svg;
  ASSERT_NO_THROW(svg = ParseSvg(TimelineHtml(t)));
  EXPECT_EQ(Find(*svg, {"lane", "lane-node"}).size(), 2u);
  EXPECT_EQ(Find(*svg, {"fault", "fault-store_outage"}).size(), 1u);
}

TEST(ReportHtml, TablesEveryScenarioAndDrawsTheFailingRuns) {
  const SweepSummary sweep = testing::SampleFailingSweep();
  const std::string html = ReportHtml(sweep, {testing::SampleFailingTimeline()});
  EXPECT_NE(html.find("1 of 6 runs failed"), std::string::npos);
  EXPECT_EQ(Count(html, "<tr class=\"scenario pass\""), 1);
  EXPECT_EQ(Count(html, "<tr class=\"scenario fail\""), 1);
  EXPECT_EQ(Count(html, "<svg class=\"timeline\""), 1);
  EXPECT_NE(html.find("href=\"#run-gc-pause____unfenced_-17\""), std::string::npos);
  EXPECT_NE(html.find("id=\"run-gc-pause____unfenced_-17\""), std::string::npos);
  EXPECT_NE(html.find("<code>leader_terms</code>"), std::string::npos);
  EXPECT_EQ(ReportHtml(sweep, {testing::SampleFailingTimeline()}), html);  // a pure function
}

TEST(ReportHtml, ListsFailingRunsBeyondTheDrawnOnes) {
  const SweepSummary sweep = testing::SampleFailingSweep();
  const std::string html = ReportHtml(sweep, {});
  EXPECT_EQ(Count(html, "<svg"), 0);
  EXPECT_NE(html.find("class=\"more-failures\""), std::string::npos);
  EXPECT_NE(html.find("leasesim replay &#39;sc&amp;n.json&#39; --scenario x --seed 17"), std::string::npos);
}

TEST(ReportHtml, AllPassingSaysSo) {
  SweepSummary sweep{.scenario_file = "f.json", .seeds = "1", .scenarios = {"a"}};
  sweep.runs.push_back({.scenario = "a", .seed = 1});
  const std::string html = ReportHtml(sweep, {});
  EXPECT_NE(html.find("all 1 runs passed"), std::string::npos);
  EXPECT_EQ(html.find("Failing runs"), std::string::npos);
}

}  // namespace
}  // namespace leasesim::reports
