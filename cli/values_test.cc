// Option values: the duration syntax the commands accept (--time-budget),
// absl::ParseDuration's plus bare seconds, and the whole numbers beside it.

#include <gtest/gtest.h>

#include "cli/values.h"

namespace leasesim::cli {
namespace {

TEST(ParseDurationMs, TakesAbslSyntaxAndBareSeconds) {
  EXPECT_EQ(ParseDurationMs("90s"), 90'000);
  EXPECT_EQ(ParseDurationMs("10m"), 600'000);
  EXPECT_EQ(ParseDurationMs("2h"), 7'200'000);
  EXPECT_EQ(ParseDurationMs("1h30m"), 5'400'000);
  EXPECT_EQ(ParseDurationMs("1.5h"), 5'400'000);
  EXPECT_EQ(ParseDurationMs("500ms"), 500);
  EXPECT_EQ(ParseDurationMs("2.5s"), 2'500);
  EXPECT_EQ(ParseDurationMs("45"), 45'000);  // a bare number is seconds
  EXPECT_EQ(ParseDurationMs("1000000"), 1'000'000'000);
  EXPECT_EQ(ParseDurationMs("1000000h"), 1'000'000LL * 3'600'000);
}

TEST(ParseDurationMs, RefusesWhatIsNotAPositiveDuration) {
  for (const char* text : {"", "soon", "0", "0s", "-5s", "-5", "1.5", "10x", "s", "h", "inf", "-inf", "500us",
                           "1000001", "1000001h", " 5s", "5s ", "5 s"}) {
    EXPECT_EQ(ParseDurationMs(text), -1) << '"' << text << '"';
  }
}

TEST(ParseNumber, TakesTheWholeTextOnly) {
  int value = 0;
  EXPECT_TRUE(ParseNumber("42", value));
  EXPECT_EQ(value, 42);
  EXPECT_FALSE(ParseNumber("42x", value));
  EXPECT_FALSE(ParseNumber("", value));
  EXPECT_FALSE(ParseNumber("99999999999", value));  // out of int's range
}

}  // namespace
}  // namespace leasesim::cli
