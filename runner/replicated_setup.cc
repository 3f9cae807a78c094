#include "runner/replicated_setup.h"

#include <utility>


namespace leasesim::runner {

std::unique_ptr<ReplicatedRun> ReplicatedRun::Make(const Scenario& scenario, sim::World& world,
                                                   sim::Network& network,
                                                   const std::vector<sim::HostId>& node_hosts,
                                                   sim::HostId store_host, sim::HostId ledger_host,
                                                   sim::Nanos wall_start) {
  if (!scenario.replicated.enabled && !scenario.replicated.regions.enabled()) return nullptr;
  return std::make_unique<ReplicatedRun>(scenario, world, network, node_hosts, store_host, ledger_host,
                                         wall_start);
}

ReplicatedRun::ReplicatedRun(const Scenario& scenario, sim::World& world, sim::Network& network,
                             const std::vector<sim::HostId>& node_hosts,
                             sim::HostId store_host, sim::HostId ledger_host, sim::Nanos wall_start) {
  const RegionsSpec& regions = scenario.replicated.regions;
  if (regions.enabled()) {
    network.SetRegions(static_cast<int>(regions.names.size()), regions.matrix);
    for (std::size_t i = 0; i < node_hosts.size() && i < regions.node_region.size(); ++i) {
      if (regions.node_region[i] >= 0) network.PlaceHost(node_hosts[i], regions.node_region[i]);
    }
    if (regions.ledger_region >= 0) network.PlaceHost(ledger_host, regions.ledger_region);
    if (regions.store_region >= 0) network.PlaceHost(store_host, regions.store_region);
  }
  if (scenario.replicated.enabled) {
    backends::ReplicatedStoreConfig config = scenario.replicated.store;
    config.service = scenario.store.service;
    store_ = std::make_unique<backends::ReplicatedStore>(world, network, std::move(config), wall_start);
  }
}

void ReplicatedRun::Start() {
  if (store_) store_->Start();
}

std::optional<int> ReplicatedRun::Resolve(int replica) const {
  if (!store_) return std::nullopt;
  if (replica == kStoreLeaderReplica) return store_->Leader();
  if (replica == kStoreFollowerReplica) return store_->Follower();
  if (replica < 1 || replica > store_->replicas()) return std::nullopt;
  return replica;
}

void ReplicatedRun::AddFigures(std::map<std::string, std::int64_t>& figures) const {
  if (store_) store_->AddFigures(figures);
}

}  // namespace leasesim::runner
