// The progress line's text and when it is written. Only what does not
// depend on the clock is asserted: the first report and the last are always
// written, whatever the rate limit holds back between them.

#include "cli/progress_line.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace leasesim::cli {
namespace {

std::size_t Count(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

TEST(ProgressLine, TextShowsCountEtaRateAndWhatWasFound) {
  EXPECT_EQ(ProgressLine::Text({.done = 1234, .total = 6000, .unit = "runs"}, "0 failed", 3.0),
            "[1234/6000 runs, ETA 12 s] 411/s; 0 failed");
  EXPECT_EQ(ProgressLine::Text({.done = 0, .total = 8, .unit = "placements"}, "0 violating", 0.0),
            "[0/8 placements, ETA ?] 0.0/s; 0 violating");
  EXPECT_EQ(ProgressLine::Text({.done = 100, .total = 500'501, .unit = "placements"}, "", 20.0),
            "[100/500501 placements, ETA 27 h 48 min] 5.0/s");
  EXPECT_EQ(ProgressLine::Text({.done = 300, .total = 1000, .unit = "cases"}, "", 30.0),
            "[300/1000 cases, ETA 70 s] 10.0/s");
  EXPECT_EQ(ProgressLine::Text({.done = 300, .total = 5000, .unit = "cases"}, "", 30.0),
            "[300/5000 cases, ETA 7 min] 10.0/s");
}

TEST(ProgressLine, ATimeBudgetShowsTheTimeLeftOrTheCountsEtaWhicheverComesFirst) {
  EXPECT_EQ(ProgressLine::Text({.done = 412, .unit = "cases", .budget_ms = 15'000}, "x", 6.0),
            "[412 cases, 9 s left] 68.7/s; x");
  EXPECT_EQ(ProgressLine::Text({.done = 900, .total = 1000, .unit = "cases", .budget_ms = 60'000}, "", 10.0),
            "[900/1000 cases, 1 s left] 90.0/s");
  EXPECT_EQ(ProgressLine::Text({.done = 5, .unit = "cases", .budget_ms = 1'000}, "", 3.0),
            "[5 cases, 0 s left] 1.7/s");
}

TEST(ProgressLine, DisabledWritesNothing) {
  std::ostringstream err;
  ProgressLine line(err, false);
  line.Show({.done = 1, .total = 2, .last = true}, "x");
  line.Update(runner::ExploreProgress{.done = 2, .total = 2, .finished = true});
  line.Clear();
  EXPECT_EQ(err.str(), "");
  EXPECT_FALSE(line.enabled());
}

TEST(ProgressLine, TheFirstReportAndTheLastAreWrittenThenErased) {
  std::ostringstream err;
  ProgressLine line(err, true, 200);
  line.Update(runner::ExploreProgress{.done = 0, .total = 3});
  EXPECT_EQ(err.str(), "\r[0/3 placements, ETA ?] 0.0/s; 0 violating\x1b[K");
  line.Update(runner::ExploreProgress{.done = 3, .total = 3, .violating = 1, .finished = true});
  EXPECT_EQ(Count(err.str(), "\r["), 2u);
  EXPECT_NE(err.str().find("\r[3/3 placements, ETA 0 s] "), std::string::npos) << err.str();
  EXPECT_TRUE(err.str().ends_with("/s; 1 violating\x1b[K")) << err.str();
  line.Clear();
  EXPECT_TRUE(err.str().ends_with("\x1b[K\r\x1b[K"));
  line.Clear();  // nothing shown: nothing to erase
  EXPECT_EQ(Count(err.str(), "\r\x1b[K"), 1u);
}

TEST(ProgressLine, ALineWiderThanTheTerminalIsCutToFit) {
  std::ostringstream err;
  ProgressLine line(err, true, 30);
  line.Show({.done = 0, .total = 100, .unit = "cases"}, "a long description of what was found");
  EXPECT_EQ(err.str(), "\r[0/100 cases, ETA ?] 0.0/s; a\x1b[K");  // 29 columns
}

TEST(ProgressLine, FuzzReportsProbesNearMissesTheClosestCallAndViolations) {
  std::ostringstream err;
  ProgressLine line(err, true, 300);
  line.Update(fuzz::SearchProgress{.cases = 40,
                                   .runs_max = 100,
                                   .probes_reached = 18,
                                   .probes_total = 24,
                                   .near_misses = 2,
                                   .closest = "handover_gap_min_ms",
                                   .closest_ms = 3,
                                   .violating = 0});
  EXPECT_NE(err.str().find("\r[40/100 cases, ETA "), std::string::npos) << err.str();
  EXPECT_TRUE(err.str().ends_with("; 0 violating, probes 18/24, near misses 2, closest 3 ms (handover gap)\x1b[K"))
      << err.str();
  // With a time budget, the time left instead of the case limit.
  line.Update(fuzz::SearchProgress{.cases = 41, .runs_max = 10'000'000, .time_budget_ms = 15'000, .probes_total = 24,
                                   .finished = true});
  EXPECT_NE(err.str().find("\r[41 cases, "), std::string::npos) << err.str();
  EXPECT_NE(err.str().find(" left] "), std::string::npos) << err.str();
}

TEST(ProgressLine, ZooCountsVariantsCaughtAndTheHuntUnderWay) {
  std::ostringstream err;
  ZooProgress zoo(err, 2, true, 300);
  const fuzz::HuntWatcher watch = zoo.Hunting("blind-write");
  ASSERT_TRUE(watch);
  EXPECT_TRUE(err.str().ends_with("; 0 caught; hunting blind-write: 0\x1b[K")) << err.str();
  fuzz::ZooRow caught;
  caught.variant = "blind-write";
  caught.caught = true;
  zoo.Done(caught);
  zoo.Hunting("correct");
  fuzz::ZooRow correct;
  correct.variant = "correct";
  EXPECT_EQ(zoo.Done(correct).variant, "correct");  // the last: always written
  EXPECT_NE(err.str().find("\r[2/2 variants, ETA 0 s] "), std::string::npos) << err.str();
  EXPECT_TRUE(err.str().ends_with("; 1 caught\x1b[K")) << err.str();

  std::ostringstream quiet;
  ZooProgress none(quiet, 1, false, 80);
  EXPECT_FALSE(none.Hunting("blind-write"));
  none.Done(caught);
  EXPECT_EQ(quiet.str(), "");
}

}  // namespace
}  // namespace leasesim::cli
