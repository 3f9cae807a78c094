#include "checker/history_index.h"

#include <algorithm>

#include "checker/store_writes.h"
#include "checker/text_util.h"

namespace leasesim::checker {

HistoryIndex::HistoryIndex(const History& history)
    : history_(&history),
      applied_order_(StoreAppliedOrder(history.store_ops)),
      writes_(WritesThatTookEffect(history, applied_order_)) {
  for (const StoreOp& op : history.store_ops) {
    const bool write = op.kind != StoreOpKind::kRead;
    if (op.applied_seq < 0) {
      if (op.outcome == Outcome::kOk) every_result_applied_ = false;
      // A write that took effect with no place in the store's order (a live
      // run's history): when it was applied is not known either.
      if (op.outcome == Outcome::kOk && write) knows_apply_instants_ = false;
    } else if (write && op.applied_ns == kNeverNs) {
      knows_apply_instants_ = false;
    }
  }
  IndexLeases();
  IndexClaims();
}

// Groups the writes' positions by lease, sorted by (term, holder), each
// lease's in applied order. A run's terms grow in applied order, so its
// runs of one lease are mostly the groups already, in order; otherwise the
// positions are sorted and grouped again.
void HistoryIndex::IndexLeases() {
  by_lease_.resize(writes_.size());
  for (std::size_t i = 0; i < writes_.size(); ++i) by_lease_[i] = i;
  GroupLeases();
  const auto lease_before = [](const Lease& a, const Lease& b) {
    return a.term != b.term ? a.term < b.term : a.holder < b.holder;
  };
  if (std::adjacent_find(leases_.begin(), leases_.end(), [&](const Lease& a, const Lease& b) {
        return !lease_before(a, b);
      }) == leases_.end()) {
    return;
  }
  std::sort(by_lease_.begin(), by_lease_.end(), [this](std::size_t a, std::size_t b) {
    const LeaseValue& x = writes_[a]->value;
    const LeaseValue& y = writes_[b]->value;
    if (x.term != y.term) return x.term < y.term;
    if (const int order = x.holder.compare(y.holder); order != 0) return order < 0;
    return a < b;
  });
  GroupLeases();
}

// leases_ from the runs of one lease in by_lease_.
void HistoryIndex::GroupLeases() {
  leases_.clear();
  for (std::size_t k = 0; k < by_lease_.size(); ++k) {
    const LeaseValue& value = writes_[by_lease_[k]]->value;
    if (leases_.empty() || leases_.back().term != value.term || !SameText(leases_.back().holder, value.holder)) {
      leases_.push_back(Lease{.term = value.term, .holder = value.holder, .first = k, .last = k});
    }
    leases_.back().last = k + 1;
  }
}

const HistoryIndex::Lease* HistoryIndex::FindLease(std::string_view holder, std::int64_t term) const {
  // By term, then the holder among that term's leases (one, unless the
  // term was reused): one comparison of names.
  auto it = std::partition_point(leases_.begin(), leases_.end(), [&](const Lease& lease) { return lease.term < term; });
  for (; it != leases_.end() && it->term == term; ++it) {
    if (it->holder == holder) return &*it;
  }
  return nullptr;
}

std::size_t HistoryIndex::PastAppliedBy(const Lease& lease, TimeNs at) const {
  const auto first = by_lease_.begin() + static_cast<std::ptrdiff_t>(lease.first);
  const auto last = by_lease_.begin() + static_cast<std::ptrdiff_t>(lease.last);
  const auto after = std::upper_bound(first, last, at, [this](TimeNs t, std::size_t position) {
    return t < writes_[position]->applied_ns;
  });
  return static_cast<std::size_t>(after - by_lease_.begin());
}

const StoreOp* HistoryIndex::LastRecordBy(std::string_view holder, std::int64_t term, TimeNs at) const {
  const Lease* lease = FindLease(holder, term);
  if (lease == nullptr) return nullptr;
  const std::size_t after = PastAppliedBy(*lease, at);
  return after == lease->first ? nullptr : writes_[by_lease_[after - 1]];
}

// LastRecordBy of each claim, in one sweep: a run's claims come in time
// order and a lease's in runs, so a claim mostly moves the previous one's
// place in its lease's records forward by a step or none; another lease,
// or an earlier instant, is looked up afresh.
void HistoryIndex::IndexClaims() {
  claim_records_.reserve(history_->claims.size());
  const Lease* lease = nullptr;  // the previous claim's
  std::size_t after = 0;         // PastAppliedBy(*lease, at)
  TimeNs at = 0;
  for (const ValidityClaim& claim : history_->claims) {
    const bool onward = lease != nullptr && lease->term == claim.term && claim.at_ns >= at && SameText(lease->holder, claim.holder);
    at = claim.at_ns;
    if (!onward) {
      lease = FindLease(claim.holder, claim.term);
      if (lease != nullptr) after = PastAppliedBy(*lease, at);
    }
    if (lease == nullptr) {
      claim_records_.push_back(nullptr);
      continue;
    }
    while (after < lease->last && writes_[by_lease_[after]]->applied_ns <= at) ++after;
    claim_records_.push_back(after == lease->first ? nullptr : writes_[by_lease_[after - 1]]);
  }
}

std::size_t HistoryIndex::FirstRecordOf(std::string_view holder, std::int64_t term) const {
  const Lease* lease = FindLease(holder, term);
  return lease == nullptr ? kNone : by_lease_[lease->first];
}

}  // namespace leasesim::checker
