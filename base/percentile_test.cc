// The nearest-rank rule, the one percentile compare/, timing/ and live/ use.

#include "base/percentile.h"

#include <gtest/gtest.h>

#include <numeric>

namespace leasesim::base {
namespace {

TEST(NearestRank, IsTheCeilingRankOfTheSortedValues) {
  const std::vector<std::int64_t> ten = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
  EXPECT_EQ(NearestRank(ten, 500), 5);   // ceil(0.5 * 10) = 5th
  EXPECT_EQ(NearestRank(ten, 900), 9);   // 9th
  EXPECT_EQ(NearestRank(ten, 990), 10);  // ceil(9.9) = 10th
  EXPECT_EQ(NearestRank(ten, 1000), 10);
  EXPECT_EQ(NearestRank(ten, 1), 1);
  EXPECT_EQ(NearestRank({7}, 1), 7);
  EXPECT_EQ(NearestRank({5, 1, 3}, 500), 3);
}

// Integer arithmetic: p99 of 1..100 is exactly the 99th value, where
// ceil(0.99 * 100) in floating point could land on the 100th.
TEST(NearestRank, IsExactWhereFloatingPointWouldRoundUp) {
  std::vector<std::int64_t> hundred(100);
  std::iota(hundred.begin(), hundred.end(), 1);
  EXPECT_EQ(NearestRank(hundred, 990), 99);
  EXPECT_EQ(NearestRank(hundred, 999), 100);
  std::vector<std::int64_t> thousand(1000);
  std::iota(thousand.begin(), thousand.end(), 1);
  EXPECT_EQ(NearestRank(thousand, 999), 999);
}

TEST(NearestRank, IsZeroWhenThereIsNothing) { EXPECT_EQ(NearestRank({}, 990), 0); }

}  // namespace
}  // namespace leasesim::base
