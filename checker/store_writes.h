#pragma once
// Which lease-record writes took effect, in the store's own order: one
// definition for the checks and the report's timeline.

#include <vector>

#include <algorithm>
#include <vector>

#include "checker/history.h"

namespace leasesim::checker {

// The creates and CASes the store processed (applied_seq known) that took
// effect, in applied order: as their clients learned, or, when the reply
// was lost, by replaying the store's create/CAS rule on each key's version.
std::vector<const StoreOp*> WritesThatTookEffect(const History& history);

// When a belief ended: its until_ns, or the run's end (never before it began).
inline TimeNs BeliefEnd(const LeadershipBelief& belief, const History& history) {
  return belief.until_ns == kNeverNs ? std::max(history.end_ns, belief.from_ns) : belief.until_ns;
}

}  // namespace leasesim::checker
