// Faults of the replicated store and of regions in the catalogue:
// replica_crash, replica_restart, replica_pause, isolate_region — how each
// strikes and heals, and how the generator draws it. Store and region
// faults stay within the lease protocol's assumptions: it must tolerate an
// unavailable or slow store.

#include <utility>
#include <vector>

#include "base/units.h"
#include "runner/fault_kinds.h"

namespace leasesim::runner::fault_kinds {
namespace {

using base::Millis;
using base::Seconds;

// The replica the fault names, resolved now, and its words for the record;
// nullopt (the record says why) when the role names nobody.
std::optional<int> ResolveReplica(Injector& injector, const Fault& fault, checker::FaultRecord& record,
                                  std::string& name) {
  ReplicatedRun* replicated = injector.parts().replicated();
  const std::optional<int> replica = replicated ? replicated->Resolve(fault.replica) : std::nullopt;
  if (!replica) {
    record.end_ns = record.start_ns;
    record.description = "skipped: no replica was " + ReplicaRefName(fault.replica) + " when the fault fired";
    return std::nullopt;
  }
  backends::ReplicatedStore& store = *replicated->store();
  name = "replica r" + std::to_string(*replica) +
         (store.Leader() == replica ? " (store leader, term " + std::to_string(store.term(*replica)) + ")" : "");
  return replica;
}

// A replica's host crashed or restarted now (`act`), the record saying so
// (`done`); an instant fault: nothing to heal.
Heal StrikeReplicaHost(Injector& injector, const Fault& fault, checker::FaultRecord& record, const char* done,
                       void (sim::World::*act)(sim::HostId)) {
  std::string name;
  const std::optional<int> replica = ResolveReplica(injector, fault, record, name);
  if (!replica) return {};
  record.end_ns = record.start_ns;
  record.description = name + " " + done;
  (injector.world().*act)(injector.parts().replicated()->HostOfReplica(*replica));
  injector.NoteReplicasChanged();
  return {};
}

int DrawReplica(FaultDrawContext& context) {
  if (context.draw.Percent(50)) return kStoreLeaderReplica;
  return static_cast<int>(context.draw.Range(1, context.scenario.replicated.store.replicas));
}

}  // namespace

bool HasReplicatedStore(const Scenario& scenario, const NemesisConfig&) { return scenario.replicated.enabled; }

bool HasRegions(const Scenario& scenario, const NemesisConfig&) { return scenario.replicated.regions.enabled(); }

Heal StrikeReplicaCrash(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  return StrikeReplicaHost(injector, fault, record, "crashed", &sim::World::Crash);
}

Heal StrikeReplicaRestart(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  return StrikeReplicaHost(injector, fault, record, "restarted", &sim::World::Restart);
}

Heal StrikeReplicaPause(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  std::string name;
  const std::optional<int> replica = ResolveReplica(injector, fault, record, name);
  if (!replica) return {};
  record.description = name + " paused";
  sim::World& world = injector.world();
  const sim::HostId host = injector.parts().replicated()->HostOfReplica(*replica);
  world.Pause(host);
  return [&world, host] { world.Unpause(host); };
}

Heal StrikeIsolateRegion(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  const RegionsSpec& regions = injector.scenario().replicated.regions;
  sim::Network& network = injector.network();
  const int region = fault.region;
  std::vector<std::pair<sim::HostId, sim::HostId>> links;
  for (sim::HostId in : network.HostsInRegion(region)) {
    for (sim::HostId other = 0; other < injector.world().host_count(); ++other) {
      if (network.region(other) == region) continue;
      links.emplace_back(in, other);
      links.emplace_back(other, in);
    }
  }
  for (std::size_t node = 0; node < regions.node_region.size(); ++node) {
    if (regions.node_region[node] == region) record.nodes.push_back(static_cast<int>(node) + 1);
  }
  record.description = "region " + regions.names[static_cast<std::size_t>(region)] + " isolated";
  for (const auto& [from, to] : links) network.SetBlocked(from, to, true);
  return [&network, links] {
    for (const auto& [from, to] : links) network.SetBlocked(from, to, false);
  };
}

void DrawReplicaCrash(FaultDrawContext& context, Fault fault) {
  fault.replica = DrawReplica(context);
  context.AimIfTimed(fault);
  const Nanos at = fault.at;
  context.Push(std::move(fault));
  context.AddReplicaRestarts(at + context.draw.Millis(Millis(1), context.timing.lease_duration * 3 / 2));
}

void DrawReplicaPause(FaultDrawContext& context, Fault fault) {
  fault.replica = DrawReplica(context);
  fault.duration = context.draw.Millis(Seconds(1), context.OutageMax());
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

void DrawIsolateRegion(FaultDrawContext& context, Fault fault) {
  const auto regions = static_cast<std::int64_t>(context.scenario.replicated.regions.names.size());
  fault.region = static_cast<int>(context.draw.Range(0, regions - 1));
  fault.duration = context.draw.Millis(Seconds(1), context.OutageMax());
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

}  // namespace leasesim::runner::fault_kinds
