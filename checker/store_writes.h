#pragma once
// The store's own order of a history's operations, and which lease-record
// writes took effect in it: one definition for the checks, the figures and
// the report's timeline.

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "checker/history.h"

namespace leasesim::checker {

// The operations the store processed (applied_seq >= 0), as indices into
// `ops`, in applied_seq order; operations that share an applied_seq keep
// their order in `ops`.
std::vector<std::size_t> StoreAppliedOrder(std::span<const StoreOp> ops);

// The creates and CASes the store processed (applied_seq known) that took
// effect, in applied order: as their clients learned, or, when the reply
// was lost, by replaying the store's create/CAS rule on each key's version.
std::vector<const StoreOp*> WritesThatTookEffect(const History& history);
// The same, given StoreAppliedOrder(history.store_ops).
std::vector<const StoreOp*> WritesThatTookEffect(const History& history, std::span<const std::size_t> applied_order);

// When a belief ended: its until_ns, or the run's end (never before it began).
inline TimeNs BeliefEnd(const LeadershipBelief& belief, const History& history) {
  return belief.until_ns == kNeverNs ? std::max(history.end_ns, belief.from_ns) : belief.until_ns;
}

}  // namespace leasesim::checker
