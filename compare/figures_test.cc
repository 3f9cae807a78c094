#include "compare/figures.h"

#include <gtest/gtest.h>

namespace leasesim::compare {
namespace {

TEST(Figures, EveryFigureHasADirection) {
  EXPECT_EQ(DescribeFigure("leaderless_ms").direction, Direction::kLowerIsBetter);
  EXPECT_EQ(DescribeFigure("settlements_applied").direction, Direction::kHigherIsBetter);
  EXPECT_EQ(DescribeFigure("demotions_deadline").direction, Direction::kLowerIsBetter);
  // An exact entry wins over its prefix: a crash demotes whatever the protocol.
  EXPECT_EQ(DescribeFigure("demotions_crash").direction, Direction::kNeutral);
  EXPECT_EQ(DescribeFigure("probe_renewal_retried").direction, Direction::kNeutral);
  EXPECT_TRUE(DescribeFigure("recovery_ms").minus_one_is_never);
  EXPECT_TRUE(DescribeFigure("failover_ms_max").known);
  EXPECT_TRUE(DescribeFigure("timing_calls_over_p99").known) << "timing's figures are in the registry too";
  EXPECT_FALSE(DescribeFigure("something_new").known);
  EXPECT_EQ(DescribeFigure("something_new").direction, Direction::kNeutral);
}

TEST(Tolerance, ParsesPercentAndAbsolute) {
  base::InputError error;
  const auto percent = ParseTolerance("leaderless_ms=+5%", error);
  ASSERT_TRUE(percent) << error.ToString();
  EXPECT_EQ(percent->pattern, "leaderless_ms");
  EXPECT_TRUE(percent->relative);
  EXPECT_EQ(percent->milli_percent, 5000);
  EXPECT_EQ(percent->ToString(), "+5%");
  const auto fraction = ParseTolerance("demotions_*=0.25%", error);
  ASSERT_TRUE(fraction) << error.ToString();
  EXPECT_EQ(fraction->milli_percent, 250);
  EXPECT_EQ(fraction->ToString(), "+0.25%");
  EXPECT_TRUE(fraction->Matches("demotions_deadline"));
  const auto absolute = ParseTolerance("store_ops=+200", error);
  ASSERT_TRUE(absolute) << error.ToString();
  EXPECT_FALSE(absolute->relative);
  EXPECT_EQ(absolute->absolute, 200);
}

TEST(Tolerance, RejectsWhatItCannotRead) {
  for (const char* bad : {"leaderless_ms", "=5%", "x=", "x=+%", "x=five%", "x=1.2345%", "x=2000%", "x=-5%", "x=1.5",
                          "x=5.%", "a*b*=5%"}) {
    base::InputError error;
    EXPECT_FALSE(ParseTolerance(bad, error)) << bad;
    EXPECT_EQ(error.path, "--tolerate") << bad;
    EXPECT_NE(error.rule.find("FIGURE=+N%"), std::string::npos) << bad;
  }
}

TEST(Tolerance, ExactNameWinsOverPrefixThenDefault) {
  base::InputError error;
  const std::vector<Tolerance> given = {*ParseTolerance("demotions_deadline=+1%", error),
                                        *ParseTolerance("demotions_*=+50%", error)};
  EXPECT_EQ(ToleranceFor("demotions_deadline", given).milli_percent, 1000);
  EXPECT_EQ(ToleranceFor("demotions_conflict", given).milli_percent, 50'000);
  EXPECT_EQ(ToleranceFor("leaderless_ms", given).milli_percent, kDefaultToleranceMilliPercent);
  // A family's '*' may stand inside the name, as the registry's do.
  const std::vector<Tolerance> failover = {*ParseTolerance("timing_failover_*_ms=+10%", error)};
  EXPECT_EQ(ToleranceFor("timing_failover_3_ms", failover).milli_percent, 10'000);
  EXPECT_EQ(ToleranceFor("timing_failovers", failover).milli_percent, kDefaultToleranceMilliPercent);
}

}  // namespace
}  // namespace leasesim::compare
