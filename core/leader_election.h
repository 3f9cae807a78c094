#pragma once
// What a service embeds to run its own job under the lease: the elector
// campaigning and renewing on its own task, and a LeaderRunner calling the
// service's callbacks on another (core/leader_callbacks.h states when each
// may run). LeaseNode is this with the settlement job as the callbacks.

#include <string>

#include "core/env.h"
#include "core/leader_callbacks.h"
#include "core/leadership_tap.h"
#include "core/lease_elector.h"
#include "core/metrics.h"
#include "core/protocol_rules.h"

namespace leasesim::core {

// The elector and a service's leader callbacks, each on its own task of one Env.
class LeaderElection {
 public:
  // `metrics`, `gate` (may be null: callbacks run inline, as in simulation
  // or for core code) and `rules` must outlive the election; services keep
  // the default rules, the correct protocol.
  LeaderElection(Env& env, ElectorConfig elector, LeaseMetrics& metrics, LeaderCallbacks callbacks,
                 RunnerConfig runner, CallbackGate* gate = nullptr, const ProtocolRules& rules = CorrectRules());
  LeaderElection(const LeaderElection&) = delete;
  LeaderElection& operator=(const LeaderElection&) = delete;

  // Spawns the elector's task ("elector") and the runner's (config's name).
  void Start();

  // Graceful shutdown: the lease is demoted at once (the job's next check
  // fails), a side effect marked in flight may finish (bounded by the
  // runner's quiesce_timeout), then the record is released (to
  // `preferred_successor`, a node name, if given) and the elector stops.
  // Blocks the calling task for that long plus the release's store calls.
  void Shutdown(const std::string& preferred_successor);

  LeaseElector& elector() { return elector_; }
  const LeadershipTap& tap() const { return tap_; }

 private:
  Env& env_;
  LeadershipTap tap_;
  TappedEnv tapped_;
  LeaseElector elector_;
  LeaderRunner runner_;
};

}  // namespace leasesim::core
