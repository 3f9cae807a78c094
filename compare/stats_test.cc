#include "compare/stats.h"

#include <gtest/gtest.h>

#include <vector>

namespace leasesim::compare {
namespace {

// Percentiles are base::NearestRank's (base/percentile_test.cc).
TEST(Quantiles, MedianAsWritten) {
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({5, 1, 3}), 3);
}

// d = 1..5, all positive: W+ = 15, the largest of the 32 equally likely
// sign assignments; only one reaches it, so p = 2 * 1/32.
TEST(WilcoxonSignedRank, ExactForAllPositiveDifferences) {
  const SignedRank r = WilcoxonSignedRank({1, 2, 3, 4, 5});
  EXPECT_EQ(r.nonzero, 5);
  EXPECT_EQ(r.w_plus_x2, 30);
  EXPECT_EQ(r.w_minus_x2, 0);
  EXPECT_TRUE(r.p.exact);
  EXPECT_EQ(r.p.count, 2u);
  EXPECT_EQ(r.p.total, 32u);
  EXPECT_DOUBLE_EQ(r.p.value, 0.0625);
  EXPECT_DOUBLE_EQ(r.rank_biserial, 1.0);
  EXPECT_DOUBLE_EQ(r.hodges_lehmann, 3.0);  // the Walsh averages of 1..5 centre on 3
}

// d = {0, 2, -2, 4, 4, 4}: the zero is dropped; |d| = {2, 2, 4, 4, 4} get
// midranks 1.5, 1.5, 4, 4, 4 (doubled 3, 3, 8, 8, 8). W+ = 1.5 + 12 = 13.5
// (doubled 27), W- = 1.5. Null: 3a + 8b with C(2,a) C(3,b) ways; sums >= 27
// are 27 (2 ways) and 30 (1 way): p = 2 * 3/32. The 21 Walsh averages of
// all six differences have median 2.
TEST(WilcoxonSignedRank, ExactWithZerosAndTies) {
  const SignedRank r = WilcoxonSignedRank({0, 2, -2, 4, 4, 4});
  EXPECT_EQ(r.pairs, 6);
  EXPECT_EQ(r.nonzero, 5);
  EXPECT_EQ(r.w_plus_x2, 27);
  EXPECT_EQ(r.w_minus_x2, 3);
  EXPECT_EQ(r.p.count, 6u);
  EXPECT_EQ(r.p.total, 32u);
  EXPECT_DOUBLE_EQ(r.p.value, 0.1875);
  EXPECT_DOUBLE_EQ(r.rank_biserial, 0.8);
  EXPECT_DOUBLE_EQ(r.hodges_lehmann, 2.0);
}

TEST(WilcoxonSignedRank, NoDifferenceIsPOne) {
  const SignedRank r = WilcoxonSignedRank({0, 0, 0});
  EXPECT_EQ(r.nonzero, 0);
  EXPECT_DOUBLE_EQ(r.p.value, 1.0);
  EXPECT_DOUBLE_EQ(r.hodges_lehmann, 0.0);
  // A balanced sample: W+ = W- sits at the centre, p = 1 (capped).
  EXPECT_DOUBLE_EQ(WilcoxonSignedRank({1, -1}).p.value, 1.0);
}

// d = 1..70 (beyond the exact limit): W+ = 2485, mean 1242.5, variance
// 70*71*141/24 = 29198.75; z = (1242.5 - 0.5) / 170.877 = 7.2684,
// p = erfc(z / sqrt 2) = 3.637e-13.
TEST(WilcoxonSignedRank, NormalApproximationBeyondTheExactLimit) {
  std::vector<std::int64_t> d;
  for (int i = 1; i <= 70; ++i) d.push_back(i);
  const SignedRank r = WilcoxonSignedRank(d);
  EXPECT_FALSE(r.p.exact);
  EXPECT_NEAR(r.p.value / 3.6374e-13, 1.0, 1e-3);
  EXPECT_DOUBLE_EQ(r.hodges_lehmann, 35.5);
}

// 40 differences of +1 and 25 of -1: every |d| ties (midrank 33), W+ =
// 1320, mean 1072.5, variance 65*66*131/24 - (65^3 - 65)/48 = 17696.25,
// z = 1.85676, p = 0.063345: the tie correction matters.
TEST(WilcoxonSignedRank, TieCorrectionInTheNormalApproximation) {
  std::vector<std::int64_t> d(40, 1);
  d.insert(d.end(), 25, -1);
  const SignedRank r = WilcoxonSignedRank(d);
  EXPECT_EQ(r.w_plus_x2, 2640);
  EXPECT_NEAR(r.p.value, 0.063345, 1e-5);
}

// base {1,2,3}, new {4,5,6}: U = 9 of 9, the largest of C(6,3) = 20 rank
// choices: p = 2/20. Differences new - base: 1,2,2,3,3,3,4,4,5 -> HL 3.
TEST(MannWhitney, ExactWithoutTies) {
  const RankSum r = MannWhitney({1, 2, 3}, {4, 5, 6});
  EXPECT_EQ(r.u_x2, 18);
  EXPECT_TRUE(r.p.exact);
  EXPECT_EQ(r.p.count, 2u);
  EXPECT_EQ(r.p.total, 20u);
  EXPECT_DOUBLE_EQ(r.rank_biserial, 1.0);
  EXPECT_DOUBLE_EQ(r.hodges_lehmann, 3.0);
}

// base {1,2,2}, new {2,3,3}: pooled ranks 1, 3,3,3, 5.5,5.5; new's rank
// sum 14, U = 14 - 6 = 8 (the 2 beats 1 and ties two 2s: 2; each 3 beats
// all three: 6). Rank sums >= 14 (doubled 28): 3 of 20 choices: p = 6/20.
// Differences 1,0,0,2,1,1,2,1,1 -> median 1; r = 16/9 - 1.
TEST(MannWhitney, ExactWithTies) {
  const RankSum r = MannWhitney({1, 2, 2}, {2, 3, 3});
  EXPECT_EQ(r.u_x2, 16);
  EXPECT_EQ(r.p.count, 6u);
  EXPECT_EQ(r.p.total, 20u);
  EXPECT_DOUBLE_EQ(r.p.value, 0.3);
  EXPECT_NEAR(r.rank_biserial, 7.0 / 9.0, 1e-12);
  EXPECT_DOUBLE_EQ(r.hodges_lehmann, 1.0);
}

// base 0..24, new 20..44 (N = 50, beyond the exact limit; five tied pairs):
// U = 612.5, variance 625/12 * (51 - 30/2450) = 2655.61, z = 5.81185,
// p = 6.1786e-9; HL shift 20.
TEST(MannWhitney, NormalApproximationWithTies) {
  std::vector<std::int64_t> base;
  std::vector<std::int64_t> next;
  for (int i = 0; i < 25; ++i) {
    base.push_back(i);
    next.push_back(20 + i);
  }
  const RankSum r = MannWhitney(base, next);
  EXPECT_FALSE(r.p.exact);
  EXPECT_EQ(r.u_x2, 1225);
  EXPECT_NEAR(r.p.value / 6.1786e-9, 1.0, 1e-3);
  EXPECT_DOUBLE_EQ(r.hodges_lehmann, 20.0);
}

TEST(MannWhitney, OneRunASideTellsNothing) {
  const RankSum r = MannWhitney({10}, {20});
  EXPECT_DOUBLE_EQ(r.p.value, 1.0);  // 2 * 1/2, capped
  EXPECT_DOUBLE_EQ(MannWhitney({}, {1, 2}).p.value, 1.0);
}

// Sorted 0.01, 0.03, 0.04, 0.5 times 4, 3, 2, 1 = 0.04, 0.09, 0.08, 0.5;
// running maximum 0.04, 0.09, 0.09, 0.5.
TEST(Holm, StepDownWithARunningMaximum) {
  const std::vector<double> adjusted = HolmAdjust({0.01, 0.04, 0.03, 0.5});
  ASSERT_EQ(adjusted.size(), 4u);
  EXPECT_NEAR(adjusted[0], 0.04, 1e-12);
  EXPECT_NEAR(adjusted[1], 0.09, 1e-12);
  EXPECT_NEAR(adjusted[2], 0.09, 1e-12);
  EXPECT_NEAR(adjusted[3], 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(HolmAdjust({0.6, 0.7})[0], 1.0);
}

}  // namespace
}  // namespace leasesim::compare
