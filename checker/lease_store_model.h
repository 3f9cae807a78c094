#pragma once
// The lease store as a linearizability model: per key, a record that is
// absent until created, with a version (1 on create, expected+1 on every
// successful CAS) and a value. Used by the black-box search and by the O(n)
// check of the store's own application order.

#include <cassert>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "checker/history.h"
#include "checker/lin_result.h"
#include "checker/text_util.h"

namespace leasesim::checker {

// "node 2 (n2.1) cas k v3->v4 {n2.1, term 3} [1.000s, 1.002s]".
std::string DescribeStoreOp(const StoreOp& op);

// Whether an operation carries anything for the model to check or apply.
// Dropped: reads without a result, and failures that did not report the
// record they conflicted with (a failure may be an outage, not a conflict,
// so only a reported record says what the store held).
inline bool StoreOpMatters(const StoreOp& op) {
  if (op.kind == StoreOpKind::kRead) return op.outcome == Outcome::kOk;
  if (op.outcome == Outcome::kFail) return op.found;
  return true;
}

// The model for one key. Values are interned so a state is two integers.
class LeaseStoreKeyModel {
 public:
  struct State {
    std::int64_t version = 0;  // 0 = absent
    std::int64_t value = -1;   // interned value id
  };
  struct Op {
    StoreOpKind kind;
    Outcome outcome;
    std::int64_t expected_version;
    std::int64_t written;       // interned value written (create/cas)
    bool found;                 // read / reported record: key existed
    std::int64_t version;       // version read, written or reported (0 = not given)
    std::int64_t read_value;    // interned value read or reported
    const StoreOp* source;
  };

  Op Compile(const StoreOp& op);

  State Init() const { return State{}; }
  bool Step(const State& state, const Op& op, State& next) const;
  static bool Equal(const State& a, const State& b) {
    return a.version == b.version && a.value == b.value;
  }
  static std::uint64_t Hash(const State& state) {
    return static_cast<std::uint64_t>(state.version) * 0x9E3779B97F4A7C15ULL ^
           static_cast<std::uint64_t>(state.value);
  }
  // Pruning hint: versions only grow, so an operation that needs an older
  // version (or an absent key) than the state has can never become legal.
  bool Resets(const Op&) const { return false; }
  // Reads and failures change nothing wherever they are legal.
  bool ReadOnly(const Op& op) const {
    return op.kind == StoreOpKind::kRead || op.outcome == Outcome::kFail;
  }
  bool Unreachable(const State& state, const Op& op) const;

  std::string DescribeOp(const Op& op) const { return DescribeStoreOp(*op.source); }
  std::string DescribeState(const State& state) const;

 private:
  // The value's id: the last one interned when it carries the same value
  // (consecutive ops mostly do), else looked up or added (InternNew).
  std::int64_t Intern(const LeaseValue& value) {
    if (last_id_ >= 0) {
      const LeaseValue& last = *values_[static_cast<std::size_t>(last_id_)];
      if (value.term == last.term && value.duration_ns == last.duration_ns && SameText(value.holder, last.holder)) {
        return last_id_;
      }
    }
    return InternNew(value);
  }
  std::int64_t InternNew(const LeaseValue& value);
  // Step without its checks: whether `op` is legal in `state`, and the state after it.
  bool Transition(const State& state, const Op& op, State& next) const;
  // Keyed by (term, duration, holder) views of the first value interned
  // with each content (the ops outlive the model, as values_ already
  // requires): a lookup copies no string and allocates nothing, and
  // compares a holder only once term and duration are equal.
  std::map<std::tuple<std::int64_t, std::int64_t, std::string_view>, std::int64_t> ids_;
  std::int64_t last_id_ = -1;  // the id interned last
  std::vector<const LeaseValue*> values_;
};

// Compile and Step are inline: the applied-order check and the search run
// them once per operation and per search step.
inline LeaseStoreKeyModel::Op LeaseStoreKeyModel::Compile(const StoreOp& op) {
  Op compiled{};
  compiled.kind = op.kind;
  compiled.outcome = op.outcome;
  compiled.expected_version = op.expected_version;
  compiled.written = op.kind == StoreOpKind::kRead ? -1 : Intern(op.value);
  compiled.found = op.found;
  compiled.version = op.version;
  // The record read or reported means something only for a read and a
  // failure (history.h); a successful write's is not interned.
  const bool reports = op.kind == StoreOpKind::kRead || op.outcome == Outcome::kFail;
  compiled.read_value = op.found && reports ? Intern(op.read_value) : -1;
  compiled.source = &op;
  return compiled;
}

inline bool LeaseStoreKeyModel::Step(const State& state, const Op& op, State& next) const {
  assert(state.version >= 0);
  const bool legal = Transition(state, op, next);
  // Versions only grow, legal or not: what Resets() == false promises the
  // pruning. A present record has a value.
  assert(next.version >= state.version);
  assert(next.version == 0 || next.value >= 0);
  return legal;
}

inline bool LeaseStoreKeyModel::Transition(const State& state, const Op& op, State& next) const {
  next = state;
  const bool exists = state.version > 0;
  // A result that reports the record (a read, or a failure that says what
  // the store held) must match the state.
  auto matches_report = [&] {
    if (!op.found) return !exists;
    return exists && state.version == op.version && state.value == op.read_value;
  };
  switch (op.kind) {
    case StoreOpKind::kRead:
      return op.outcome != Outcome::kOk || matches_report();
    case StoreOpKind::kCreate:
      if (op.outcome == Outcome::kFail) return exists && matches_report();
      if (!exists) next = State{1, op.written};
      if (op.outcome == Outcome::kOk) return !exists && (op.version == 0 || op.version == 1);
      return true;
    case StoreOpKind::kCas: {
      const bool match = exists && state.version == op.expected_version;
      if (op.outcome == Outcome::kFail) return !match && matches_report();
      if (match) next = State{op.expected_version + 1, op.written};
      if (op.outcome == Outcome::kOk) {
        return match && (op.version == 0 || op.version == op.expected_version + 1);
      }
      return true;
    }
  }
  return false;
}

// Black-box search of the store operations, key by key in key order.
LinResult CheckLeaseStore(std::span<const StoreOp> ops, const LinOptions& options = {});

}  // namespace leasesim::checker
