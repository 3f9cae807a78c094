#include "base/hash_text.h"

#include <gtest/gtest.h>

namespace leasesim::base {
namespace {

TEST(HashText, IsSixteenLowercaseHexDigitsZeroPadded) {
  EXPECT_EQ(HashText(0), "0000000000000000");
  EXPECT_EQ(HashText(0xbeef), "000000000000beef");
  EXPECT_EQ(HashText(0x5f0c1d2e3a4b6c7dULL), "5f0c1d2e3a4b6c7d");
  EXPECT_EQ(HashText(~std::uint64_t{0}), "ffffffffffffffff");
}

}  // namespace
}  // namespace leasesim::base
