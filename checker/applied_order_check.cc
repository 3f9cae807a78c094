#include "checker/applied_order_check.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "checker/format.h"
#include "checker/lease_store_model.h"

namespace leasesim::checker {

AppliedOrderResult CheckAppliedOrder(std::span<const StoreOp> ops) {
  AppliedOrderResult result;
  // (applied_seq, index) pairs sort without chasing each op: the applied
  // order is rarely the invocation order.
  std::vector<std::pair<std::int64_t, std::size_t>> by_seq;
  by_seq.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const StoreOp& op = ops[i];
    if (op.applied_seq < 0) {
      if (op.outcome == Outcome::kOk) {
        result.explanation = "operation " + std::to_string(op.id) + " has a result but no applied_seq";
        return result;
      }
      continue;  // failed or unknown and never applied: no effect
    }
    by_seq.emplace_back(op.applied_seq, i);
  }
  if (!std::is_sorted(by_seq.begin(), by_seq.end())) std::sort(by_seq.begin(), by_seq.end());
  for (std::size_t k = 1; k < by_seq.size(); ++k) {
    if (by_seq[k].first == by_seq[k - 1].first) {
      result.explanation = "two operations share applied_seq " + std::to_string(by_seq[k].first);
      return result;
    }
  }
  std::vector<std::size_t> order;
  order.reserve(by_seq.size());
  for (const auto& [seq, index] : by_seq) order.push_back(index);

  struct KeyState {
    LeaseStoreKeyModel model;
    LeaseStoreKeyModel::State state;
  };
  std::map<std::string, KeyState> keys;  // lookups only
  TimeNs latest_invoke = 0;
  std::size_t latest_invoker = 0;
  bool any = false;
  for (std::size_t index : order) {
    const StoreOp& op = ops[index];
    // Real time: nothing applied earlier may have been invoked after this
    // operation completed.
    if (any && op.outcome != Outcome::kUnknown && latest_invoke > op.complete_ns) {
      result.verdict = AppliedOrderVerdict::kInconsistent;
      result.op = index;
      result.explanation = "the store applied " + DescribeStoreOp(ops[latest_invoker]) +
                           " before " + DescribeStoreOp(op) + ", which had completed before it began";
      return result;
    }
    if (!any || op.invoke_ns > latest_invoke) {
      latest_invoke = op.invoke_ns;
      latest_invoker = index;
      any = true;
    }
    if (!StoreOpMatters(op)) continue;
    KeyState& key = keys[op.key];
    LeaseStoreKeyModel::State next;
    if (!key.model.Step(key.state, key.model.Compile(op), next)) {
      result.verdict = AppliedOrderVerdict::kInconsistent;
      result.op = index;
      result.explanation = "in the store's own order, " + DescribeStoreOp(op) +
                           " is impossible: the record was " + key.model.DescribeState(key.state);
      return result;
    }
    key.state = next;
  }
  result.verdict = AppliedOrderVerdict::kConsistent;
  return result;
}

}  // namespace leasesim::checker
