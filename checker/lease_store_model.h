#pragma once
// The lease store as a linearizability model: per key, a record that is
// absent until created, with a version (1 on create, expected+1 on every
// successful CAS) and a value. Used by the black-box search and by the O(n)
// check of the store's own application order.

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "checker/history.h"
#include "checker/lin_result.h"

namespace leasesim::checker {

// "node 2 (n2.1) cas k v3->v4 {n2.1, term 3} [1.000s, 1.002s]".
std::string DescribeStoreOp(const StoreOp& op);

// Whether an operation carries anything for the model to check or apply.
// Dropped: reads without a result, and failures that did not report the
// record they conflicted with (a failure may be an outage, not a conflict,
// so only a reported record says what the store held).
bool StoreOpMatters(const StoreOp& op);

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
      if (value.term == last.term && value.duration_ns == last.duration_ns && value.holder == last.holder) {
        return last_id_;
      }
    }
    return InternNew(value);
  }
  std::int64_t InternNew(const LeaseValue& value);
  // Keyed by (term, duration, holder) views of the first value interned
  // with each content (the ops outlive the model, as values_ already
  // requires): a lookup copies no string and allocates nothing, and
  // compares a holder only once term and duration are equal.
  std::map<std::tuple<std::int64_t, std::int64_t, std::string_view>, std::int64_t> ids_;
  std::int64_t last_id_ = -1;  // the id interned last
  std::vector<const LeaseValue*> values_;
};

// Black-box search of the store operations, key by key in key order.
LinResult CheckLeaseStore(std::span<const StoreOp> ops, const LinOptions& options = {});

}  // namespace leasesim::checker
