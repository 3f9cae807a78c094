#include "runner/seeds.h"

#include <gtest/gtest.h>

namespace leasesim::runner {
namespace {

TEST(Seeds, RangesAndListsInOrder) {
  auto seeds = ParseSeeds("3-5,9,1-1");
  ASSERT_TRUE(std::holds_alternative<std::vector<std::uint64_t>>(seeds));
  EXPECT_EQ(std::get<std::vector<std::uint64_t>>(seeds), (std::vector<std::uint64_t>{3, 4, 5, 9, 1}));
}

TEST(Seeds, BadInputIsExplained) {
  EXPECT_TRUE(std::holds_alternative<std::string>(ParseSeeds("5-3")));
  EXPECT_TRUE(std::holds_alternative<std::string>(ParseSeeds("x")));
  EXPECT_TRUE(std::holds_alternative<std::string>(ParseSeeds("")));
  EXPECT_TRUE(std::holds_alternative<std::string>(ParseSeeds("1-")));
  EXPECT_TRUE(std::holds_alternative<std::string>(ParseSeeds("0-99999999999")));
}

}  // namespace
}  // namespace leasesim::runner
