#pragma once
// Deliberately broken versions of the protocol: the bug zoo. Each is one
// real, common mistake, kept as a small, clearly marked branch in the core
// (or, for the two ledger-side mistakes, in how the resource is used), so the
// harness can be measured by how fast it catches each one. kCorrect is the
// default and the only variant a service should ever run.

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace leasesim::core {

enum class ProtocolVariant {
  kCorrect,
  kNoFencing,                  // the ledger does not compare the write's token with its fence
  kRenewDeadlineFromReply,     // the leader's validity counts from the renewal REPLY, not its send
  kExpiryFromWallTimestamp,    // a candidate judges expiry from the record's wall-clock renewal time
  kBatchContinuesAfterFailedRenewal,  // the lease is checked once per batch, not per item and before the write
  kCampaignFromStaleRead,      // a candidate judges expiry from its cached first read of a holder
  kBlindWrite,                 // acquire/renew overwrite the record instead of compare-and-set
  kNoTermBump,                 // a takeover keeps the previous holder's term
  kReleaseWithoutVersionCheck, // a graceful release overwrites whatever record is there
  kNoIdempotencyKey,           // settlement batches carry no idempotency key
  kOwnLeaseDuration,           // a candidate waits its OWN lease duration, not the holder's
  kConnectionLossStillLeading, // a renewal timeout / unavailable store is taken as "still leading"
};

inline constexpr std::array<std::pair<ProtocolVariant, std::string_view>, 12> kProtocolVariants = {{
    {ProtocolVariant::kCorrect, "correct"},
    {ProtocolVariant::kNoFencing, "no-fencing"},
    {ProtocolVariant::kRenewDeadlineFromReply, "renew-deadline-from-reply"},
    {ProtocolVariant::kExpiryFromWallTimestamp, "expiry-from-wall-timestamp"},
    {ProtocolVariant::kBatchContinuesAfterFailedRenewal, "batch-continues-after-failed-renewal"},
    {ProtocolVariant::kCampaignFromStaleRead, "campaign-from-stale-read"},
    {ProtocolVariant::kBlindWrite, "blind-write"},
    {ProtocolVariant::kNoTermBump, "no-term-bump"},
    {ProtocolVariant::kReleaseWithoutVersionCheck, "release-without-version-check"},
    {ProtocolVariant::kNoIdempotencyKey, "no-idempotency-key"},
    {ProtocolVariant::kOwnLeaseDuration, "own-lease-duration"},
    {ProtocolVariant::kConnectionLossStillLeading, "connection-loss-still-leading"},
}};

inline std::string_view ProtocolVariantName(ProtocolVariant variant) {
  for (const auto& [v, name] : kProtocolVariants) {
    if (v == variant) return name;
  }
  return "correct";
}

inline std::optional<ProtocolVariant> ParseProtocolVariant(std::string_view name) {
  for (const auto& [v, known] : kProtocolVariants) {
    if (known == name) return v;
  }
  return std::nullopt;
}

// "correct, no-fencing, ..." for error messages.
inline std::string ProtocolVariantNames() {
  std::string names;
  for (const auto& [v, name] : kProtocolVariants) names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

}  // namespace leasesim::core
