#pragma once
// Coverage probes: "sometimes" assertions on the protocol's rare paths. A
// probe says nothing about correctness; it proves that a path ran, so a
// harness can tell a search that exercised the hard cases from one that
// never reached them (FoundationDB's CODE_PROBE, Antithesis' "sometimes").
// The core reports them through Env::Sometimes; a service ignores them.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace leasesim::core {

enum class Probe {
  kLeaseCreated,               // the first holder created the record
  kTakeoverAfterExpiry,        // a candidate waited out a live-looking holder and took over
  kReleasedLeaseTaken,         // a released lease taken by whoever was not preferred
  kPreferredSuccessorTook,     // a released lease taken at once by its preferred successor
  kOwnRecordReadopted,         // a candidate found its own record (lost reply, or a lapse) and confirmed it
  kTakeLostRace,               // a take's compare-and-set found another writer first
  kTakeOutcomeUnknown,         // a take's write timed out: it may or may not have been applied
  kReleasedDuringTake,         // shut down while a take was in flight
  kRenewConflictOwnLostReply,  // a renewal conflicted with our own earlier renewal whose reply was lost
  kRenewConflictLost,          // a renewal conflicted: someone else holds the record
  kRenewTimedOut,              // a renewal's outcome is unknown; retried within the deadline
  kRenewStoreUnavailable,      // the store refused a renewal; retried within the deadline
  kRenewedNearDeadline,        // a renewal succeeded with less than a renew interval of validity left
  kDeadlineBeforeSend,         // the lease ran out between the last check and the renewal's send
  kDeadlineReached,            // a leader demoted itself at its validity deadline
  kDemotedStoreUnavailable,    // the deadline passed while the store was refusing
  kPauseDetected,              // a timer fired far later than asked: demoted
  kSuspendDetected,            // the boot clock ran ahead of the monotonic clock: demoted
  kLeaseLostMidBatch,          // the job found its lease gone while preparing a batch
  kFencedWrite,                // the ledger rejected our token: someone newer wrote
  kDuplicateSuppressed,        // the ledger had applied this window's key already
  kLedgerCallFailed,           // a ledger write's outcome was unknown or refused; retried later
  kReleaseRetried,             // a release conflicted with our own renewal and was retried
  kReleaseFoundOther,          // a release found another holder's record and left it alone
};

inline constexpr std::array<std::string_view, 24> kProbeNames = {
    "lease_created",
    "takeover_after_expiry",
    "released_lease_taken",
    "preferred_successor_took",
    "own_record_readopted",
    "take_lost_race",
    "take_outcome_unknown",
    "released_during_take",
    "renew_conflict_own_lost_reply",
    "renew_conflict_lost",
    "renew_timed_out",
    "renew_store_unavailable",
    "renewed_near_deadline",
    "deadline_before_send",
    "deadline_reached",
    "demoted_store_unavailable",
    "pause_detected",
    "suspend_detected",
    "lease_lost_mid_batch",
    "fenced_write",
    "duplicate_suppressed",
    "ledger_call_failed",
    "release_retried",
    "release_found_other",
};
static_assert(kProbeNames.size() == static_cast<std::size_t>(Probe::kReleaseFoundOther) + 1,
              "every probe has exactly one name");

constexpr std::string_view ProbeName(Probe probe) { return kProbeNames[static_cast<std::size_t>(probe)]; }

constexpr std::optional<Probe> ParseProbe(std::string_view name) {
  for (std::size_t i = 0; i < kProbeNames.size(); ++i) {
    if (kProbeNames[i] == name) return static_cast<Probe>(i);
  }
  return std::nullopt;
}

}  // namespace leasesim::core
