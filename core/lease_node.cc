#include "core/lease_node.h"

#include <utility>

namespace leasesim::core {

LeaseNode::LeaseNode(Env& env, ElectorConfig elector, SettlementConfig settlement)
    : env_(env), elector_(env, std::move(elector), metrics_), job_(env, std::move(settlement), elector_, metrics_) {}

void LeaseNode::Start() {
  env_.Spawn("elector", [this] { elector_.Run(); });
  env_.Spawn("settlement", [this] { job_.Run(); });
}

}  // namespace leasesim::core
