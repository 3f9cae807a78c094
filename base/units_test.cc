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

TEST(Units, TrueSpanAtSlowestIsTheSpanOverTheSlowestRateRoundedUp) {
  static_assert(TrueSpanAtSlowest(Millis(100), 0) == Millis(100));
  static_assert(TrueSpanAtSlowest(Millis(100), 100'000) == 111'111'112);  // not 110 ms
  static_assert(TrueSpanAtSlowest(Millis(90), 100'000) == Millis(100));   // exact: no rounding up
  static_assert(TrueSpanAtSlowest(Millis(100), -5) == Millis(100));       // a bound below 0 is 0
  // No product overflows, even for the longest span at a bound near one.
  EXPECT_EQ(TrueSpanAtSlowest(kNeverNanos / kPpmOne, kPpmOne - 1), kNeverNanos / kPpmOne * kPpmOne);
}

TEST(Units, LocalSpanAtFastestIsTheSpanAtTheFastestRateRoundedUp) {
  static_assert(LocalSpanAtFastest(Millis(100), 0) == Millis(100));
  static_assert(LocalSpanAtFastest(Millis(100), 10'000) == Millis(101));
  static_assert(LocalSpanAtFastest(3, 10'000) == 4);  // 3.03 ns rounded up
  EXPECT_EQ(LocalSpanAtFastest(kNeverNanos / 4, kPpmOne), kNeverNanos / 4 * 2);
}

}  // namespace
}  // namespace leasesim::base
