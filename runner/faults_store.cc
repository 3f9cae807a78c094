// Faults of the single store server in the catalogue: store_outage and
// store_latency — how each strikes and heals, and how the generator draws it.
// They strike the lease store's KV server on the "store" host.

#include "base/units.h"
#include "runner/fault_kinds.h"

namespace leasesim::runner::fault_kinds {
namespace {

using base::Millis;
using base::Seconds;

}  // namespace

bool HasSingleStore(const Scenario& scenario, const NemesisConfig&) { return !scenario.replicated.enabled; }

Heal StrikeStoreOutage(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  backends::SimKvServer& store = injector.parts().store();
  store.SetOutage(fault.outage);
  record.description = fault.outage == backends::StoreOutage::kUnavailable ? "requests rejected"
                                                                          : "requests never answered";
  return [&store] { store.SetOutage(backends::StoreOutage::kNone); };
}

Heal StrikeStoreLatency(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  backends::SimKvServer& store = injector.parts().store();
  store.SetExtraLatency(fault.extra);
  record.description = "+" + std::to_string(fault.extra / sim::kNanosPerMilli) + " ms per request";
  return [&store] { store.SetExtraLatency(0); };
}

void DrawStoreOutage(FaultDrawContext& context, Fault fault) {
  fault.duration = context.draw.Millis(Seconds(1), context.OutageMax());
  fault.outage = context.draw.Percent(50) ? backends::StoreOutage::kUnavailable : backends::StoreOutage::kBlackhole;
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

void DrawStoreLatency(FaultDrawContext& context, Fault fault) {
  fault.duration = context.draw.Millis(Seconds(1), context.OutageMax());
  fault.extra = context.draw.Millis(Millis(10), 2 * context.timing.request_timeout);
  // At the edge: every call answered just inside the request timeout (the
  // store's own service time and the network come on top, so some answers
  // arrive just after it), the renewals' validity counted from their sends.
  if (context.Edge()) fault.extra = context.JustUnder(context.timing.request_timeout);
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

}  // namespace leasesim::runner::fault_kinds
