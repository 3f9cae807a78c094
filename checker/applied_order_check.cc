#include "checker/applied_order_check.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/format.h"
#include "checker/lease_store_model.h"
#include "checker/store_writes.h"
#include "checker/text_util.h"

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
  // Two operations sharing an applied_seq make the order not applicable,
  // whatever else is wrong. The replay below sees each adjacent pair (ties
  // are adjacent in the order, so the first it meets is the smallest); an
  // offence it finds first is reported only if the rest of the order has no
  // tie either.
  const auto shared = [&](std::int64_t seq) {
    result.explanation = "two operations share applied_seq " + std::to_string(seq);
    return result;
  };
  const auto offence = [&](std::size_t position, std::string explanation) {
    if (const std::int64_t seq = SharedSeq(ops, order.subspan(position)); seq >= 0) return shared(seq);
    result.verdict = AppliedOrderVerdict::kInconsistent;
    result.op = order[position];
    result.explanation = std::move(explanation);
    return result;
  };

  struct KeyState {
    LeaseStoreKeyModel model;
    LeaseStoreKeyModel::State state;
  };
  std::map<std::string_view, KeyState> keys;  // lookups only; the ops outlive it
  std::pair<const std::string_view, KeyState>* last_key = nullptr;
  std::int64_t previous_seq = -1;
  TimeNs latest_invoke = std::numeric_limits<TimeNs>::min();  // none yet
  std::size_t latest_invoker = 0;
  for (std::size_t position = 0; position < order.size(); ++position) {
    const StoreOp& op = ops[order[position]];
    if (op.applied_seq == previous_seq) return shared(op.applied_seq);
    previous_seq = op.applied_seq;
    // Real time: nothing applied earlier may have been invoked after this
    // operation completed.
    if (op.outcome != Outcome::kUnknown && latest_invoke > op.complete_ns) {
      return offence(position, "the store applied " + DescribeStoreOp(ops[latest_invoker]) + " before " +
                                   DescribeStoreOp(op) + ", which had completed before it began");
    }
    if (op.invoke_ns > latest_invoke) {
      latest_invoke = op.invoke_ns;
      latest_invoker = order[position];
    }
    if (!StoreOpMatters(op)) continue;
    // Runs of ops on one key are the rule (a lease has one): look it up once a run.
    if (last_key == nullptr || !SameText(last_key->first, op.key)) last_key = &*keys.try_emplace(op.key).first;
    KeyState& key = last_key->second;
    LeaseStoreKeyModel::State next;
    if (!key.model.Step(key.state, key.model.Compile(op), next)) {
      return offence(position, "in the store's own order, " + DescribeStoreOp(op) +
                                   " is impossible: the record was " + key.model.DescribeState(key.state));
    }
    key.state = next;
  }
  result.verdict = AppliedOrderVerdict::kConsistent;
  return result;
}

}  // namespace leasesim::checker
