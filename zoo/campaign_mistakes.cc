#include "zoo/mistakes.h"

namespace leasesim::zoo {
namespace {

// Expiry judged by comparing the holder's wall-clock renewal stamp with the
// candidate's own wall clock: clocks disagree and step.
class WallTimestamp final : public core::ProtocolRules {
 public:
  bool HolderExpired(const core::ExpiryQuestion& question) const override {
    const core::LeaseRecord& record = question.seen.record;
    return question.wall_now - record.renewed_wall_ns >= record.duration_ns;
  }
};

// The candidate keeps the first record it read for a holder as a cached
// view and times expiry from it: renewals never reach the cache (only a new
// holder does), while the takeover still writes over the latest version.
class StaleRead final : public core::ProtocolRules {
 public:
  bool StartsNewObservation(const core::Observation& watched, const core::VersionedRecord& seen) const override {
    return watched.version == -1 || seen.record.holder != watched.holder;
  }
};

// A takeover keeps the previous holder's term, so the ledger cannot fence
// the previous holder's late writes.
class SameTerm final : public core::ProtocolRules {
 public:
  std::int64_t TakeoverTerm(std::int64_t held_term) const override { return held_term; }
};

// The candidate waits out its OWN lease duration, not the holder's.
class OwnDuration final : public core::ProtocolRules {
 public:
  bool HolderExpired(const core::ExpiryQuestion& question) const override {
    const core::Nanos unchanged_for = question.monotonic_now - question.watched.since;
    return unchanged_for >= core::TakeoverWait(question.own_timing.lease_duration,
                                               question.own_timing.drift_bound_ppm);
  }
};

}  // namespace

const core::ProtocolRules& ExpiryFromWallTimestamp() {
  static const WallTimestamp rules;
  return rules;
}

const core::ProtocolRules& CampaignFromStaleRead() {
  static const StaleRead rules;
  return rules;
}

const core::ProtocolRules& NoTermBump() {
  static const SameTerm rules;
  return rules;
}

const core::ProtocolRules& OwnLeaseDuration() {
  static const OwnDuration rules;
  return rules;
}

}  // namespace leasesim::zoo
