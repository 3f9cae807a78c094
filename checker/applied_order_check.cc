#include "checker/applied_order_check.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "checker/format.h"
#include "checker/lease_store_model.h"

namespace leasesim::checker {

namespace {

constexpr std::size_t kNoOp = ~std::size_t{0};

// The op indices of (applied_seq, index) pairs in applied_seq order; false
// (with why) when two share an applied_seq, naming the smallest such. The
// simulator's sequence numbers are dense, so they index a table in one
// pass; sparse ones (a history from elsewhere) are sorted.
bool OrderBySeq(std::vector<std::pair<std::int64_t, std::size_t>>& by_seq, std::vector<std::size_t>& order,
                std::string& why) {
  std::int64_t shared = -1;
  const bool sorted = std::is_sorted(by_seq.begin(), by_seq.end());
  std::int64_t max_seq = -1;
  for (const auto& [seq, index] : by_seq) max_seq = std::max(max_seq, seq);
  const auto dense_max = static_cast<std::int64_t>(4 * by_seq.size() + 64);
  if (!sorted && max_seq < dense_max) {
    std::vector<std::size_t> table(static_cast<std::size_t>(max_seq + 1), kNoOp);
    for (const auto& [seq, index] : by_seq) {
      std::size_t& slot = table[static_cast<std::size_t>(seq)];
      if (slot != kNoOp && (shared < 0 || seq < shared)) shared = seq;
      slot = index;
    }
    order.reserve(by_seq.size());
    for (std::size_t index : table) {
      if (index != kNoOp) order.push_back(index);
    }
  } else {
    if (!sorted) std::sort(by_seq.begin(), by_seq.end());
    for (std::size_t k = 1; k < by_seq.size() && shared < 0; ++k) {
      if (by_seq[k].first == by_seq[k - 1].first) shared = by_seq[k].first;
    }
    order.reserve(by_seq.size());
    for (const auto& [seq, index] : by_seq) order.push_back(index);
  }
  if (shared < 0) return true;
  why = "two operations share applied_seq " + std::to_string(shared);
  return false;
}

}  // namespace

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
  std::vector<std::size_t> order;
  if (!OrderBySeq(by_seq, order, result.explanation)) return result;

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
