#pragma once
// Per-node protocol metrics, rendered in the Prometheus text exposition
// format. Plain counters and gauges updated by the protocol's own task(s).

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

// The metrics in Prometheus text format, each sample labelled with `node`.
std::string RenderPrometheus(const LeaseMetrics& metrics, const std::string& node);

}  // namespace leasesim::core
