#pragma once
// The protocol mistakes of the zoo, one ProtocolRules each: the correct
// rules with exactly one decision made the way a common bug makes it.
// Reached through the registry (zoo/variants.h); each lives as long as the
// program.

#include "core/protocol_rules.h"

namespace leasesim::zoo {

// Validity (zoo/validity_mistakes.cc).
const core::ProtocolRules& RenewDeadlineFromReply();
const core::ProtocolRules& ConnectionLossStillLeading();
// Campaign (zoo/campaign_mistakes.cc).
const core::ProtocolRules& ExpiryFromWallTimestamp();
const core::ProtocolRules& CampaignFromStaleRead();
const core::ProtocolRules& NoTermBump();
const core::ProtocolRules& OwnLeaseDuration();
// Writes (zoo/write_mistakes.cc).
const core::ProtocolRules& BlindWrite();
const core::ProtocolRules& ReleaseWithoutVersionCheck();
// Settlement (zoo/settlement_mistakes.cc).
const core::ProtocolRules& BatchContinuesAfterFailedRenewal();
const core::ProtocolRules& NoIdempotencyKey();

}  // namespace leasesim::zoo
