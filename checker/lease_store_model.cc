#include "checker/lease_store_model.h"

#include <cassert>

#include "checker/format.h"

namespace leasesim::checker {
namespace {

std::string ValueText(const LeaseValue& value) {
  return "{holder " + (value.holder.empty() ? std::string("(released)") : value.holder) +
         ", term " + std::to_string(value.term) + "}";
}

}  // namespace

std::string DescribeStoreOp(const StoreOp& op) {
  std::string text = "node " + std::to_string(op.node);
  if (!op.process.empty()) text += " (" + op.process + ")";
  switch (op.kind) {
    case StoreOpKind::kRead:
      text += " read of " + op.key;
      if (op.outcome == Outcome::kOk) {
        text += op.found ? " -> v" + std::to_string(op.version) + " " + ValueText(op.read_value)
                         : " -> absent";
      }
      break;
    case StoreOpKind::kCreate:
      text += " create of " + op.key + " " + ValueText(op.value);
      break;
    case StoreOpKind::kCas:
      text += " cas of " + op.key + " at v" + std::to_string(op.expected_version) + " to " +
              ValueText(op.value);
      break;
  }
  if (op.outcome == Outcome::kFail) {
    text += " (failed";
    if (op.found) text += "; store held v" + std::to_string(op.version);
    text += ")";
  }
  if (op.outcome == Outcome::kUnknown) text += " (outcome unknown)";
  text += " [" + FormatTime(op.invoke_ns) + ", " +
          (op.outcome == Outcome::kUnknown ? std::string("?") : FormatTime(op.complete_ns)) + "]";
  return text;
}

std::int64_t LeaseStoreKeyModel::InternNew(const LeaseValue& value) {
  const auto [it, inserted] =
      ids_.try_emplace({value.term, value.duration_ns, value.holder}, static_cast<std::int64_t>(values_.size()));
  if (inserted) values_.push_back(&value);  // its holder is what the new key views
  last_id_ = it->second;
  assert(values_.size() == ids_.size());  // one id per content, ids dense from 0
  assert(static_cast<std::size_t>(last_id_) < values_.size());
  assert(values_[static_cast<std::size_t>(last_id_)]->term == value.term);
  return last_id_;
}

bool LeaseStoreKeyModel::Unreachable(const State& state, const Op& op) const {
  if (op.outcome == Outcome::kUnknown) return false;
  if (op.kind == StoreOpKind::kRead || op.outcome == Outcome::kFail) {
    // It must see the reported record: absent, or exactly op.version.
    if (!op.found) return state.version > 0;
    return state.version > op.version;
  }
  if (op.kind == StoreOpKind::kCreate) return state.version > 0;
  return state.version > op.expected_version;
}

std::string LeaseStoreKeyModel::DescribeState(const State& state) const {
  if (state.version == 0) return "absent";
  assert(state.value >= 0);
  assert(static_cast<std::size_t>(state.value) < values_.size());
  return "v" + std::to_string(state.version) + " " +
         ValueText(*values_[static_cast<std::size_t>(state.value)]);
}

LinResult CheckLeaseStore(std::span<const StoreOp> ops, const LinOptions& options) {
  const auto to_lin = [](LeaseStoreKeyModel& model, const StoreOp& op, std::size_t i) {
    return LinOp<LeaseStoreKeyModel::Op>{model.Compile(op), op.invoke_ns,
                                         op.outcome == Outcome::kUnknown ? kNeverNs : op.complete_ns,
                                         static_cast<std::int64_t>(i)};
  };
  std::vector<LinPartition<LeaseStoreKeyModel>> partitions =
      PartitionsByKey<LeaseStoreKeyModel>(ops, StoreOpMatters, to_lin);
  return SearchPartitions(partitions, options);
}

}  // namespace leasesim::checker
