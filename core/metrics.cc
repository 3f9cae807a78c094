#include "core/metrics.h"

#include <cinttypes>
#include <cstdio>

namespace leasesim::core {
namespace {

void Sample(std::string& out, const char* name, const char* type, const char* help,
            const std::string& labels, std::int64_t value) {
  char line[512];
  std::snprintf(line, sizeof line, "# HELP %s %s\n# TYPE %s %s\n%s{%s} %" PRId64 "\n", name, help,
                name, type, name, labels.c_str(), value);
  out += line;
}

}  // namespace

std::string RenderPrometheus(const LeaseMetrics& m, const std::string& node) {
  const std::string labels = "node=\"" + node + "\"";
  std::string out;
  Sample(out, "leasesim_is_leader", "gauge", "1 while this node holds a valid lease.", labels,
         m.is_leader ? 1 : 0);
  Sample(out, "leasesim_term", "gauge", "The term (fencing token) last held or seen.", labels, m.term);
  Sample(out, "leasesim_acquisitions_total", "counter", "Leases acquired.", labels, m.acquisitions);
  Sample(out, "leasesim_leader_changes_total", "counter", "Changes of holder observed.", labels,
         m.leader_changes_observed);
  Sample(out, "leasesim_renewals_ok_total", "counter", "Successful renewals.", labels, m.renewals_ok);
  out += "# HELP leasesim_renewals_failed_total Failed renewal attempts by reason.\n"
         "# TYPE leasesim_renewals_failed_total counter\n";
  char line[256];
  const std::pair<const char*, std::int64_t> failures[] = {
      {"conflict", m.renewals_failed_conflict},
      {"unavailable", m.renewals_failed_unavailable},
      {"timeout", m.renewals_failed_timeout}};
  for (const auto& [reason, count] : failures) {
    std::snprintf(line, sizeof line, "leasesim_renewals_failed_total{%s,reason=\"%s\"} %" PRId64 "\n",
                  labels.c_str(), reason, count);
    out += line;
  }
  Sample(out, "leasesim_renewal_latency_ns_sum", "counter", "Sum of successful renewal latencies.",
         labels, m.renewal_latency_ns_sum);
  Sample(out, "leasesim_renewal_latency_ns_max", "gauge", "Largest successful renewal latency.",
         labels, m.renewal_latency_ns_max);
  Sample(out, "leasesim_lease_margin_ns_min", "gauge",
         "Smallest remaining validity seen when a renewal succeeded.", labels,
         m.lease_margin_ns_min == INT64_MAX ? 0 : m.lease_margin_ns_min);
  out += "# HELP leasesim_demotions_total Self-demotions by reason.\n"
         "# TYPE leasesim_demotions_total counter\n";
  for (int r = 0; r < LeaseMetrics::kDemotionReasons; ++r) {
    std::snprintf(line, sizeof line, "leasesim_demotions_total{%s,reason=\"%s\"} %" PRId64 "\n",
                  labels.c_str(), DemotionReasonName(static_cast<DemotionReason>(r)), m.demotions[r]);
    out += line;
  }
  Sample(out, "leasesim_settlements_applied_total", "counter", "Settlement batches applied.", labels,
         m.settlements_applied);
  Sample(out, "leasesim_duplicate_settlements_suppressed_total", "counter",
         "Batches the ledger recognised by idempotency key.", labels,
         m.duplicate_settlements_suppressed);
  Sample(out, "leasesim_fenced_writes_rejected_total", "counter",
         "Batches the ledger rejected for a stale token.", labels, m.fenced_writes_rejected);
  return out;
}

}  // namespace leasesim::core
