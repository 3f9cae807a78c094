#include "backends/etcd/lease_health.h"

#include <utility>

#include "base/units.h"

namespace leasesim::etcd {

LeaseHealth::LeaseHealth(core::EventSink& events, core::StoreClient& store, LeaseHealthOptions options)
    : events_(events), watched_(*this, store), options_(std::move(options)) {}

void LeaseHealth::Emit(const core::LeaseEvent& event) {
  const bool was_leading = leading_.load();
  switch (event.kind) {
    case core::EventKind::kAcquired:
      record_names_me_.store(true);
      [[fallthrough]];
    case core::EventKind::kRenewed:
      if (event.valid_until_ns != 0) valid_until_.store(event.valid_until_ns);
      leading_.store(true);
      break;
    case core::EventKind::kDemoted:
      leading_.store(false);
      break;
    default:
      break;
  }
  events_.Emit(event);
  if (leading_.load() == was_leading) return;
  // /healthz's leader answer changed: reported as a metric sample, so a
  // checker can hold it to the lease (healthz_leading, docs/CHECKER.md).
  core::LeaseEvent answer;
  answer.kind = core::EventKind::kMetric;
  answer.holder = event.holder;
  answer.term = event.term;
  answer.monotonic_ns = event.monotonic_ns;
  answer.metric = "healthz_leading";
  answer.value = leading_.load() ? 1 : 0;
  events_.Emit(answer);
}

void LeaseHealth::Saw(const core::StoreResult& result) {
  // Only answers that say what the record holds.
  const bool says = result.status == core::StoreStatus::kOk ||
                    (result.status == core::StoreStatus::kConflict && result.current.found);
  if (!says) return;
  record_names_me_.store(result.current.found && result.current.record.holder == options_.identity);
}

HealthStatus LeaseHealth::Check(core::Nanos boot_now) const {
  const bool leading = leading_.load();
  if (!leading && !record_names_me_.load()) return HealthStatus{true, "ok: not leading " + options_.lease};
  const core::Nanos overdue = boot_now - valid_until_.load();
  if (overdue <= options_.timeout) {
    // Leading only while the elector believes it: a record that still
    // names a demoted process grants it nothing.
    return HealthStatus{true, leading ? "ok: leading " + options_.lease
                                      : "ok: not leading " + options_.lease + " (the record last seen still names it)"};
  }
  return HealthStatus{false, "leader failed to renew lease " + options_.lease + ": " +
                                 std::to_string(overdue / base::kNanosPerMilli) + " ms past its deadline (timeout " +
                                 std::to_string(options_.timeout / base::kNanosPerMilli) + " ms), " +
                                 (leading ? "still leading" : "the record last seen still names it")};
}

core::StoreResult LeaseHealth::WatchedStore::Read(std::string_view key, core::Nanos timeout) {
  core::StoreResult result = inner_.Read(key, timeout);
  health_.Saw(result);
  return result;
}

core::StoreResult LeaseHealth::WatchedStore::Create(std::string_view key, const core::LeaseRecord& record,
                                                    core::Nanos timeout) {
  core::StoreResult result = inner_.Create(key, record, timeout);
  health_.Saw(result);
  return result;
}

core::StoreResult LeaseHealth::WatchedStore::CompareAndSet(std::string_view key, std::int64_t expected_version,
                                                           const core::LeaseRecord& record, core::Nanos timeout) {
  core::StoreResult result = inner_.CompareAndSet(key, expected_version, record, timeout);
  health_.Saw(result);
  return result;
}

}  // namespace leasesim::etcd
