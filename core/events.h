#pragma once
// Structured events the protocol emits, one JSON object per line when
// rendered. Operators read them; the simulator turns them into the history's
// leadership beliefs.

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/lease_record.h"

namespace leasesim::core {

enum class EventKind {
  kAcquired,        // became leader: term, valid_until
  kRenewed,         // lease extended: valid_until
  kRenewFailed,     // a renewal attempt failed: reason
  kDemoted,         // stopped leading: reason
  kReleased,        // gave the lease up gracefully
  kObservedLeader,  // saw another holder in the record
  kSettled,         // a window's batch was applied (or found already applied)
  kFenced,          // the ledger rejected our token
  // What a service relies on, reported so that a checker can judge it; any
  // protocol may report these, and one that reports none is not judged on
  // them (docs/CHECKER.md). Each is an observation of the protocol's
  // process, not a step of the protocol: the simulator does not trace them.
  kLeadingStarted,     // on_started_leading ran for the leadership of term (its token)
  kLeadingStopped,     // on_stopped_leading ran for term: reason
  kJobStep,            // job code of the leadership of term ran (a lease check): value 1 if it proved the lease
  kNewLeaderReported,  // on_new_leader ran: other is the holder named
  kMetric,             // a metric took a new value: metric, value
};
// Kinds are numbered from 0 with no gaps; kMetric is the last.
inline constexpr std::size_t kEventKindCount = static_cast<std::size_t>(EventKind::kMetric) + 1;
// The kinds up to kFenced tell the protocol's own story; the later ones
// observe a service's contracts.
inline constexpr std::size_t kProtocolEventKindCount = static_cast<std::size_t>(EventKind::kFenced) + 1;

const char* EventKindName(EventKind kind);

// Why a leader stopped leading.
enum class DemotionReason {
  kDeadline,          // validity deadline passed without a successful renewal
  kConflict,          // the record changed under us
  kStoreUnavailable,  // the store refused long enough that the lease may have lapsed
  kPauseDetected,     // a timer fired far later than asked: the lease may have lapsed
  kFenced,            // the ledger saw a higher token
  kReleased,          // graceful handoff
};

const char* DemotionReasonName(DemotionReason reason);

struct LeaseEvent {
  EventKind kind = EventKind::kAcquired;
  std::string holder;
  std::int64_t term = 0;
  std::int64_t version = 0;
  Nanos monotonic_ns = 0;    // the node's monotonic clock when it happened
  Nanos boot_ns = 0;         // the node's boot clock then (acquired, renewed)
  Nanos valid_until_ns = 0;  // validity deadline on the boot clock (acquired, renewed)
  std::string reason;        // demoted, renew_failed
  std::string other;         // observed_leader: the other holder
  std::int64_t window = -1;  // settled, fenced
  // metric: its name (a string with static storage: "is_leader", "term",
  // counters ending in "_total") and its new value; job_step: 1 if the
  // check proved the lease, 0 if it found it gone.
  const char* metric = "";
  std::int64_t value = 0;
};

std::string ToJson(const LeaseEvent& event);

}  // namespace leasesim::core
