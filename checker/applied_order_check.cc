#include "checker/applied_order_check.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "checker/format.h"
#include "checker/lease_store_model.h"
#include "checker/store_writes.h"

namespace leasesim::checker {

namespace {

// The smallest applied_seq two operations share, or -1: ties are adjacent
// in the applied order, and the first found is the smallest.
std::int64_t SharedSeq(std::span<const StoreOp> ops, std::span<const std::size_t> order) {
  std::int64_t previous = -1;
  for (std::size_t index : order) {
    const std::int64_t seq = ops[index].applied_seq;
    if (seq == previous) return seq;
    previous = seq;
  }
  return -1;
}

}  // namespace

AppliedOrderResult CheckAppliedOrder(std::span<const StoreOp> ops) {
  return CheckAppliedOrder(ops, StoreAppliedOrder(ops));
}

AppliedOrderResult CheckAppliedOrder(std::span<const StoreOp> ops, std::span<const std::size_t> order) {
  AppliedOrderResult result;
  for (const StoreOp& op : ops) {
    if (op.applied_seq < 0 && op.outcome == Outcome::kOk) {
      result.explanation = "operation " + std::to_string(op.id) + " has a result but no applied_seq";
      return result;
    }
    // Failed or unknown and never applied: no effect.
  }
  if (const std::int64_t shared = SharedSeq(ops, order); shared >= 0) {
    result.explanation = "two operations share applied_seq " + std::to_string(shared);
    return result;
  }

  struct KeyState {
    LeaseStoreKeyModel model;
    LeaseStoreKeyModel::State state;
  };
  std::map<std::string, KeyState> keys;  // lookups only
  std::pair<const std::string, KeyState>* last_key = nullptr;
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
    // Runs of ops on one key are the rule (a lease has one): look it up once a run.
    if (last_key == nullptr || last_key->first != op.key) last_key = &*keys.try_emplace(op.key).first;
    KeyState& key = last_key->second;
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
