#include "checker/cas_register_model.h"

#include <cassert>
#include <limits>
#include <map>
#include <vector>

#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

constexpr std::int64_t kNil = std::numeric_limits<std::int64_t>::min();

std::string ValueText(std::int64_t value) {
  return value == kNil ? "nil" : std::to_string(value);
}

// The search-side model: the state is the register's value (kNil = absent).
class CasRegisterModel {
 public:
  using State = std::int64_t;
  using Op = const CasRegisterOp*;

  State Init() const { return initial_; }
  void SetInitial(std::optional<std::int64_t> initial) { initial_ = initial.value_or(kNil); }

  bool Step(State state, Op op, State& next) const {
    assert(op != nullptr);
    switch (op->kind) {
      case CasRegisterOp::Kind::kRead:
        next = state;
        if (op->outcome != Outcome::kOk) return true;
        return state == (op->read_found ? op->read_value : kNil);
      case CasRegisterOp::Kind::kWrite:
        next = op->value;
        return true;
      case CasRegisterOp::Kind::kCas: {
        const bool match = state == op->expected;
        next = match ? op->value : state;
        if (op->outcome == Outcome::kOk) return match;
        if (op->outcome == Outcome::kFail) return !match;
        return true;  // unknown: whatever the register held
      }
    }
    return false;
  }

  static bool Equal(State a, State b) { return a == b; }
  static std::uint64_t Hash(State state) { return static_cast<std::uint64_t>(state); }
  bool ReadOnly(Op op) const {
    return op->kind == CasRegisterOp::Kind::kRead ||
           (op->kind == CasRegisterOp::Kind::kCas && op->outcome == Outcome::kFail);
  }

  std::string DescribeOp(Op op) const { return DescribeCasRegisterOp(*op); }
  std::string DescribeState(State state) const { return "value " + ValueText(state); }

 private:
  State initial_ = kNil;
};

// Whether an operation can neither change the register nor be refuted by it
// under the convention, so the search leaves it out.
bool ConstrainsNothing(const CasRegisterOp& op, const CasRegisterConvention& convention) {
  switch (op.kind) {
    case CasRegisterOp::Kind::kRead:
      return op.outcome != Outcome::kOk || (!op.read_found && !convention.nil_read_constrains);
    case CasRegisterOp::Kind::kWrite:
      return op.outcome == Outcome::kFail;
    case CasRegisterOp::Kind::kCas:
      return op.outcome == Outcome::kFail && !convention.failed_cas_compared;
  }
  return false;
}

}  // namespace

std::string DescribeCasRegisterOp(const CasRegisterOp& op) {
  std::string text = "process " + std::to_string(op.process) + "'s ";
  switch (op.kind) {
    case CasRegisterOp::Kind::kRead:
      text += op.key.empty() ? "read" : "read of key " + op.key;
      if (op.outcome == Outcome::kOk) {
        text += " of " + (op.read_found ? std::to_string(op.read_value) : std::string("nil"));
      }
      break;
    case CasRegisterOp::Kind::kWrite:
      text += "write " + std::to_string(op.value) + (op.key.empty() ? "" : " to key " + op.key);
      break;
    case CasRegisterOp::Kind::kCas:
      text += "cas " + std::to_string(op.expected) + "->" + std::to_string(op.value) +
              (op.key.empty() ? "" : " on key " + op.key);
      break;
  }
  if (op.outcome == Outcome::kFail) text += " (failed)";
  if (op.outcome == Outcome::kUnknown) text += " (outcome unknown)";
  return text + LineSpanText(op.invoke_line, op.return_line);
}

CasRegisterConvention PorcupineConvention() { return CasRegisterConvention{}; }

CasRegisterConvention KnossosConvention(std::optional<std::int64_t> initial) {
  return CasRegisterConvention{.initial = initial, .failed_cas_compared = false, .nil_read_constrains = false};
}

LinResult CheckCasRegister(std::span<const CasRegisterOp> ops, const LinOptions& options,
                           const CasRegisterConvention& convention) {
  assert(!convention.initial || *convention.initial != kNil);  // kNil stands for absent
  const auto constrains = [&](const CasRegisterOp& op) { return !ConstrainsNothing(op, convention); };
  const auto to_lin = [](CasRegisterModel&, const CasRegisterOp& op, std::size_t i) {
    return LinOp<CasRegisterModel::Op>{&op, op.call_ns, op.outcome == Outcome::kUnknown ? kNeverNs : op.return_ns,
                                       static_cast<std::int64_t>(i)};
  };
  std::vector<LinPartition<CasRegisterModel>> partitions =
      PartitionsByKey<CasRegisterModel>(ops, constrains, to_lin);
  if (partitions.empty()) partitions.emplace_back();  // one (empty) register: the answer still names it
  for (LinPartition<CasRegisterModel>& partition : partitions) {
    if (partition.key.empty()) partition.key = "register";
    partition.model.SetInitial(convention.initial);
  }
  return SearchPartitions(partitions, options);
}

}  // namespace leasesim::checker
