// The derivation's promises: every derived timing passes core's rules with
// the stated margins and meets the target; a target below the smallest
// reachable one is refused with that bound, which is itself reachable.

#include <gtest/gtest.h>

#include <variant>

#include "base/units.h"
#include "timing/derive.h"
#include "timing/explain.h"
#include "timing/targets_test_values.h"

namespace leasesim::timing {
namespace {

using base::Millis;

using test_values::IssueTargets;

// The margins the derivation states, on top of core::ValidateTiming.
void ExpectMargins(const Targets& t, const core::TimingConfig& c, const std::string& label) {
  EXPECT_TRUE(core::ValidateTiming(c).empty()) << label;
  EXPECT_GE(c.request_timeout, Millis(2 * t.EffectiveP99())) << label;
  if (t.store_p999_ms > 0) {
    EXPECT_GE(4 * c.request_timeout, Millis(5 * t.EffectiveP999())) << label;
  }
  EXPECT_GE(c.renew_interval, 2 * c.request_timeout) << label;
  EXPECT_GE(c.renew_deadline, 3 * c.renew_interval) << label;
  EXPECT_LE(3 * (c.request_timeout + c.retry), c.renew_deadline - c.renew_interval) << label;
  EXPECT_GE(2 * c.retry, c.request_timeout) << label;
  EXPECT_GE(c.safety_margin, Millis(t.EffectiveP99())) << label;
  EXPECT_EQ(c.pause_budget, Millis(t.pause_budget_ms)) << label;
  EXPECT_EQ(c.drift_bound_ppm, t.drift_bound_ppm) << label;
  const base::Nanos shrunk = c.lease_duration - c.lease_duration * c.drift_bound_ppm / 1'000'000 - c.safety_margin;
  EXPECT_LT(c.renew_deadline + c.pause_budget, shrunk) << label;
}

TEST(Derive, TheIssueExampleMeetsFifteenSecondsWithEveryRuleAndMargin) {
  const Targets t = IssueTargets();
  const auto derived = Derive(t);
  ASSERT_TRUE(std::holds_alternative<Derivation>(derived));
  const Derivation& d = std::get<Derivation>(derived);
  ExpectMargins(t, d.timing, "issue example");
  EXPECT_LE(d.failover_bound_ms, 15'000);
  EXPECT_EQ(d.failover_bound_ms, FailoverBoundMs(d.timing));
  // The longest lease that fits, rounded to 100 ms: the next step would not.
  const auto next = PlanForDuration(t, d.timing.lease_duration / base::kNanosPerMilli + 100);
  ASSERT_TRUE(next.has_value());
  EXPECT_GT(FailoverBoundMs(next->timing), 15'000);
  EXPECT_EQ(d.timing.lease_duration, Millis(12'600));
  EXPECT_EQ(d.timing.request_timeout, Millis(400));
}

TEST(Derive, AnUnreachableTargetIsRefusedWithTheSmallestReachableOne) {
  Targets t = IssueTargets();
  t.failover_target_ms = 3'000;
  const auto refused = Derive(t);
  ASSERT_TRUE(std::holds_alternative<Unreachable>(refused));
  const Unreachable& u = std::get<Unreachable>(refused);
  EXPECT_GT(u.smallest_target_ms, 3'000);
  // The bound is exact: it is reachable, and one millisecond less is not.
  t.failover_target_ms = u.smallest_target_ms;
  const auto at_bound = Derive(t);
  ASSERT_TRUE(std::holds_alternative<Derivation>(at_bound));
  EXPECT_LE(std::get<Derivation>(at_bound).failover_bound_ms, u.smallest_target_ms);
  t.failover_target_ms = u.smallest_target_ms - 1;
  EXPECT_TRUE(std::holds_alternative<Unreachable>(Derive(t)));
  const std::string text = UnreachableText(t, std::get<Unreachable>(Derive(t)));
  EXPECT_NE(text.find(std::to_string(u.smallest_target_ms) + " ms"), std::string::npos) << text;
}

// A grid of inputs, from a 1 ms store to a slow one, no pause budget to a
// long one, no drift to 5 %: every answer keeps its promise.
TEST(Derive, EveryAnswerOnAGridOfInputsKeepsItsPromise) {
  int derived = 0, refused = 0;
  for (std::int64_t p99 : {1, 7, 50, 200, 1'000}) {
    for (std::int64_t p999 : {0, 3}) {
      for (std::int64_t pause : {0, 100, 500, 5'000}) {
        for (std::int64_t drift : {0, 500, 50'000}) {
          for (std::int64_t target : {500, 5'000, 15'000, 60'000, 600'000}) {
            Targets t;
            t.failover_target_ms = target;
            t.store_p99_ms = p99;
            t.store_p999_ms = p999 * p99;
            t.pause_budget_ms = pause;
            t.drift_bound_ppm = drift;
            if (CheckTargets(t)) continue;
            const std::string label = "p99 " + std::to_string(p99) + " pause " + std::to_string(pause) + " drift " +
                                      std::to_string(drift) + " target " + std::to_string(target);
            const auto answer = Derive(t);
            if (const auto* u = std::get_if<Unreachable>(&answer)) {
              EXPECT_GT(u->smallest_target_ms, target) << label;
              ++refused;
              continue;
            }
            const Derivation& d = std::get<Derivation>(answer);
            ExpectMargins(t, d.timing, label);
            EXPECT_LE(d.failover_bound_ms, target) << label;
            EXPECT_LE(d.smallest_target_ms, d.failover_bound_ms) << label;
            ++derived;
          }
        }
      }
    }
  }
  EXPECT_GT(derived, 100);
  EXPECT_GT(refused, 10);
}

TEST(Derive, InputsNoLeaseUpToADayCanHoldAreRefusedWithoutABound) {
  Targets t = IssueTargets();
  t.failover_target_ms = kTargetMsMax;
  t.store_p99_ms = kTargetMsMax / 2;  // a 12-hour p99: a 1-day timeout, no room for three cycles
  const auto refused = Derive(t);
  ASSERT_TRUE(std::holds_alternative<Unreachable>(refused));
  EXPECT_EQ(std::get<Unreachable>(refused).smallest_target_ms, 0);
  EXPECT_NE(UnreachableText(t, std::get<Unreachable>(refused)).find("no lease of up to a day"), std::string::npos);
  EXPECT_FALSE(PlanForDuration(t, kLeaseMsMax + 1, /*relaxed=*/true).has_value());
}

TEST(Derive, AGivenP999RaisesTheRequestTimeout) {
  Targets t = IssueTargets();
  t.store_p999_ms = 600;
  const auto derived = Derive(t);
  ASSERT_TRUE(std::holds_alternative<Derivation>(derived));
  EXPECT_EQ(std::get<Derivation>(derived).timing.request_timeout, Millis(750));  // 5/4 x 600
  ExpectMargins(t, std::get<Derivation>(derived).timing, "p999 600");
}

TEST(Derive, ALongerTargetNeverShortensTheLease) {
  Targets t = IssueTargets();
  base::Nanos previous = 0;
  for (std::int64_t target = 4'000; target <= 40'000; target += 250) {
    t.failover_target_ms = target;
    const auto answer = Derive(t);
    if (!std::holds_alternative<Derivation>(answer)) continue;
    const base::Nanos duration = std::get<Derivation>(answer).timing.lease_duration;
    EXPECT_GE(duration, previous) << target;
    previous = duration;
  }
  EXPECT_GT(previous, 0);
}

TEST(PlanForDuration, ShortLeasesGiveUpMarginsOnlyWhenRelaxedAndSaySo) {
  const Targets t = IssueTargets();
  EXPECT_FALSE(PlanForDuration(t, 2'000).has_value());
  const auto relaxed = PlanForDuration(t, 2'000, /*relaxed=*/true);
  ASSERT_TRUE(relaxed.has_value());
  EXPECT_FALSE(relaxed->within_margins);
  EXPECT_NE(relaxed->below_margins.find("request timeout"), std::string::npos) << relaxed->below_margins;
  EXPECT_TRUE(core::ValidateTiming(relaxed->timing).empty());
  // Not even relaxed: the lease cannot hold the pause budget and the margin.
  EXPECT_FALSE(PlanForDuration(t, 600, /*relaxed=*/true).has_value());
}

TEST(CheckTargets, EachBadInputNamesItsFlagAndRule) {
  struct Case {
    void (*breaks)(Targets&);
    const char* flag;
    const char* rule;
  };
  const Case cases[] = {
      {[](Targets& t) { t.failover_target_ms = 0; }, "--failover-target", "[1, "},
      {[](Targets& t) { t.store_p99_ms = 0; }, "--store-p99", "at least 1 ms"},
      {[](Targets& t) { t.store_p99_ms = 15'000; }, "--store-p99", "below --failover-target"},
      {[](Targets& t) { t.store_p999_ms = 200; }, "--store-p999", "above --store-p99"},
      {[](Targets& t) { t.pause_budget_ms = -1; }, "--pause-budget", "[0, "},
      {[](Targets& t) { t.drift_bound_ppm = 100'000; }, "--drift-bound", "[0, 100000)"},
  };
  EXPECT_FALSE(CheckTargets(IssueTargets()).has_value());
  for (const Case& c : cases) {
    Targets t = IssueTargets();
    c.breaks(t);
    const std::optional<base::InputError> error = CheckTargets(t);
    ASSERT_TRUE(error.has_value()) << c.flag;
    EXPECT_EQ(error->path, c.flag);
    EXPECT_NE(error->rule.find(c.rule), std::string::npos) << error->rule;
  }
}

TEST(Explain, TheTextNamesEveryValueItsInputAndEveryRule) {
  const Targets t = IssueTargets();
  const Derivation d = std::get<Derivation>(Derive(t));
  const std::string text = DerivationText(t, d);
  for (const char* field : {"duration_ms", "renew_interval_ms", "renew_deadline_ms", "retry_ms", "request_timeout_ms",
                            "safety_margin_ms", "pause_budget_ms", "drift_bound_ppm"}) {
    EXPECT_NE(text.find(field), std::string::npos) << field;
  }
  EXPECT_NE(text.find("every rule holds"), std::string::npos);
  EXPECT_EQ(RuleLines(d.timing).size(), 5u);
  for (const std::string& line : RuleLines(d.timing)) EXPECT_NE(line.find("  ok"), std::string::npos) << line;
  const nlohmann::ordered_json lease = LeaseJson(d.timing);
  EXPECT_EQ(lease["duration_ms"], 12'600);
  EXPECT_EQ(lease.size(), 8u);
}

TEST(Explain, FormatMsIsExactToTheMicrosecond) {
  EXPECT_EQ(FormatMs(Millis(12'393) + 700'000), "12393.7 ms");
  EXPECT_EQ(FormatMs(Millis(5)), "5 ms");
  EXPECT_EQ(FormatMs(1'500), "0.001 ms");
  EXPECT_EQ(FormatSeconds(14'967), "14.97 s");
  EXPECT_EQ(NiceDown(12'616), 12'600);
  EXPECT_EQ(NiceDown(3'933), 3'930);
  EXPECT_EQ(NiceDown(787), 787);
}

}  // namespace
}  // namespace leasesim::timing
