#include "checker/store_checks.h"

#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "checker/applied_order_check.h"
#include "checker/kv_store_model.h"
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

namespace {

// One store's verdict, its ops as the span it was checked over.
void JudgeKvStore(const std::string& store, std::span<const KvStoreOp> ops, const LinOptions& options,
                  Verdict& verdict) {
  const LinResult result = CheckKvStore(ops, options);
  switch (result.verdict) {
    case LinVerdict::kLinearizable: return;
    case LinVerdict::kUnknown:
      verdict.linearizability_unknown = true;
      verdict.notes.push_back("KV store " + store + ": linearizability unknown: " + result.explanation);
      return;
    case LinVerdict::kNotLinearizable: break;
  }
  const KvStoreOp& blocking = ops[result.blocking_op];
  std::vector<int> nodes;
  if (blocking.kind != KvStoreOp::Kind::kLeaseExpire) nodes.push_back(blocking.process);
  verdict.violations.push_back(Violation{
      .kind = KindName(ViolationKind::kNotLinearizable),
      .message = "The history of KV store " + store + " (keys " + result.partition + ") is not linearizable. " +
                 result.explanation,
      .at_ns = blocking.call_ns,
      .nodes = nodes,
  });
}

}  // namespace

void CheckKvStoresLinearizable(const History& history, const LinOptions& options, Verdict& verdict) {
  if (history.kv_ops.empty()) return;
  const std::string& first = history.kv_ops.front().store;
  const bool one_store = std::all_of(history.kv_ops.begin(), history.kv_ops.end(),
                                     [&](const KvStoreOp& op) { return op.store == first; });
  if (one_store) {
    JudgeKvStore(first, history.kv_ops, options, verdict);
    return;
  }
  // Independent stores (Redlock's N): each judged alone, in name order.
  std::map<std::string, std::vector<KvStoreOp>> by_store;
  for (const KvStoreOp& op : history.kv_ops) by_store[op.store].push_back(op);
  for (const auto& [store, ops] : by_store) JudgeKvStore(store, ops, options, verdict);
}

}  // namespace leasesim::checker
