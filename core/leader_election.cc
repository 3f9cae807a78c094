#include "core/leader_election.h"

#include <utility>

namespace leasesim::core {

LeaderElection::LeaderElection(Env& env, ElectorConfig elector, LeaseMetrics& metrics, LeaderCallbacks callbacks,
                               RunnerConfig runner, CallbackGate* gate, const ProtocolRules& rules)
    : env_(env),
      tap_(env),
      tapped_(env, tap_),
      elector_(tapped_, std::move(elector), metrics, rules),
      runner_(env, elector_, tap_, std::move(callbacks), std::move(runner), gate) {}

void LeaderElection::Start() {
  env_.Spawn("elector", [this] { elector_.Run(); });
  env_.Spawn(runner_.config().task_name, [this] { runner_.Run(); });
}

void LeaderElection::Shutdown(const std::string& preferred_successor) {
  // Side effects stop first (the release demotes at once), an effect
  // already past its lease check finishes, and only then is the record
  // released.
  elector_.Release(preferred_successor, [this] { runner_.WaitUntilQuiet(); });
  // A take in flight when the release came must not outlive the process.
  elector_.WaitUntilStopped();
}

}  // namespace leasesim::core
