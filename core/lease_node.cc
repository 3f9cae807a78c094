#include "core/lease_node.h"

#include <utility>

namespace leasesim::core {

LeaseNode::LeaseNode(Env& env, ElectorConfig elector, SettlementConfig settlement, const ProtocolRules& rules)
    : job_(env, std::move(settlement), metrics_, rules),
      election_(env, std::move(elector), metrics_, job_.Callbacks(), job_.RunnerFor(), nullptr, rules) {}

void LeaseNode::Start() { election_.Start(); }

void LeaseNode::Shutdown(const std::string& preferred_successor) { election_.Shutdown(preferred_successor); }

}  // namespace leasesim::core
