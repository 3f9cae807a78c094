#pragma once
// One process incarnation of a replica: the lease elector and the settlement
// job, wired together over one Env. A service embeds exactly this.

#include <memory>
#include <string>

#include "core/env.h"
#include "core/lease_elector.h"
#include "core/metrics.h"
#include "core/settlement_job.h"

namespace leasesim::core {

class LeaseNode {
 public:
  // `rules` must outlive the node; a service keeps the default, the correct
  // protocol (test tooling may pass another; see core/protocol_rules.h).
  LeaseNode(Env& env, ElectorConfig elector, SettlementConfig settlement,
            const ProtocolRules& rules = CorrectRules());

  // Spawns the elector and job tasks on the environment.
  void Start();

  // Graceful shutdown: side effects stop, the lease is released (to
  // `preferred_successor`, a node name, if given). Blocks the calling task
  // for at most one ledger request, the release's store requests, and
  // until the elector task stops (one of its sleeps).
  void Shutdown(const std::string& preferred_successor);

  LeaseElector& elector() { return elector_; }
  const LeaseMetrics& metrics() const { return metrics_; }

 private:
  Env& env_;
  LeaseMetrics metrics_;
  LeaseElector elector_;
  SettlementJob job_;
};

}  // namespace leasesim::core
