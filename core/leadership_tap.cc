#include "core/leadership_tap.h"

#include <algorithm>

#include "base/same_text.h"
#include "core/metrics.h"

namespace leasesim::core {

void DurationHistogram::Observe(Nanos duration) {
  std::size_t bucket = 0;
  while (bucket < kBoundsNs.size() && duration > kBoundsNs[bucket]) ++bucket;
  counts[bucket] += 1;
  count += 1;
  sum_ns += duration;
}

void LeadershipTap::Emit(const LeaseEvent& event) {
  switch (event.kind) {
    case EventKind::kRenewed:
      // A renewal the store confirmed (an "assumed" one made no call of its
      // own): its call is the one just made, on the same task.
      if (event.reason.empty()) renewal_durations_.Observe(last_call_ns_);
      break;
    case EventKind::kAcquired:
      SetHolder(event.holder);
      break;
    case EventKind::kDemoted:
      for (int r = 0; r < LeaseMetrics::kDemotionReasons; ++r) {
        if (event.reason != DemotionReasonName(static_cast<DemotionReason>(r))) continue;
        ended_[static_cast<std::size_t>(demotions_) % kDemotionsKept] =
            Ended{event.term, static_cast<DemotionReason>(r)};
        demotions_ += 1;
        break;
      }
      break;
    default:
      break;
  }
  inner_.events().Emit(event);
}

std::optional<DemotionReason> LeadershipTap::DemotionOf(std::int64_t term) const {
  // Newest first: a term re-adopted and lost again reports its last loss.
  const std::int64_t kept = std::min<std::int64_t>(demotions_, kDemotionsKept);
  for (std::int64_t back = 1; back <= kept; ++back) {
    const Ended& slot = ended_[static_cast<std::size_t>(demotions_ - back) % kDemotionsKept];
    if (slot.term == term) return slot.reason;
  }
  return std::nullopt;
}

void LeadershipTap::SetHolder(const std::string& holder) {
  if (base::SameText(holder, holder_)) return;
  holder_ = holder;
  holder_changes_ += 1;
}

void LeadershipTap::Saw(const StoreResult& result) {
  // Only answers that say what the record holds: kOk (as read or written)
  // and a conflict that came with the current record.
  const bool says = result.status == StoreStatus::kOk ||
                    (result.status == StoreStatus::kConflict && result.current.found);
  if (!says) return;
  static const std::string kNobody;  // both arms lvalues: no copy of the holder
  SetHolder(result.current.found ? result.current.record.holder : kNobody);
}

template <typename Call>
StoreResult LeadershipTap::Watch(Call&& call) {
  // The boot clock, as the elector times its renewals (it counts a suspend).
  const Nanos sent = inner_.BootNow();
  StoreResult result = call(inner_.store());
  last_call_ns_ = inner_.BootNow() - sent;
  Saw(result);
  return result;
}

StoreResult LeadershipTap::WatchedStore::Read(std::string_view key, Nanos timeout) {
  return tap_.Watch([&](StoreClient& store) { return store.Read(key, timeout); });
}

bool LeadershipTap::WatchedStore::CanWatch() const { return tap_.inner_.store().CanWatch(); }

StoreResult LeadershipTap::WatchedStore::WaitForChange(std::string_view key, std::int64_t known_version,
                                                       Nanos timeout) {
  // Not a timed call (it waits by design): only the record it brings is noted.
  StoreResult result = tap_.inner_.store().WaitForChange(key, known_version, timeout);
  tap_.Saw(result);
  return result;
}

StoreResult LeadershipTap::WatchedStore::WaitForChangeWhile(std::string_view key, std::int64_t known_version,
                                                            const std::function<Nanos()>& next_timeout,
                                                            const std::function<bool()>& again) {
  // The timeouts in between bring no record: only the answer is noted.
  StoreResult result = tap_.inner_.store().WaitForChangeWhile(key, known_version, next_timeout, again);
  tap_.Saw(result);
  return result;
}

StoreResult LeadershipTap::WatchedStore::Create(std::string_view key, const LeaseRecord& record, Nanos timeout) {
  return tap_.Watch([&](StoreClient& store) { return store.Create(key, record, timeout); });
}

StoreResult LeadershipTap::WatchedStore::CompareAndSet(std::string_view key, std::int64_t expected_version,
                                                       const LeaseRecord& record, Nanos timeout) {
  return tap_.Watch(
      [&](StoreClient& store) { return store.CompareAndSet(key, expected_version, record, timeout); });
}

}  // namespace leasesim::core
