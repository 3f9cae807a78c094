#include "zoo/variants.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace leasesim::zoo {
namespace {

TEST(ZooVariants, CorrectComesFirstAndRunsTheCoreRules) {
  ASSERT_FALSE(Variants().empty());
  EXPECT_EQ(Variants().front().name, "correct");
  EXPECT_EQ(Variants().front().rules, &core::CorrectRules());
  EXPECT_TRUE(Variants().front().ledger.checks_fence);
}

TEST(ZooVariants, EveryMistakeChangesSomethingAndNamesAreUnique) {
  std::set<std::string_view> names;
  for (const Variant& variant : Variants()) {
    EXPECT_TRUE(names.insert(variant.name).second) << variant.name;
    EXPECT_FALSE(variant.mistake.empty()) << variant.name;
    ASSERT_NE(variant.rules, nullptr) << variant.name;
    if (variant.name == "correct") continue;
    const bool changes_rules = variant.rules != &core::CorrectRules();
    const bool changes_ledger = !variant.ledger.checks_fence;
    EXPECT_NE(changes_rules, changes_ledger) << variant.name << " must change exactly one side";
  }
  EXPECT_EQ(names.size(), 12u);
}

// Registered, every mistake is a protocol of its own name; "correct" names
// leasesim's own; a combination resolves with its ledger flaws.
TEST(ZooVariants, RegisterAsProtocols) {
  core::ProtocolRegistry registry;
  ASSERT_TRUE(registry.Add(core::LeasesimProtocol()));
  RegisterZooProtocols(registry);
  for (const Variant& variant : Variants()) {
    const core::ProtocolRegistry::Lookup found = registry.Find(variant.name);
    ASSERT_TRUE(found.protocol.has_value()) << variant.name << ": " << found.error;
    if (variant.name == "correct") {
      EXPECT_EQ(found.protocol->name, core::kLeasesimProtocol);
      EXPECT_TRUE(found.protocol->mistake.empty());
      continue;
    }
    EXPECT_EQ(found.protocol->mistake, variant.mistake);
    EXPECT_EQ(found.protocol->ledger_checks_fence, variant.ledger.checks_fence) << variant.name;
  }
  const core::ProtocolRegistry::Lookup both = registry.Find("no-fencing,blind-write");
  ASSERT_TRUE(both.protocol.has_value()) << both.error;
  EXPECT_FALSE(both.protocol->ledger_checks_fence);
  EXPECT_FALSE(both.protocol->mistake.empty());
  EXPECT_NE(registry.Find("blind-write,no-term-bump").error.find("at most one"), std::string::npos);
  EXPECT_EQ(registry.default_name(), core::kLeasesimProtocol);
}

TEST(ZooVariants, FindsByExactName) {
  ASSERT_NE(FindVariant("blind-write"), nullptr);
  EXPECT_EQ(FindVariant("blind-write")->name, "blind-write");
  EXPECT_EQ(FindVariant("blind"), nullptr);
  EXPECT_EQ(FindVariant(""), nullptr);
}

TEST(ZooVariants, CombinesLedgerFlawsWithOneRulesChange) {
  const auto both = Combine("no-fencing,no-idempotency-key");
  ASSERT_TRUE(std::holds_alternative<Combination>(both)) << std::get<base::InputError>(both).ToString();
  EXPECT_FALSE(std::get<Combination>(both).ledger.checks_fence);
  EXPECT_EQ(std::get<Combination>(both).rules, FindVariant("no-idempotency-key")->rules);

  // Refusals are the one bad-input error; its rule names the part.
  const auto two_rules = Combine("blind-write,no-term-bump");
  ASSERT_TRUE(std::holds_alternative<base::InputError>(two_rules));
  EXPECT_EQ(std::get<base::InputError>(two_rules).rule,
            "at most one variant may change the protocol's rules (\"no-term-bump\")");

  const auto unknown = Combine("correct,nope");
  ASSERT_TRUE(std::holds_alternative<base::InputError>(unknown));
  EXPECT_EQ(std::get<base::InputError>(unknown).path, "");
  EXPECT_EQ(std::get<base::InputError>(unknown).rule.rfind("unknown variant \"nope\" (known: correct, ", 0), 0u);
}

// The correct rules, decision by decision, as the protocol documents them.
TEST(CorrectRules, RenewalValidityCountsFromTheSendAndFailuresNeverExtendIt) {
  const core::TimingConfig timing{.renew_deadline = 7000};
  const core::ProtocolRules& rules = core::CorrectRules();
  EXPECT_EQ(rules.ValidUntilAfterRenewal({.status = core::StoreStatus::kOk, .sent = 100, .replied = 900,
                                          .valid_until = 5000, .timing = timing}),
            7100);
  for (core::StoreStatus failed : {core::StoreStatus::kTimeout, core::StoreStatus::kUnavailable,
                                   core::StoreStatus::kConflict}) {
    EXPECT_EQ(rules.ValidUntilAfterRenewal(
                  {.status = failed, .sent = 100, .replied = 900, .valid_until = 5000, .timing = timing}),
              5000);
  }
}

TEST(ZooMistakes, EachChangesItsOneDecision) {
  const core::TimingConfig timing{.lease_duration = 10'000, .renew_deadline = 7000, .drift_bound_ppm = 0};
  const core::RenewalOutcome late_reply{.status = core::StoreStatus::kOk, .sent = 100, .replied = 900,
                                        .valid_until = 5000, .timing = timing};
  EXPECT_EQ(FindVariant("renew-deadline-from-reply")->rules->ValidUntilAfterRenewal(late_reply), 7900);
  const core::RenewalOutcome timeout{.status = core::StoreStatus::kTimeout, .sent = 100, .replied = 900,
                                     .valid_until = 5000, .timing = timing};
  EXPECT_EQ(FindVariant("connection-loss-still-leading")->rules->ValidUntilAfterRenewal(timeout), 7100);
  EXPECT_EQ(FindVariant("no-term-bump")->rules->TakeoverTerm(4), 4);
  EXPECT_EQ(core::CorrectRules().TakeoverTerm(4), 5);
  EXPECT_EQ(FindVariant("no-idempotency-key")->rules->IdempotencyKey(3), "");
  EXPECT_EQ(core::CorrectRules().IdempotencyKey(3), "settlement/window-3");
  EXPECT_FALSE(FindVariant("batch-continues-after-failed-renewal")->rules->ChecksLease(core::LeaseCheck::kBeforeItem, 1));
  EXPECT_TRUE(core::CorrectRules().ChecksLease(core::LeaseCheck::kBeforeWrite, 4));

  // A holder (duration 10 s) watched for 6 s by a candidate whose own lease is 5 s.
  const core::VersionedRecord seen{true, 3, {.holder = "n1#1", .term = 2, .duration_ns = 10'000, .renewed_wall_ns = 0}};
  const core::Observation watched{3, "n1#1", 0};
  const core::TimingConfig own{.lease_duration = 5000, .drift_bound_ppm = 0};
  const core::ExpiryQuestion question{seen, watched, 6000, 20'000, own};
  EXPECT_FALSE(core::CorrectRules().HolderExpired(question));
  EXPECT_TRUE(FindVariant("own-lease-duration")->rules->HolderExpired(question));
  EXPECT_TRUE(FindVariant("expiry-from-wall-timestamp")->rules->HolderExpired(question));

  // A renewal (new version, same holder) restarts the correct wait, not the stale one.
  const core::VersionedRecord renewed{true, 4, seen.record};
  EXPECT_TRUE(core::CorrectRules().StartsNewObservation(watched, renewed));
  EXPECT_FALSE(FindVariant("campaign-from-stale-read")->rules->StartsNewObservation(watched, renewed));
}

}  // namespace
}  // namespace leasesim::zoo
