#pragma once
// What several checks and figures look up in one history, built once so
// that each is one definition computed one time: the store's own order of
// its operations, the lease-record writes that took effect in it, and those
// writes by lease (term and holder). A view of a History that must outlive
// it; CheckHistory and HistoryFigures take one, so a caller that wants both
// builds it once.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "checker/history.h"

namespace leasesim::checker {

// The lookups above, built once over one History.
class HistoryIndex {
 public:
  static constexpr std::size_t kNone = ~std::size_t{0};

  explicit HistoryIndex(const History& history);
  HistoryIndex(History&&) = delete;  // a view: the history must outlive it

  const History& history() const { return *history_; }

  // StoreAppliedOrder(history.store_ops) (checker/store_writes.h).
  std::span<const std::size_t> applied_order() const { return applied_order_; }

  // WritesThatTookEffect(history), in applied order.
  std::span<const StoreOp* const> writes() const { return writes_; }

  // Whether the history says when the store applied every write it
  // processed (StoreOp::applied_ns; the simulator records it).
  bool knows_apply_instants() const { return knows_apply_instants_; }

  // Whether every operation with a result (outcome ok) has an applied_seq,
  // as the simulator records: the store's order then orders them all.
  bool every_result_applied() const { return every_result_applied_; }

  // The last of writes() that `holder` made in `term` with applied_ns <= at;
  // null when none.
  const StoreOp* LastRecordBy(std::string_view holder, std::int64_t term, TimeNs at) const;

  // The position in writes() of the first that `holder` made in `term`;
  // kNone when none.
  std::size_t FirstRecordOf(std::string_view holder, std::int64_t term) const;

  // Parallel to history.claims: LastRecordBy(claim.holder, claim.term,
  // claim.at_ns) of each (a run makes one claim per renewal, which the lease
  // contract's check and its margins both look up).
  std::span<const StoreOp* const> claim_records() const { return claim_records_; }

 private:
  // The writes of one lease: positions [first, last) of by_lease_.
  struct Lease {
    std::int64_t term;
    std::string_view holder;
    std::size_t first;
    std::size_t last;
  };

  void IndexLeases();
  void GroupLeases();
  void IndexClaims();
  const Lease* FindLease(std::string_view holder, std::int64_t term) const;
  // The first position of the lease's in by_lease_ applied after `at`.
  std::size_t PastAppliedBy(const Lease& lease, TimeNs at) const;

  const History* history_;
  std::vector<std::size_t> applied_order_;
  std::vector<const StoreOp*> writes_;
  bool knows_apply_instants_ = true;
  bool every_result_applied_ = true;
  std::vector<Lease> leases_;           // by (term, holder)
  std::vector<std::size_t> by_lease_;   // positions in writes_, grouped by lease, each in applied order
  std::vector<const StoreOp*> claim_records_;
};

}  // namespace leasesim::checker
