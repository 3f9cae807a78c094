#pragma once
// The scenario runner's side of regions and the replicated store: places
// hosts in regions, builds the store's replicas, resolves "store_leader",
// and adds the store's figures. The replica and region faults are in the
// fault catalogue (runner/faults_replicated.cc).

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/replicated_store.h"
#include "checker/history.h"
#include "runner/scenario.h"
#include "sim/network.h"
#include "sim/world.h"

namespace leasesim::runner {

// One run's regions and replicated store, made only when the scenario has them.
class ReplicatedRun {
 public:
  // Null when the scenario has neither regions nor a replicated store.
  // node_hosts[i] is node i+1's host; ledger and store are the service hosts.
  static std::unique_ptr<ReplicatedRun> Make(const Scenario& scenario, sim::World& world, sim::Network& network,
                                             const std::vector<sim::HostId>& node_hosts, sim::HostId store_host,
                                             sim::HostId ledger_host, sim::Nanos wall_start);

  ReplicatedRun(const Scenario& scenario, sim::World& world, sim::Network& network,
                const std::vector<sim::HostId>& node_hosts, sim::HostId store_host, sim::HostId ledger_host,
                sim::Nanos wall_start);

  // The store the nodes call, or null (regions only).
  backends::ReplicatedStore* store() { return store_.get(); }
  void Start();

  // A replica reference (a number, kStoreLeaderReplica, kStoreFollowerReplica)
  // resolved now; nullopt when the role names nobody.
  std::optional<int> Resolve(int replica) const;
  sim::HostId HostOfReplica(int replica) const { return store_->host(replica); }

  void AddFigures(std::map<std::string, std::int64_t>& figures) const;

 private:
  std::unique_ptr<backends::ReplicatedStore> store_;
};

}  // namespace leasesim::runner
