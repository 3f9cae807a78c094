#pragma once
// The decisions of the lease protocol that are easiest to get wrong, named
// as one seam: when a renewal's validity starts, how a candidate observes a
// holder and judges its expiry, which term a takeover writes, how a record
// is written, how often the settlement job proves its lease, and which
// idempotency key a batch carries.
//
// ProtocolRules itself is the correct protocol, and the only implementation
// in core/. A service never names it: LeaseNode uses CorrectRules() unless
// told otherwise. Test tooling may pass a subclass that makes one decision
// differently (zoo/ holds the known mistakes), so a harness can be measured
// by the mistakes it catches; the elector and the job are the same code
// either way.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/env.h"
#include "core/timing.h"

namespace leasesim::core {

// What a candidate remembers about the record it is waiting out: the
// version (and holder) it saw first, and when, on its own monotonic clock.
struct Observation {
  std::int64_t version = -1;  // -1: nothing observed yet
  std::string holder;
  Nanos since = 0;
};

// Everything a candidate knows when it asks whether a holder has expired.
struct ExpiryQuestion {
  const VersionedRecord& seen;    // the record just read (held by another)
  const Observation& watched;     // since when it has looked like this
  Nanos monotonic_now = 0;        // the candidate's own monotonic clock
  Nanos wall_now = 0;             // the candidate's own wall clock
  const TimingConfig& own_timing; // the candidate's configuration
};

// The outcome of one renewal attempt, as the leader saw it.
struct RenewalOutcome {
  StoreStatus status = StoreStatus::kTimeout;
  Nanos sent = 0;             // boot clock, when the request left
  Nanos replied = 0;          // boot clock, when the call returned
  Nanos valid_until = 0;      // the deadline before this attempt
  const TimingConfig& timing;
};

// Why a record is written: the write of each purpose is a compare-and-set
// guarded by the version the writer last saw (or a create when none).
enum class RecordWrite { kAcquire, kRenew, kRelease };

// Where the settlement job may prove its lease before a side effect.
enum class LeaseCheck { kBeforeItem, kBeforeWrite };

// The correct protocol's decisions, one virtual function each; the zoo's
// variants override one or two.
class ProtocolRules {
 public:
  virtual ~ProtocolRules() = default;

  // The deadline of a leader's validity after a renewal attempt, on the
  // boot clock (CLOCK_BOOTTIME: it counts the time the machine was suspended).
  // Validity counts from the SEND of the last successful request (the store
  // may have applied it at any instant after), and no failed attempt can
  // extend it.
  virtual Nanos ValidUntilAfterRenewal(const RenewalOutcome& outcome) const;

  // Whether `seen` starts a new observation, restarting the expiry wait.
  // Any change of version does: a renewal proves the holder alive.
  virtual bool StartsNewObservation(const Observation& watched, const VersionedRecord& seen) const;

  // Whether the holder of question.seen may be taken over now. Judged only
  // on the candidate's own monotonic clock: the version must have stayed
  // unchanged for the HOLDER's lease duration, stretched by the drift bound.
  virtual bool HolderExpired(const ExpiryQuestion& question) const;

  // The term a takeover writes over a record of `held_term`: one higher, so
  // the ledger fences the previous holder.
  virtual std::int64_t TakeoverTerm(std::int64_t held_term) const;

  // Writes `record` over `observed`: create-if-absent, or a compare-and-set
  // on observed.version. Never overwrites a record it has not seen.
  virtual StoreResult WriteRecord(StoreClient& store, std::string_view key, RecordWrite purpose,
                                  const VersionedRecord& observed, const LeaseRecord& record,
                                  Nanos timeout) const;

  // Whether the job proves its lease at `check` before item `item` (or
  // before the write): at every one, so a lease lost mid-batch stops it.
  virtual bool ChecksLease(LeaseCheck check, int item) const;

  // The idempotency key of a settlement window's batch.
  virtual std::string IdempotencyKey(std::int64_t window) const;
};

// The correct protocol; what every service runs.
const ProtocolRules& CorrectRules();

}  // namespace leasesim::core
