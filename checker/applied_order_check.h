#pragma once
// The O(n) linearizability check a simulator makes possible: the store
// records the order in which it applied operations (StoreOp::applied_seq), so
// instead of searching for a linearization we verify that one: that order
// must respect real time and every result must match the lease store model
// replayed in it. If it holds, the history is linearizable; if not, the
// store's order is wrong but another order might still work, so the caller
// falls back to the black-box search.

#include <cstddef>
#include <span>
#include <string>

#include "checker/history.h"

namespace leasesim::checker {

enum class AppliedOrderVerdict {
  kConsistent,     // the recorded order is a linearization: linearizable
  kInconsistent,   // the recorded order is not a linearization
  kNotApplicable,  // the history does not record a complete order
};

struct AppliedOrderResult {
  AppliedOrderVerdict verdict = AppliedOrderVerdict::kNotApplicable;
  std::size_t op = 0;       // kInconsistent: index of the first offending operation
  std::string explanation;  // kInconsistent / kNotApplicable: why, in words
};

// Applicable when every operation with a result (outcome ok) has an
// applied_seq and no two share one; an operation of unknown outcome without
// one was never applied. Ordering aside (a counting sort for the
// simulator's dense sequence numbers) it is one pass.
AppliedOrderResult CheckAppliedOrder(std::span<const StoreOp> ops);
// The same, given StoreAppliedOrder(ops) (checker/store_writes.h), which
// callers that also need the order for other things compute once.
AppliedOrderResult CheckAppliedOrder(std::span<const StoreOp> ops, std::span<const std::size_t> applied_order);

}  // namespace leasesim::checker
