#pragma once
// Store operations for the checker's tests, as a run's recorder writes them.

#include <cstdint>
#include <string>

#include "checker/history.h"

namespace leasesim::checker::test_ops {

// A write of the lease record "lease" the store applied, `id` also being its
// place in the store's order: a create when expected_version is 0, else a
// compare-and-set; the record it writes lasts `lease_ns`.
inline StoreOp AppliedLeaseWrite(std::int64_t id, int node, const std::string& holder, std::int64_t term,
                                 TimeNs invoke, TimeNs applied, TimeNs complete, std::int64_t expected_version,
                                 TimeNs lease_ns) {
  StoreOp op;
  op.id = id;
  op.node = node;
  op.process = holder;
  op.key = "lease";
  op.kind = expected_version == 0 ? StoreOpKind::kCreate : StoreOpKind::kCas;
  op.expected_version = expected_version;
  op.value = LeaseValue{holder, term, lease_ns};
  op.outcome = Outcome::kOk;
  op.version = expected_version + 1;
  op.invoke_ns = invoke;
  op.applied_ns = applied;
  op.complete_ns = complete;
  op.applied_seq = id;
  return op;
}

}  // namespace leasesim::checker::test_ops
