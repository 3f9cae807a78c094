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
  EXPECT_TRUE(std::holds_alternative<base::InputError>(ParseSeeds("5-3")));
  EXPECT_TRUE(std::holds_alternative<base::InputError>(ParseSeeds("x")));
  EXPECT_TRUE(std::holds_alternative<base::InputError>(ParseSeeds("")));
  EXPECT_TRUE(std::holds_alternative<base::InputError>(ParseSeeds("1-")));
  EXPECT_TRUE(std::holds_alternative<base::InputError>(ParseSeeds("0-99999999999")));
  // The rule names the part; the caller names where it was written.
  const auto backwards = ParseSeeds("1,5-3");
  ASSERT_TRUE(std::holds_alternative<base::InputError>(backwards));
  EXPECT_EQ(std::get<base::InputError>(backwards).path, "");
  EXPECT_EQ(std::get<base::InputError>(backwards).rule, "\"5-3\": a range must not run backwards");
}

}  // namespace
}  // namespace leasesim::runner
