#include "zoo/mistakes.h"

namespace leasesim::zoo {
namespace {

// Validity counted from the renewal's REPLY: the store may have applied the
// renewal long before the reply arrived, so the lease outlives what a
// candidate waiting on the version assumes.
class FromReply final : public core::ProtocolRules {
 public:
  core::Nanos ValidUntilAfterRenewal(const core::RenewalOutcome& outcome) const override {
    if (outcome.status != core::StoreStatus::kOk) return outcome.valid_until;
    return outcome.replied + outcome.timing.renew_deadline;
  }
};

// "The store is just unreachable, we are still the leader": a renewal that
// timed out or was refused extends the lease as a success would.
class StillLeading final : public core::ProtocolRules {
 public:
  core::Nanos ValidUntilAfterRenewal(const core::RenewalOutcome& outcome) const override {
    if (outcome.status == core::StoreStatus::kConflict) return outcome.valid_until;
    return outcome.sent + outcome.timing.renew_deadline;
  }
};

}  // namespace

const core::ProtocolRules& RenewDeadlineFromReply() {
  static const FromReply rules;
  return rules;
}

const core::ProtocolRules& ConnectionLossStillLeading() {
  static const StillLeading rules;
  return rules;
}

}  // namespace leasesim::zoo
