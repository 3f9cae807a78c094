#pragma once
// The lease protocol's metrics in the Prometheus text format, by Prometheus
// conventions: base units (seconds), `_total` on counters only, renewal
// durations as a histogram, every sample labelled with the lease name (the
// lease key), and client-go's `leader_election_master_status{name}` gauge so
// dashboards built for client-go's leaderelection work unchanged. Read the
// inputs under the Env's core lock (etcd::RealEnv::WithCoreLock).

#include <string>

#include "core/leadership_tap.h"
#include "core/metrics.h"

namespace leasesim::etcd {

std::string RenderLeaseExposition(const core::LeaseMetrics& metrics, const core::LeadershipTap& tap,
                                  const std::string& lease);

}  // namespace leasesim::etcd
