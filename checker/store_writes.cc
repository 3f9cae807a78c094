#include "checker/store_writes.h"

#include <algorithm>
#include <map>
#include <string>

namespace leasesim::checker {

std::vector<const StoreOp*> WritesThatTookEffect(const History& history) {
  std::vector<const StoreOp*> processed;
  for (const StoreOp& op : history.store_ops) {
    if (op.kind != StoreOpKind::kRead && op.applied_seq >= 0) processed.push_back(&op);
  }
  std::stable_sort(processed.begin(), processed.end(),
                   [](const StoreOp* a, const StoreOp* b) { return a->applied_seq < b->applied_seq; });
  std::map<std::string, std::int64_t> versions;  // by key; absent = no record
  std::vector<const StoreOp*> writes;
  for (const StoreOp* op : processed) {
    const auto it = versions.find(op->key);
    const bool exists = it != versions.end();
    bool took_effect = op->outcome == Outcome::kOk;
    if (op->outcome == Outcome::kUnknown) {
      took_effect = op->kind == StoreOpKind::kCreate ? !exists : exists && it->second == op->expected_version;
    }
    if (!took_effect) continue;
    versions[op->key] = op->kind == StoreOpKind::kCreate ? 1 : op->expected_version + 1;
    writes.push_back(op);
  }
  return writes;
}

}  // namespace leasesim::checker
