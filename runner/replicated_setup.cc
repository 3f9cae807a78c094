#include "runner/replicated_setup.h"

#include <utility>

#include "runner/replicated_parse.h"

namespace leasesim::runner {

std::unique_ptr<ReplicatedRun> ReplicatedRun::Make(const Scenario& scenario, sim::World& world,
                                                   sim::Network& network, backends::SimObserver& observer,
                                                   const std::vector<sim::HostId>& node_hosts,
                                                   sim::HostId store_host, sim::HostId ledger_host,
                                                   sim::Nanos wall_start) {
  if (!scenario.replicated.enabled && !scenario.replicated.regions.enabled()) return nullptr;
  return std::make_unique<ReplicatedRun>(scenario, world, network, observer, node_hosts, store_host, ledger_host,
                                         wall_start);
}

ReplicatedRun::ReplicatedRun(const Scenario& scenario, sim::World& world, sim::Network& network,
                             backends::SimObserver& observer, const std::vector<sim::HostId>& node_hosts,
                             sim::HostId store_host, sim::HostId ledger_host, sim::Nanos wall_start)
    : world_(world), network_(network), scenario_(scenario) {
  const RegionsSpec& regions = scenario.replicated.regions;
  if (regions.enabled()) {
    network_.SetRegions(static_cast<int>(regions.names.size()), regions.matrix);
    for (std::size_t i = 0; i < node_hosts.size() && i < regions.node_region.size(); ++i) {
      if (regions.node_region[i] >= 0) network_.PlaceHost(node_hosts[i], regions.node_region[i]);
    }
    if (regions.ledger_region >= 0) network_.PlaceHost(ledger_host, regions.ledger_region);
    if (regions.store_region >= 0) network_.PlaceHost(store_host, regions.store_region);
  }
  if (scenario.replicated.enabled) {
    backends::ReplicatedStoreConfig config = scenario.replicated.store;
    config.service = scenario.store.service;
    store_ = std::make_unique<backends::ReplicatedStore>(world, network, std::move(config), observer, wall_start);
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

bool ReplicatedRun::Inject(const Fault& fault, checker::FaultRecord& record) {
  // Store and region faults stay within the lease protocol's assumptions: it
  // must tolerate an unavailable or slow store.
  record.within_assumptions = true;
  if (fault.kind == FaultKind::kIsolateRegion) {
    const int region = fault.region;
    const std::vector<sim::HostId> inside = network_.HostsInRegion(region);
    std::vector<std::pair<sim::HostId, sim::HostId>> links;
    for (sim::HostId in : inside) {
      for (sim::HostId other = 0; other < world_.host_count(); ++other) {
        if (network_.region(other) == region) continue;
        links.emplace_back(in, other);
        links.emplace_back(other, in);
      }
    }
    for (std::size_t node = 0; node < scenario_.replicated.regions.node_region.size(); ++node) {
      if (scenario_.replicated.regions.node_region[node] == region) record.nodes.push_back(static_cast<int>(node) + 1);
    }
    record.description = "region " + scenario_.replicated.regions.names[static_cast<std::size_t>(region)] + " isolated";
    for (const auto& [from, to] : links) network_.SetBlocked(from, to, true);
    world_.At(world_.now() + fault.duration, [this, links] {
      for (const auto& [from, to] : links) network_.SetBlocked(from, to, false);
    });
    return true;
  }
  const std::optional<int> replica = Resolve(fault.replica);
  if (!replica) {
    record.end_ns = record.start_ns;
    record.description = "skipped: no replica was " + ReplicaRefName(fault.replica) + " when the fault fired";
    return false;
  }
  const sim::HostId host = store_->host(*replica);
  const std::string name = "replica r" + std::to_string(*replica) +
                           (store_->Leader() == replica ? " (store leader, term " + std::to_string(store_->term(*replica)) + ")" : "");
  switch (fault.kind) {
    case FaultKind::kReplicaCrash:
      record.end_ns = record.start_ns;
      record.description = name + " crashed" + (fault.at_point.empty() ? "" : " at " + fault.at_point);
      world_.Crash(host);
      break;
    case FaultKind::kReplicaRestart:
      record.end_ns = record.start_ns;
      record.description = name + " restarted";
      world_.Restart(host);
      break;
    case FaultKind::kReplicaPause:
      record.description = name + " paused";
      world_.Pause(host);
      world_.At(world_.now() + fault.duration, [this, host] { world_.Unpause(host); });
      break;
    default:
      record.description = "not a replicated-store fault";
      return false;
  }
  return true;
}

void ReplicatedRun::AddFigures(std::map<std::string, std::int64_t>& figures) const {
  if (store_) store_->AddFigures(figures);
}

}  // namespace leasesim::runner
