#pragma once
// One process incarnation of a replica: the lease elector and the settlement
// job, wired together over one Env. A service embeds exactly this.

#include <memory>

#include "core/env.h"
#include "core/lease_elector.h"
#include "core/metrics.h"
#include "core/settlement_job.h"

namespace leasesim::core {

class LeaseNode {
 public:
  LeaseNode(Env& env, ElectorConfig elector, SettlementConfig settlement);

  // Spawns the elector and job tasks on the environment.
  void Start();

  LeaseElector& elector() { return elector_; }
  const LeaseMetrics& metrics() const { return metrics_; }

 private:
  Env& env_;
  LeaseMetrics metrics_;
  LeaseElector elector_;
  SettlementJob job_;
};

}  // namespace leasesim::core
