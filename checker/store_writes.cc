#include "checker/store_writes.h"

#include <cstdint>
#include <map>
#include <string_view>
#include <utility>

namespace leasesim::checker {

std::vector<std::size_t> StoreAppliedOrder(std::span<const StoreOp> ops) {
  // The simulator numbers what its store applies 0, 1, 2, ...: with every
  // number below ops.size(), a counting sort places each operation in three
  // passes (and keeps ties in history order). Other numbers (a history from
  // elsewhere) are sorted.
  std::vector<std::size_t> next(ops.size() + 1, 0);  // counts, then the next slot of each number
  bool counted = true;
  for (const StoreOp& op : ops) {
    if (op.applied_seq < 0) continue;
    if (op.applied_seq >= static_cast<std::int64_t>(ops.size())) {
      counted = false;
      break;
    }
    ++next[static_cast<std::size_t>(op.applied_seq) + 1];
  }
  if (counted) {
    for (std::size_t seq = 1; seq < next.size(); ++seq) next[seq] += next[seq - 1];
    std::vector<std::size_t> order(next.back());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].applied_seq >= 0) order[next[static_cast<std::size_t>(ops[i].applied_seq)]++] = i;
    }
    return order;
  }
  std::vector<std::pair<std::int64_t, std::size_t>> by_seq;  // (seq, index): sorts without chasing each op
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].applied_seq >= 0) by_seq.emplace_back(ops[i].applied_seq, i);
  }
  std::sort(by_seq.begin(), by_seq.end());
  std::vector<std::size_t> order(by_seq.size());
  for (std::size_t k = 0; k < by_seq.size(); ++k) order[k] = by_seq[k].second;
  return order;
}

std::vector<const StoreOp*> WritesThatTookEffect(const History& history) {
  return WritesThatTookEffect(history, StoreAppliedOrder(history.store_ops));
}

std::vector<const StoreOp*> WritesThatTookEffect(const History& history, std::span<const std::size_t> applied_order) {
  std::map<std::string_view, std::int64_t> versions;  // by key; absent = no record
  // Runs of writes to one key are the rule (a lease has one): its entry is
  // looked up once a run.
  std::map<std::string_view, std::int64_t>::iterator last = versions.end();
  std::vector<const StoreOp*> writes;
  for (std::size_t index : applied_order) {
    const StoreOp* op = &history.store_ops[index];
    if (op->kind == StoreOpKind::kRead) continue;
    if (last == versions.end() || last->first != op->key) last = versions.find(op->key);
    const bool exists = last != versions.end();
    bool took_effect = op->outcome == Outcome::kOk;
    if (op->outcome == Outcome::kUnknown) {
      took_effect = op->kind == StoreOpKind::kCreate ? !exists : exists && last->second == op->expected_version;
    }
    if (!took_effect) continue;
    const std::int64_t version = op->kind == StoreOpKind::kCreate ? 1 : op->expected_version + 1;
    if (exists) last->second = version;
    else last = versions.emplace(op->key, version).first;
    writes.push_back(op);
  }
  return writes;
}

}  // namespace leasesim::checker
