// Time units: the conversions every layer relies on.

#include "base/units.h"

#include <gtest/gtest.h>

namespace leasesim::base {
namespace {

TEST(Units, ConversionsAreExactIntegers) {
  static_assert(Micros(3) == 3'000);
  static_assert(Millis(3) == 3'000'000);
  static_assert(Seconds(3) == 3'000'000'000);
  EXPECT_EQ(Seconds(1), 1000 * Millis(1));
  EXPECT_EQ(Millis(1), 1000 * Micros(1));
  EXPECT_EQ(Millis(-5), -5 * kNanosPerMilli);
  // 100 days in ms, as scenario files allow, fits with room to spare.
  EXPECT_GT(kNeverNanos / kNanosPerMilli, 100LL * 24 * 3600 * 1000 * 1000);
}

TEST(Units, WholeMillisCutsTowardZero) {
  static_assert(WholeMillis(Millis(7)) == Millis(7));
  static_assert(WholeMillis(Millis(7) + 999'999) == Millis(7));
  static_assert(WholeMillis(999'999) == 0);
  EXPECT_EQ(WholeMillis(-Millis(2) - 1), -Millis(2));
}

}  // namespace
}  // namespace leasesim::base
