#include "fuzz/baseline.h"

#include <gtest/gtest.h>

#include <sstream>

#include "runner/run.h"

namespace leasesim::fuzz {
namespace {

FuzzOptions Session(const std::string& protocol, int runs) {
  FuzzOptions options;
  options.runs = runs;
  options.seed = 1;
  options.protocol = protocol;
  return options;
}

// blind-write overwrites the record instead of compare-and-set: the search
// catches it within its first cases; the correct baseline passes them.
TEST(Baseline, ReportsCasesWhereTheNewProtocolIsWorse) {
  std::ostringstream log;
  const BaselineOutcome outcome = RunAgainstBaseline(Session("blind-write", 6), "correct", log);
  EXPECT_EQ(outcome.cases, 6);  // every case runs; the session does not stop at the first
  ASSERT_GE(outcome.worse, 1);
  EXPECT_EQ(outcome.better, 0);
  ASSERT_FALSE(outcome.worse_cases.empty());
  const WorseCase& first = outcome.worse_cases.front();
  ASSERT_FALSE(first.new_violations.empty());
  EXPECT_TRUE(first.baseline_kinds.empty());
  EXPECT_EQ(first.scenario.name, "worse-" + std::to_string(first.index));
  // The kept case replays: the new side fails with its kinds, the baseline does not.
  const runner::RunResult again = runner::RunScenario(first.scenario, first.seed);
  ASSERT_FALSE(again.ok());
  runner::Scenario baseline = first.scenario;
  baseline.protocol = "correct";
  EXPECT_TRUE(runner::RunScenario(baseline, first.seed).ok());
}

TEST(Baseline, TheOtherWayRoundIsBetterNeverWorse) {
  std::ostringstream log;
  const BaselineOutcome outcome = RunAgainstBaseline(Session("correct", 6), "blind-write", log);
  EXPECT_EQ(outcome.worse, 0);
  EXPECT_GE(outcome.better, 1);
  const BaselineOutcome same = RunAgainstBaseline(Session("correct", 4), "correct", log);
  EXPECT_EQ(same.worse + same.better + same.both_failing, 0);
}

TEST(Baseline, RefusesWhatItCannotCompare) {
  EXPECT_NE(CheckBaseline(Session("correct", 1), "nope").find("unknown protocol \"nope\""), std::string::npos);
  FuzzOptions determinism = Session("correct", 1);
  determinism.property = "same-seed-same-trace";
  EXPECT_NE(CheckBaseline(determinism, "blind-write").find("compares a run with itself"), std::string::npos);
  EXPECT_EQ(CheckBaseline(Session("correct", 1), "no-fencing,no-idempotency-key"), "");
}

}  // namespace
}  // namespace leasesim::fuzz
