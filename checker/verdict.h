#pragma once
// The checker's output: a list of violations, each explained in words.

#include <cstdint>
#include <string>
#include <vector>

#include "checker/history.h"
#include "checker/violation_kind.h"

namespace leasesim::checker {

struct Violation {
  std::string kind;     // KindName(ViolationKind::k...): "stale_token_write", ...
  std::string message;  // one or two sentences naming nodes, terms, true times
  TimeNs at_ns = 0;     // where on the timeline it happened
  std::vector<int> nodes;
};

struct Verdict {
  std::vector<Violation> violations;
  // Notes that are not violations (e.g. "lease overlap outside the stated
  // assumptions; fencing held").
  std::vector<std::string> notes;
  // The linearizability search ran out of its step budget: the store history
  // is neither proven linearizable nor proven not to be.
  bool linearizability_unknown = false;
  bool ok() const { return violations.empty(); }
};

}  // namespace leasesim::checker
