#include "core/lease_node.h"

#include <utility>

namespace leasesim::core {

LeaseNode::LeaseNode(Env& env, ElectorConfig elector, SettlementConfig settlement, const ProtocolRules& rules)
    : env_(env),
      elector_(env, std::move(elector), metrics_, rules),
      job_(env, std::move(settlement), elector_, metrics_, rules) {}

void LeaseNode::Start() {
  env_.Spawn("elector", [this] { elector_.Run(); });
  env_.Spawn("settlement", [this] { job_.Run(); });
}

void LeaseNode::Shutdown(const std::string& preferred_successor) {
  // Side effects stop first (the release demotes at once), a batch already
  // past its lease check finishes, and only then is the record released.
  elector_.Release(preferred_successor, [this] { job_.WaitUntilQuiet(); });
  // A take in flight when the release came must not outlive the process.
  elector_.WaitUntilStopped();
}

}  // namespace leasesim::core
