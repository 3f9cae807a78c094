#include "backends/etcd/lease_exposition.h"

#include <vector>

#include "backends/etcd/prometheus_text.h"
#include "base/units.h"

namespace leasesim::etcd {
namespace {

double Seconds(core::Nanos ns) { return static_cast<double>(ns) / static_cast<double>(base::kNanosPerSecond); }

void Counter(PrometheusText& out, const char* name, const char* help, const Labels& labels, std::int64_t value) {
  out.Family(name, "counter", help);
  out.Sample(name, labels, value);
}

void Renewals(PrometheusText& out, const core::LeaseMetrics& m, const core::LeadershipTap& tap,
              const Labels& lease) {
  out.Family("leasesim_renewals_total", "counter", "Renewal attempts by result.");
  const std::pair<const char*, std::int64_t> results[] = {{"ok", m.renewals_ok},
                                                          {"conflict", m.renewals_failed_conflict},
                                                          {"unavailable", m.renewals_failed_unavailable},
                                                          {"timeout", m.renewals_failed_timeout}};
  for (const auto& [result, count] : results) {
    Labels labels = lease;
    labels.emplace_back("result", result);
    out.Sample("leasesim_renewals_total", labels, count);
  }
  const core::DurationHistogram& h = tap.renewal_durations();
  std::vector<double> bounds;
  for (core::Nanos bound : core::DurationHistogram::kBoundsNs) bounds.push_back(Seconds(bound));
  out.Family("leasesim_renewal_duration_seconds", "histogram",
             "Successful renewals: the store call, from send to reply.");
  out.Histogram("leasesim_renewal_duration_seconds", lease, bounds,
                std::vector<std::int64_t>(h.counts.begin(), h.counts.end()), Seconds(h.sum_ns));
  out.Family("leasesim_renewal_duration_max_seconds", "gauge", "Longest successful renewal so far.");
  out.Sample("leasesim_renewal_duration_max_seconds", lease, Seconds(m.renewal_latency_ns_max));
  out.Family("leasesim_renewal_margin_min_seconds", "gauge",
             "Smallest validity left when a renewal succeeded (absent before the first).");
  if (m.renewals_ok > 0) out.Sample("leasesim_renewal_margin_min_seconds", lease, Seconds(m.lease_margin_ns_min));
}

}  // namespace

std::string RenderLeaseExposition(const core::LeaseMetrics& m, const core::LeadershipTap& tap,
                                  const std::string& lease_name) {
  PrometheusText out;
  const Labels lease{{"lease", lease_name}};
  out.Family("leader_election_master_status", "gauge",
             "1 while this process leads the lease named, else 0 (as client-go's leaderelection).");
  out.Sample("leader_election_master_status", Labels{{"name", lease_name}}, std::int64_t{m.is_leader ? 1 : 0});
  out.Family("leasesim_is_leader", "gauge", "1 while this process holds a valid lease.");
  out.Sample("leasesim_is_leader", lease, std::int64_t{m.is_leader ? 1 : 0});
  out.Family("leasesim_term", "gauge", "The term (fencing token) last held or seen.");
  out.Sample("leasesim_term", lease, m.term);
  Counter(out, "leasesim_acquisitions_total", "Leases acquired.", lease, m.acquisitions);
  Counter(out, "leasesim_leader_changes_observed_total", "Changes of holder observed.", lease,
          m.leader_changes_observed);
  Renewals(out, m, tap, lease);
  out.Family("leasesim_demotions_total", "counter", "Self-demotions by reason.");
  for (int r = 0; r < core::LeaseMetrics::kDemotionReasons; ++r) {
    Labels labels = lease;
    labels.emplace_back("reason", core::DemotionReasonName(static_cast<core::DemotionReason>(r)));
    out.Sample("leasesim_demotions_total", labels, m.demotions[static_cast<std::size_t>(r)]);
  }
  Counter(out, "leasesim_settlements_applied_total", "Settlement batches applied.", lease, m.settlements_applied);
  Counter(out, "leasesim_settlements_duplicate_total", "Batches the ledger recognised by idempotency key.", lease,
          m.duplicate_settlements_suppressed);
  Counter(out, "leasesim_fenced_writes_rejected_total", "Batches the ledger rejected for a stale token.", lease,
          m.fenced_writes_rejected);
  return out.text();
}

}  // namespace leasesim::etcd
