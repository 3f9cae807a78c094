// Node-process faults of the catalogue: crash, restart, pause, suspend,
// shutdown — how each strikes and heals, and how the generator draws it.

#include "backends/sim_node.h"
#include "base/units.h"
#include "core/fault_points.h"
#include "runner/fault_kinds.h"

namespace leasesim::runner::fault_kinds {
namespace {

using base::Millis;
using base::Seconds;

}  // namespace

bool WithinPauseBudget(const Fault& fault, const core::TimingConfig& timing) {
  return fault.duration <= timing.pause_budget;
}

bool HasPauseBudgetOrMayExceed(const Scenario& scenario, const NemesisConfig& config) {
  return !config.within_assumptions || scenario.timing.pause_budget >= Millis(1);
}

bool HasTwoNodes(const Scenario& scenario, const NemesisConfig&) { return scenario.nodes >= 2; }

Heal StrikeCrash(Injector& injector, const Fault&, int node, checker::FaultRecord& record) {
  record.end_ns = record.start_ns;
  auto crash = [&injector, node] {
    injector.recorder().NodeCrashed(node);
    injector.world().Crash(injector.HostOf(node));
    injector.NoteIfClusterDown();
  };
  if (injector.world().in_fiber()) {
    injector.world().At(injector.world().now(), crash);  // a fiber cannot unwind itself; it yields first
  } else {
    crash();
  }
  return {};
}

Heal StrikeRestart(Injector& injector, const Fault&, int node, checker::FaultRecord& record) {
  injector.world().Restart(injector.HostOf(node));
  record.end_ns = record.start_ns;
  injector.NoteRestarted(node);
  return {};
}

Heal StrikePause(Injector& injector, const Fault&, int node, checker::FaultRecord&) {
  const sim::HostId host = injector.HostOf(node);
  sim::World& world = injector.world();
  world.Pause(host);
  return [&world, host] { world.Unpause(host); };
}

Heal StrikeSuspend(Injector& injector, const Fault&, int node, checker::FaultRecord&) {
  const sim::HostId host = injector.HostOf(node);
  sim::World& world = injector.world();
  world.Suspend(host);
  return [&world, host] { world.Unsuspend(host); };
}

Heal StrikeShutdown(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record) {
  sim::World& world = injector.world();
  const sim::HostId host = injector.HostOf(node);
  auto* process = dynamic_cast<backends::SimNodeProcess*>(world.process(host));
  record.end_ns = record.start_ns;
  if (process == nullptr || !world.running(host)) {
    record.description = "skipped: the node was not running";
    return {};
  }
  const std::string successor = fault.successor == 0 ? "" : "n" + std::to_string(fault.successor);
  record.description = successor.empty() ? "graceful handoff" : "graceful handoff to " + successor;
  const std::uint64_t incarnation = world.incarnation(host);
  process->BeginShutdown(successor, [&injector, host, node, incarnation] {
    // The process exits once its lease is released.
    sim::World& w = injector.world();
    w.At(w.now(), [&injector, host, node, incarnation] {
      if (injector.world().incarnation(host) != incarnation) return;
      injector.recorder().NodeCrashed(node);
      injector.world().Crash(host);
      injector.NoteIfClusterDown();
    });
  });
  return {};
}

void DrawCrash(FaultDrawContext& context, Fault fault) {
  fault.node = context.Target();
  context.Aim(fault);
  const Nanos at = fault.at;
  context.Push(std::move(fault));
  context.AddRestarts(at + context.draw.Millis(Millis(1), context.timing.lease_duration * 3 / 2));
}

void DrawPauseOrSuspend(FaultDrawContext& context, Fault fault) {
  fault.node = context.Target();
  const bool beyond = context.Beyond();
  const bool edge = !beyond && context.Edge();
  fault.duration = context.PauseLength(beyond, edge);
  if (edge) {
    context.AimAtEdge(fault);
    context.MaybeRunDownLease(fault);
  } else {
    context.Aim(fault);
  }
  context.Push(std::move(fault));
}

void DrawShutdown(FaultDrawContext& context, Fault fault) {
  // A graceful handoff, sometimes with the leader stopping the world in the
  // middle of its release; everyone restarts afterwards.
  const bool beyond = context.Beyond();
  if (context.draw.Percent(50) && (beyond || context.timing.pause_budget >= Millis(1))) {
    Fault pause;
    pause.at = fault.at;
    pause.kind = FaultKind::kPause;
    pause.node = NodeRef{.leader = true};
    pause.duration = context.PauseLength(beyond);
    pause.at_point = std::string(core::fault_points::kDuringRelease);
    context.Push(std::move(pause));
  }
  fault.node = NodeRef{.leader = true};
  fault.successor = context.draw.Percent(50) ? static_cast<int>(context.draw.Range(1, context.scenario.nodes)) : 0;
  context.AimIfTimed(fault);
  const Nanos at = fault.at;
  context.Push(std::move(fault));
  context.AddRestarts(at + context.draw.Millis(Seconds(1), 4 * context.timing.lease_duration));
}

}  // namespace leasesim::runner::fault_kinds
