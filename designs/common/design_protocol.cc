#include "designs/common/design_protocol.h"

#include <cassert>

#include "core/events.h"

namespace leasesim::designs {

void BeliefReport::Note(bool leading, std::int64_t term, const std::string& reason, bool released) {
  // Still leading, under another token (the lease lost and taken back
  // between two answers): the belief under the old one ended.
  if (leading && reported_leading_ && term != reported_term_) Note(false, reported_term_, "token changed", false);
  if (leading == reported_leading_) return;
  reported_leading_ = leading;
  core::LeaseEvent event{.kind = leading ? core::EventKind::kAcquired : core::EventKind::kDemoted,
                         .holder = identity_,
                         .term = leading ? term : reported_term_};
  if (!leading && released) event.kind = core::EventKind::kReleased;
  event.monotonic_ns = env_.MonotonicNow();
  event.boot_ns = env_.BootNow();
  if (!leading) event.reason = reason;
  reported_term_ = event.term;
  env_.events().Emit(event);
}

void RegisterTokenModes(core::ProtocolRegistry& registry, const std::string& design, const std::string& summary,
                        const core::ProtocolBuilder& build, core::KvStoreNeeds kv_stores) {
  for (const bool fenced : {false, true}) {
    const bool added = registry.Add(core::Protocol{
        .name = fenced ? design + "-fenced" : design,
        .summary = summary + (fenced ? "; the ledger fences by its token" : " (no fencing token)"),
        .build = build,
        .ledger_checks_fence = fenced,
        .kv_stores = kv_stores,
        .design = design,
    });
    assert(added && "a design registered twice");
    (void)added;
  }
}

}  // namespace leasesim::designs
