#pragma once
// One process incarnation of a replica: the lease elector and the settlement
// job, wired together over one Env through the leader-callback API (the job
// is a LeaderElection's callbacks). A service embeds exactly this, or a
// LeaderElection with its own job.

#include <string>

#include "core/env.h"
#include "core/leader_election.h"
#include "core/lease_elector.h"
#include "core/metrics.h"
#include "core/protocol.h"
#include "core/settlement_job.h"

namespace leasesim::core {

// A replica as a protocol node: the elector and the settlement job on one Env.
class LeaseNode final : public ProtocolNode {
 public:
  // `rules` must outlive the node; a service keeps the default, the correct
  // protocol (test tooling may pass another; see core/protocol_rules.h).
  LeaseNode(Env& env, ElectorConfig elector, SettlementConfig settlement,
            const ProtocolRules& rules = CorrectRules());

  // Spawns the elector and job tasks on the environment.
  void Start() override;

  // Graceful shutdown: side effects stop, the lease is released (to
  // `preferred_successor`, a node name, if given). Blocks the calling task
  // for at most one ledger request, the release's store requests, and
  // until the elector task stops (one of its sleeps).
  void Shutdown(const std::string& preferred_successor) override;

  LeaseElector& elector() { return election_.elector(); }
  const LeaseMetrics& metrics() const { return metrics_; }
  // Renewal durations and the holder seen (read under the Env's core lock).
  const LeadershipTap& tap() const { return election_.tap(); }
  const LeaseMetrics* exposed_metrics() const override { return &metrics_; }
  const LeadershipTap* exposed_tap() const override { return &election_.tap(); }

 private:
  LeaseMetrics metrics_;
  SettlementJob job_;
  LeaderElection election_;
};

}  // namespace leasesim::core
