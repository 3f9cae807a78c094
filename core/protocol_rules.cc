#include "core/protocol_rules.h"

namespace leasesim::core {

Nanos ProtocolRules::ValidUntilAfterRenewal(const RenewalOutcome& outcome) const {
  if (outcome.status != StoreStatus::kOk) return outcome.valid_until;
  return outcome.sent + outcome.timing.renew_deadline;
}

bool ProtocolRules::StartsNewObservation(const Observation& watched, const VersionedRecord& seen) const {
  return seen.version != watched.version;
}

bool ProtocolRules::HolderExpired(const ExpiryQuestion& question) const {
  const Nanos unchanged_for = question.monotonic_now - question.watched.since;
  return unchanged_for >= TakeoverWait(question.seen.record.duration_ns, question.own_timing.drift_bound_ppm);
}

std::int64_t ProtocolRules::TakeoverTerm(std::int64_t held_term) const { return held_term + 1; }

StoreResult ProtocolRules::WriteRecord(StoreClient& store, std::string_view key, RecordWrite purpose,
                                       const VersionedRecord& observed, const LeaseRecord& record,
                                       Nanos timeout) const {
  (void)purpose;  // every purpose is guarded the same way
  if (!observed.found) return store.Create(key, record, timeout);
  return store.CompareAndSet(key, observed.version, record, timeout);
}

bool ProtocolRules::ChecksLease(LeaseCheck check, int item) const {
  (void)check;
  (void)item;
  return true;
}

std::string ProtocolRules::IdempotencyKey(std::int64_t window) const {
  return "settlement/window-" + std::to_string(window);
}

const ProtocolRules& CorrectRules() {
  static const ProtocolRules rules;
  return rules;
}

}  // namespace leasesim::core
