// Faults of the KV store hosts (the scenario's "kv") in the catalogue:
// kv_pause, kv_crash, kv_clock_drift, kv_clock_step, kv_outage, kv_latency
// (kv_isolate is with the network's, faults_network.cc) — how each strikes
// and heals, and how the generator draws it. A store host's clocks judge
// the TTLs it grants (backends/sim_kv_server.h), so its pauses, drift and
// steps act on every lease it holds.

#include <string>
#include <utility>

#include "base/units.h"
#include "runner/fault_kinds.h"

namespace leasesim::runner::fault_kinds {
namespace {

using base::Seconds;
using base::kNanosPerMilli;

sim::HostId KvHost(Injector& injector, const Fault& fault) { return injector.parts().kv_host(fault.kv - 1); }

std::string KvName(Injector& injector, const Fault& fault) {
  return injector.world().host_name(KvHost(injector, fault));
}

// Which store: one of the scenario's, uniformly.
void DrawKvHost(FaultDrawContext& context, Fault& fault) {
  fault.kv = static_cast<int>(context.draw.Range(1, context.scenario.kv.hosts()));
}

}  // namespace

// A KV store on the replicated store has no host of its own: the replica
// faults strike it.
bool HasKvStores(const Scenario& scenario, const NemesisConfig&) { return scenario.kv.hosts() > 0; }

Heal StrikeKvPause(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  sim::World& world = injector.world();
  const sim::HostId host = KvHost(injector, fault);
  record.description = KvName(injector, fault) + " paused";
  world.Pause(host);
  return [&world, host] { world.Unpause(host); };
}

// What a crash loses is what etcd loses: nothing acknowledged (its keys and
// leases are in its backend on disk, server/lease/lessor.go recovers the
// leases at start), but requests in flight, waiting watches, and the time
// each lease had left: a restarted store restarts every TTL (the lessor's
// Promote, when the member becomes leader again). Redis without persistence
// would lose every key; that store is not modelled (docs/STORE_MODEL.md).
Heal StrikeKvCrash(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  sim::World& world = injector.world();
  const sim::HostId host = KvHost(injector, fault);
  record.description = KvName(injector, fault) + " crashed";
  world.Crash(host);
  return [&world, host] { world.Restart(host); };
}

Heal StrikeKvClockDrift(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  injector.world().SetDriftPpm(KvHost(injector, fault), fault.drift_ppm);
  // As a node's drift (faults_clock.cc): within the bound it is the clock's
  // normal state, over at once; beyond it, for the rest of the run.
  record.end_ns = WithinDriftBound(fault, injector.scenario().timing) ? record.start_ns : injector.scenario().duration;
  record.description = KvName(injector, fault) + " drift " + std::to_string(fault.drift_ppm) + " ppm";
  return {};
}

Heal StrikeKvClockStep(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  injector.world().StepWall(KvHost(injector, fault), fault.step);
  record.end_ns = record.start_ns;
  record.description =
      KvName(injector, fault) + " wall clock stepped by " + std::to_string(fault.step / kNanosPerMilli) + " ms";
  return {};
}

Heal StrikeKvOutage(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  backends::SimKvServer& server = injector.parts().kv_server(fault.kv - 1);
  server.SetOutage(fault.outage);
  record.description = KvName(injector, fault) + (fault.outage == backends::StoreOutage::kUnavailable
                                                      ? ": requests rejected"
                                                      : ": requests never answered");
  return [&server] { server.SetOutage(backends::StoreOutage::kNone); };
}

Heal StrikeKvLatency(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  backends::SimKvServer& server = injector.parts().kv_server(fault.kv - 1);
  server.SetExtraLatency(fault.extra);
  record.description = KvName(injector, fault) + ": +" + std::to_string(fault.extra / kNanosPerMilli) + " ms per request";
  return [&server] { server.SetExtraLatency(0); };
}

void DrawKvStop(FaultDrawContext& context, Fault fault) {
  DrawKvHost(context, fault);
  fault.duration = context.draw.Millis(Seconds(1), context.OutageMax());
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

void DrawKvClockDrift(FaultDrawContext& context, Fault fault) {
  DrawKvHost(context, fault);
  bool beyond = false;
  fault.drift_ppm = DrawDriftPpm(context, beyond);
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

void DrawKvClockStep(FaultDrawContext& context, Fault fault) {
  DrawKvHost(context, fault);
  fault.step = DrawWallStep(context);
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

// As the single store's outage and latency, on the drawn store.
void DrawKvOutage(FaultDrawContext& context, Fault fault) {
  DrawKvHost(context, fault);
  DrawStoreOutage(context, std::move(fault));
}

void DrawKvLatency(FaultDrawContext& context, Fault fault) {
  DrawKvHost(context, fault);
  DrawStoreLatency(context, std::move(fault));
}

}  // namespace leasesim::runner::fault_kinds
