#include "checker/store_writes.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string_view>
#include <utility>

#include "checker/text_util.h"

namespace leasesim::checker {

std::vector<std::size_t> StoreAppliedOrder(std::span<const StoreOp> ops) {
  // The simulator numbers what its store applies 0, 1, 2, ..., each number
  // once: the m operations applied then carry 0..m-1, and each number is
  // the operation's place, filled in one pass. Any other numbering (a
  // number used twice, gaps, a history from elsewhere) is sorted instead.
  std::size_t applied = 0;
  std::int64_t highest = -1;
  for (const StoreOp& op : ops) {
    if (op.applied_seq < 0) continue;
    ++applied;
    highest = std::max(highest, op.applied_seq);
  }
  if (highest + 1 == static_cast<std::int64_t>(applied)) {
    constexpr std::size_t kUnplaced = ~std::size_t{0};
    std::vector<std::size_t> order(applied, kUnplaced);
    bool once = true;  // no number seen twice (with m numbers below m, every place is then filled)
    for (std::size_t i = 0; i < ops.size() && once; ++i) {
      if (ops[i].applied_seq < 0) continue;
      std::size_t& place = order[static_cast<std::size_t>(ops[i].applied_seq)];
      once = place == kUnplaced;
      place = i;
    }
    if (once) return order;
  }
  std::vector<std::pair<std::int64_t, std::size_t>> by_seq;  // (seq, index): sorts without chasing each op
  by_seq.reserve(applied);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].applied_seq >= 0) by_seq.emplace_back(ops[i].applied_seq, i);
  }
  std::sort(by_seq.begin(), by_seq.end());  // ties keep their order in `ops`: the index breaks them
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
    if (last == versions.end() || !SameText(last->first, op->key)) last = versions.find(op->key);
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
