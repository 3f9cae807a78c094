#include "zoo/variants.h"

#include <array>
#include <cassert>
#include <memory>
#include <utility>


#include "zoo/mistakes.h"

namespace leasesim::zoo {
namespace {

using core::CorrectRules;

const std::array<Variant, 12>& Table() {
  static const std::array<Variant, 12> table = {{
      {"correct", "none: the protocol as it ships", &CorrectRules(), {}},
      {"no-fencing", "the ledger does not compare a write's token with its fence", &CorrectRules(),
       {.checks_fence = false}},
      {"renew-deadline-from-reply", "the leader's validity counts from the renewal reply, not its send",
       &RenewDeadlineFromReply(), {}},
      {"expiry-from-wall-timestamp", "a candidate judges expiry from the record's wall-clock renewal stamp",
       &ExpiryFromWallTimestamp(), {}},
      {"batch-continues-after-failed-renewal", "the lease is checked once per batch, not per item and before the write",
       &BatchContinuesAfterFailedRenewal(), {}},
      {"campaign-from-stale-read", "a candidate times expiry from its cached first read of a holder",
       &CampaignFromStaleRead(), {}},
      {"blind-write", "acquire and renew overwrite the record instead of compare-and-set", &BlindWrite(), {}},
      {"no-term-bump", "a takeover keeps the previous holder's term", &NoTermBump(), {}},
      {"release-without-version-check", "a graceful release overwrites whatever record is there",
       &ReleaseWithoutVersionCheck(), {}},
      {"no-idempotency-key", "settlement batches carry no idempotency key", &NoIdempotencyKey(), {}},
      {"own-lease-duration", "a candidate waits its own lease duration, not the holder's", &OwnLeaseDuration(), {}},
      {"connection-loss-still-leading", "a renewal timeout or refusal is taken as still leading",
       &ConnectionLossStillLeading(), {}},
  }};
  return table;
}

}  // namespace

std::span<const Variant> Variants() { return Table(); }

const Variant* FindVariant(std::string_view name) {
  for (const Variant& variant : Table()) {
    if (variant.name == name) return &variant;
  }
  return nullptr;
}

std::string VariantNames() {
  std::string names;
  for (const Variant& variant : Table()) names += (names.empty() ? "" : ", ") + std::string(variant.name);
  return names;
}

std::variant<Combination, base::InputError> Combine(std::string_view names) {
  constexpr int kPartsMax = 16;
  Combination combination{&CorrectRules(), {}};
  std::string_view rest = names;
  for (int part = 0; part < kPartsMax; ++part) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    const Variant* variant = FindVariant(name == core::kLeasesimProtocol ? std::string_view("correct") : name);
    if (variant == nullptr) {
      return base::InputError{.rule = "unknown variant \"" + std::string(name) + "\" (known: " + VariantNames() + ")"};
    }
    if (variant->rules != &CorrectRules()) {
      if (combination.rules != &CorrectRules()) {
        return base::InputError{.rule = "at most one variant may change the protocol's rules (\"" + std::string(name) +
                                        "\")"};
      }
      combination.rules = variant->rules;
    }
    combination.ledger.checks_fence = combination.ledger.checks_fence && variant->ledger.checks_fence;
    if (comma == std::string_view::npos) return combination;
    rest = rest.substr(comma + 1);
  }
  return base::InputError{.rule = "more than " + std::to_string(kPartsMax) + " variants"};
}

core::Protocol ProtocolOf(std::string name, const Combination& combination, std::string mistake) {
  const core::ProtocolRules* rules = combination.rules;
  assert(rules != nullptr);
  return core::Protocol{
      .name = std::move(name),
      .summary = mistake.empty() ? "leasesim's protocol" : "leasesim's protocol with one mistake: " + mistake,
      .build = [rules](core::Env& env, const core::NodeSetup& setup) { return core::BuildLeaseNode(env, setup, *rules); },
      .ledger_checks_fence = combination.ledger.checks_fence,
      .mistake = std::move(mistake),
  };
}

void RegisterZooProtocols(core::ProtocolRegistry& registry) {
  [[maybe_unused]] const bool aliased = registry.AddAlias("correct", std::string(core::kLeasesimProtocol));
  assert(aliased && "leasesim's protocol is registered before the zoo");
  for (const Variant& variant : Table()) {
    if (variant.name == "correct") continue;
    [[maybe_unused]] const bool added = registry.Add(ProtocolOf(
        std::string(variant.name), Combination{variant.rules, variant.ledger}, std::string(variant.mistake)));
    assert(added);
  }
  registry.AddCombiner([](std::string_view name, core::Protocol& protocol, std::string& error) {
    if (name.find(',') == std::string_view::npos) return false;
    const std::variant<Combination, base::InputError> combined = Combine(name);
    if (const auto* refusal = std::get_if<base::InputError>(&combined)) {
      error = refusal->rule;
      return true;
    }
    protocol = ProtocolOf(std::string(name), std::get<Combination>(combined), "a combination of zoo mistakes");
    return true;
  });
}

}  // namespace leasesim::zoo
