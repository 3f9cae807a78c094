#include "base/units.h"
#include "core/timing.h"

#include <gtest/gtest.h>

namespace leasesim::core {
namespace {

constexpr Nanos kMs = base::kNanosPerMilli;

TimingConfig Sound() {
  return TimingConfig{.lease_duration = 10'000 * kMs,
                      .renew_interval = 3'000 * kMs,
                      .renew_deadline = 7'000 * kMs,
                      .retry = 1'000 * kMs,
                      .request_timeout = 1'000 * kMs,
                      .drift_bound_ppm = 1'000,
                      .safety_margin = 500 * kMs};
}

bool Names(const std::vector<TimingError>& errors, const std::string& field) {
  for (const TimingError& e : errors) {
    if (e.field == field) return true;
  }
  return false;
}

TEST(Timing, SoundConfigPasses) { EXPECT_TRUE(ValidateTiming(Sound()).empty()); }

TEST(Timing, EachRuleIsNamed) {
  TimingConfig t = Sound();
  t.renew_deadline = 9'600 * kMs;  // > 10000*(1-0.001) - 500 = 9490
  auto errors = ValidateTiming(t);
  ASSERT_TRUE(Names(errors, "renew_deadline"));
  EXPECT_NE(errors[0].rule.find("9490 ms"), std::string::npos) << errors[0].rule;

  t = Sound();
  t.renew_interval = 7'000 * kMs;
  EXPECT_TRUE(Names(ValidateTiming(t), "renew_interval"));

  t = Sound();
  t.request_timeout = 3'000 * kMs;
  EXPECT_TRUE(Names(ValidateTiming(t), "request_timeout"));

  t = Sound();
  t.retry = 4'000 * kMs;
  EXPECT_TRUE(Names(ValidateTiming(t), "retry"));

  t = Sound();
  t.lease_duration = -1;
  EXPECT_TRUE(Names(ValidateTiming(t), "lease_duration"));

  t = Sound();
  t.drift_bound_ppm = 200'000;
  EXPECT_TRUE(Names(ValidateTiming(t), "drift_bound_ppm"));

  t = Sound();
  t.pause_budget = 3'000 * kMs;  // > 9490 - 7000
  EXPECT_TRUE(Names(ValidateTiming(t), "pause_budget"));
}

// A released record waits out ReleasedRecordWait for its preferred
// successor: with retries over a third of the lease that is the longer
// wait, and the bound must cover it (found by the fuzzer's timing edges).
TEST(Timing, TheRecoveryBoundCoversTheWaitForAReleasedRecord) {
  TimingConfig t{.lease_duration = 6000 * kMs, .renew_interval = 2000 * kMs, .renew_deadline = 5900 * kMs,
                 .retry = 3800 * kMs, .request_timeout = 300 * kMs};
  ASSERT_TRUE(ValidateTiming(t).empty());
  EXPECT_GE(RecoveryBound(t), ReleasedRecordWait(t) + 2 * t.retry + 2 * t.request_timeout);
  t.retry = 100 * kMs;
  EXPECT_EQ(RecoveryBound(t), TakeoverWait(t.lease_duration, 0) + 2 * t.retry + 2 * t.request_timeout);
}

TEST(Timing, TakeoverWaitCoversDrift) {
  EXPECT_EQ(TakeoverWait(10'000 * kMs, 1'000), 10'010 * kMs);
  EXPECT_EQ(TakeoverWait(10'000 * kMs, 0), 10'000 * kMs);
}

}  // namespace
}  // namespace leasesim::core
