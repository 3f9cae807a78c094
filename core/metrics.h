#pragma once
// Per-node protocol metrics: plain counters and gauges updated by the
// protocol's own task(s). A real node exposes them in the Prometheus text
// format through backends/etcd/lease_exposition.h (the one writer of that
// format, backends/etcd/prometheus_text.h).

#include <array>
#include <cstdint>
#include <string>

#include "core/events.h"
#include "core/lease_record.h"

namespace leasesim::core {

struct LeaseMetrics {
  static constexpr int kDemotionReasons = 6;

  bool is_leader = false;
  std::int64_t term = 0;
  std::int64_t acquisitions = 0;
  std::int64_t leader_changes_observed = 0;
  std::int64_t renewals_ok = 0;
  std::int64_t renewals_failed_conflict = 0;
  std::int64_t renewals_failed_unavailable = 0;
  std::int64_t renewals_failed_timeout = 0;
  std::int64_t renewal_latency_ns_sum = 0;
  std::int64_t renewal_latency_ns_max = 0;
  std::int64_t lease_margin_ns_min = INT64_MAX;  // remaining validity at each renewal, minimum
  std::array<std::int64_t, kDemotionReasons> demotions{};
  std::int64_t settlements_applied = 0;
  std::int64_t duplicate_settlements_suppressed = 0;
  std::int64_t fenced_writes_rejected = 0;

  void CountDemotion(DemotionReason reason) { demotions[static_cast<int>(reason)] += 1; }
  std::int64_t demotions_for(DemotionReason reason) const {
    return demotions[static_cast<int>(reason)];
  }
};

// Each counter's name, as a metric event names it (core/events.h), and its
// value: what a snapshot of the counters reports.
template <typename Visit>
void ForEachCounter(const LeaseMetrics& m, Visit&& visit) {
  static constexpr const char* kDemotionNames[LeaseMetrics::kDemotionReasons] = {
      "demotions_deadline_total",       "demotions_conflict_total", "demotions_store_unavailable_total",
      "demotions_pause_detected_total", "demotions_fenced_total",   "demotions_released_total"};
  visit("acquisitions_total", m.acquisitions);
  visit("leader_changes_observed_total", m.leader_changes_observed);
  visit("renewals_ok_total", m.renewals_ok);
  visit("renewals_failed_conflict_total", m.renewals_failed_conflict);
  visit("renewals_failed_unavailable_total", m.renewals_failed_unavailable);
  visit("renewals_failed_timeout_total", m.renewals_failed_timeout);
  visit("renewal_latency_ns_sum_total", m.renewal_latency_ns_sum);
  for (int r = 0; r < LeaseMetrics::kDemotionReasons; ++r) visit(kDemotionNames[r], m.demotions[r]);
  visit("settlements_applied_total", m.settlements_applied);
  visit("duplicate_settlements_suppressed_total", m.duplicate_settlements_suppressed);
  visit("fenced_writes_rejected_total", m.fenced_writes_rejected);
}

}  // namespace leasesim::core
