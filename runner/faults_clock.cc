// Clock faults of the catalogue: clock_drift and clock_step — how each
// strikes, whether it stays within the drift bound, and how the generator
// draws it.

#include <cstdlib>

#include "base/units.h"
#include "runner/fault_kinds.h"

namespace leasesim::runner::fault_kinds {
namespace {

using base::Seconds;

}  // namespace

bool WithinDriftBound(const Fault& fault, const core::TimingConfig& timing) {
  return std::abs(fault.drift_ppm) <= timing.drift_bound_ppm;
}

Heal StrikeClockDrift(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record) {
  injector.world().SetDriftPpm(injector.HostOf(node), fault.drift_ppm);
  // Within the bound a new rate is a clock's normal state: over at once
  // (the liveness checks judge from the last fault's end). Beyond it, it
  // lasts the rest of the run.
  const bool within = WithinDriftBound(fault, injector.scenario().timing);
  record.end_ns = within ? record.start_ns : injector.scenario().duration;
  record.description = "drift " + std::to_string(fault.drift_ppm) + " ppm";
  return {};
}

Heal StrikeClockStep(Injector& injector, const Fault& fault, int node, checker::FaultRecord& record) {
  // A wall clock left behind true time holds the node's settlement schedule
  // back for as long as it stays behind (for the rest of the run, unless a
  // later step puts it right): the fault lasts that long.
  const Nanos offset = injector.StepWallClock(node, fault.step);
  record.end_ns = offset < 0 ? injector.scenario().duration : record.start_ns;
  record.description = "wall clock stepped by " + std::to_string(fault.step / sim::kNanosPerMilli) + " ms";
  return {};
}

std::int64_t DrawDriftPpm(FaultDrawContext& context, bool& beyond) {
  const std::int64_t bound = context.timing.drift_bound_ppm;
  beyond = context.Beyond();
  const std::int64_t magnitude = beyond ? BeyondDriftPpm(context.draw, bound) : WithinDriftPpm(context.draw, bound);
  return context.draw.Percent(50) ? magnitude : -magnitude;
}

Nanos DrawWallStep(FaultDrawContext& context) {
  const Nanos step = context.draw.Millis(Seconds(1), 6 * context.timing.lease_duration);
  return context.draw.Percent(50) ? step : -step;
}

void DrawClockDrift(FaultDrawContext& context, Fault fault) {
  fault.node = context.Target();
  bool beyond = false;
  fault.drift_ppm = DrawDriftPpm(context, beyond);
  if (!beyond && context.Edge()) fault.drift_ppm = EdgeDriftPpm(context.draw, fault.node, context.timing.drift_bound_ppm);
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

void DrawClockStep(FaultDrawContext& context, Fault fault) {
  fault.node = context.Target();
  fault.step = DrawWallStep(context);
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

}  // namespace leasesim::runner::fault_kinds
