#include "core/timing.h"

#include <gtest/gtest.h>

#include "base/units.h"
#include "core/timing_test_values.h"

namespace leasesim::core {
namespace {

using base::Millis;

using test_values::SoundTiming;

bool Names(const std::vector<TimingError>& errors, const std::string& field) {
  for (const TimingError& e : errors) {
    if (e.path == field) return true;
  }
  return false;
}

TEST(Timing, SoundConfigPasses) { EXPECT_TRUE(ValidateTiming(SoundTiming()).empty()); }

TEST(Timing, ABrokenRuleIsTheOneBadInputErrorNamingItsField) {
  TimingConfig t = SoundTiming();
  t.retry = 0;
  const std::vector<TimingError> errors = ValidateTiming(t);
  ASSERT_EQ(errors.size(), 1u);
  const base::InputError& error = errors[0];  // the same type, not a copy of it
  EXPECT_EQ(error.ToString(), "retry: must be positive (got 0 ms)");
  EXPECT_EQ(error.In("timing.json"), "timing.json: retry: must be positive (got 0 ms)");
}

TEST(Timing, EachRuleIsNamed) {
  TimingConfig t = SoundTiming();
  t.renew_deadline = Millis(9'600);  // > 10000*(1-0.001) - 500 = 9490
  auto errors = ValidateTiming(t);
  ASSERT_TRUE(Names(errors, "renew_deadline"));
  EXPECT_NE(errors[0].rule.find("9490 ms"), std::string::npos) << errors[0].rule;

  t = SoundTiming();
  t.renew_interval = Millis(7'000);
  EXPECT_TRUE(Names(ValidateTiming(t), "renew_interval"));

  t = SoundTiming();
  t.request_timeout = Millis(3'000);
  EXPECT_TRUE(Names(ValidateTiming(t), "request_timeout"));

  t = SoundTiming();
  t.retry = Millis(4'000);
  EXPECT_TRUE(Names(ValidateTiming(t), "retry"));

  t = SoundTiming();
  t.lease_duration = -1;
  EXPECT_TRUE(Names(ValidateTiming(t), "lease_duration"));

  t = SoundTiming();
  t.drift_bound_ppm = 200'000;
  EXPECT_TRUE(Names(ValidateTiming(t), "drift_bound_ppm"));

  t = SoundTiming();
  t.pause_budget = Millis(3'000);  // > 9490 - 7000
  EXPECT_TRUE(Names(ValidateTiming(t), "pause_budget"));
}

// A released record waits out ReleasedRecordWait for its preferred
// successor: with retries over a third of the lease that is the longer
// wait, and the bound must cover it (found by the fuzzer's timing edges).
TEST(Timing, TheRecoveryBoundCoversTheWaitForAReleasedRecord) {
  TimingConfig t{.lease_duration = Millis(6000), .renew_interval = Millis(2000), .renew_deadline = Millis(5900),
                 .retry = Millis(3800), .request_timeout = Millis(300)};
  ASSERT_TRUE(ValidateTiming(t).empty());
  EXPECT_GE(RecoveryBound(t), ReleasedRecordWait(t) + 2 * t.retry + 2 * t.request_timeout);
  t.retry = Millis(100);
  EXPECT_EQ(RecoveryBound(t), TakeoverWait(t.lease_duration, 0) + 2 * t.retry + 2 * t.request_timeout);
}

TEST(Timing, TakeoverWaitCoversDrift) {
  EXPECT_EQ(TakeoverWait(Millis(10'000), 1'000), Millis(10'010));
  EXPECT_EQ(TakeoverWait(Millis(10'000), 0), Millis(10'000));
}

}  // namespace
}  // namespace leasesim::core
