#include "checker/store_checks.h"

#include <algorithm>

#include "checker/applied_order_check.h"
#include "checker/lease_store_model.h"

namespace leasesim::checker {

void CheckStoreLinearizable(const History& history, const StoreCheckOptions& options,
                            Verdict& verdict) {
  CheckStoreLinearizable(HistoryIndex(history), options, verdict);
}

void CheckStoreLinearizable(const HistoryIndex& index, const StoreCheckOptions& options, Verdict& verdict) {
  const History& history = index.history();
  if (history.store_ops.empty()) return;
  const AppliedOrderResult fast = CheckAppliedOrder(history.store_ops, index.applied_order());
  if (fast.verdict == AppliedOrderVerdict::kConsistent && !options.cross_check) return;

  const LinResult result = CheckLeaseStore(history.store_ops, options.lin);
  if (fast.verdict == AppliedOrderVerdict::kConsistent && result.verdict == LinVerdict::kNotLinearizable) {
    verdict.violations.push_back(Violation{
        .kind = KindName(ViolationKind::kCheckerDisagreement),
        .message = "The store's recorded order is a valid linearization, yet the search found none: " +
                   result.explanation,
        .at_ns = 0,
        .nodes = {},
    });
    return;
  }
  switch (result.verdict) {
    case LinVerdict::kLinearizable:
      if (fast.verdict == AppliedOrderVerdict::kInconsistent) {
        verdict.notes.push_back("The store's own application order is not a linearization (" +
                                fast.explanation + "), but another order is: the history is linearizable.");
      }
      return;
    case LinVerdict::kUnknown:
      if (fast.verdict == AppliedOrderVerdict::kConsistent) return;
      verdict.linearizability_unknown = true;
      verdict.notes.push_back("Linearizability unknown: " + result.explanation);
      return;
    case LinVerdict::kNotLinearizable:
      break;
  }
  const StoreOp& blocking = history.store_ops[result.blocking_op];
  std::vector<int> nodes{blocking.node};
  if (!result.longest_prefix.empty()) {
    const int last = history.store_ops[result.longest_prefix.back()].node;
    if (last != blocking.node) nodes.push_back(last);
  }
  verdict.violations.push_back(Violation{
      .kind = KindName(ViolationKind::kNotLinearizable),
      .message = "The store's history of key " + result.partition + " is not linearizable. " +
                 result.explanation,
      .at_ns = blocking.invoke_ns,
      .nodes = nodes,
  });
}

}  // namespace leasesim::checker
