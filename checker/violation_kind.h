#pragma once
// The vocabulary of violations: every kind a check of the history reports,
// and the two the runner adds, named once (the names are what summaries,
// reports, scenario files' "expect" and `leasesim check --json` carry).
// Violation::kind is still the name as a string; producers take it from
// here, so a kind cannot be misspelt.

#include <string>

#include "base/enum_names.h"

namespace leasesim::checker {

enum class ViolationKind {
  kStaleTokenWrite,       // fencing_checks
  kStaleTokenAccepted,    // fencing_checks: a stale token answered as a duplicate, not rejected
  kDualWriter,            // fencing_checks
  kDuplicateSettlement,   // fencing_checks
  kTermReuse,             // lease_checks
  kLeaseOverlap,          // lease_checks
  kWriteOutsideLease,     // lease_checks
  kLeaseOutlived,         // lease_contract_checks: a holder led past the lease its record granted
  kEarlyTakeover,         // lease_contract_checks: a candidate led before the replaced lease ran out
  kMissedSettlement,      // liveness_checks
  kSettledEarly,          // schedule_checks: a window written before the writer's clock said it was over
  kSlowRecovery,          // liveness_checks
  kCallbackOrder,         // service_contract_checks: leader callbacks not started once, then stopped once
  kCallbackLate,          // service_contract_checks: a leadership reported started or stopped late, or never
  kJobAfterStop,          // service_contract_checks: job code of a term ran after its stop
  kNewLeaderNotHolder,    // service_contract_checks: on_new_leader named no record's holder
  kLeaderGaugeStale,      // service_contract_checks: a leader answer said 1 with no valid lease
  kMetricRegressed,       // service_contract_checks: the term gauge or a counter went back
  kNotLinearizable,       // store_checks, check_command
  kCheckerDisagreement,   // store_checks: the two linearizability checks disagree
  kNondeterminism,        // the runner: one seed, two traces
  kFaultPointNotReached,  // the runner: a fault point the scenario requires never struck
};

inline constexpr base::EnumNames<ViolationKind, 22> kViolationKindNames{{
    {ViolationKind::kStaleTokenWrite, "stale_token_write"},
    {ViolationKind::kStaleTokenAccepted, "stale_token_accepted"},
    {ViolationKind::kDualWriter, "dual_writer"},
    {ViolationKind::kDuplicateSettlement, "duplicate_settlement"},
    {ViolationKind::kTermReuse, "term_reuse"},
    {ViolationKind::kLeaseOverlap, "lease_overlap"},
    {ViolationKind::kWriteOutsideLease, "write_outside_lease"},
    {ViolationKind::kLeaseOutlived, "lease_outlived"},
    {ViolationKind::kEarlyTakeover, "early_takeover"},
    {ViolationKind::kMissedSettlement, "missed_settlement"},
    {ViolationKind::kSettledEarly, "settled_early"},
    {ViolationKind::kSlowRecovery, "slow_recovery"},
    {ViolationKind::kCallbackOrder, "callback_order"},
    {ViolationKind::kCallbackLate, "callback_late"},
    {ViolationKind::kJobAfterStop, "job_after_stop"},
    {ViolationKind::kNewLeaderNotHolder, "new_leader_not_holder"},
    {ViolationKind::kLeaderGaugeStale, "leader_gauge_stale"},
    {ViolationKind::kMetricRegressed, "metric_regressed"},
    {ViolationKind::kNotLinearizable, "not_linearizable"},
    {ViolationKind::kCheckerDisagreement, "checker_disagreement"},
    {ViolationKind::kNondeterminism, "nondeterminism"},
    {ViolationKind::kFaultPointNotReached, "fault_point_not_reached"},
}};

// The kind's name, as Violation::kind holds it.
inline std::string KindName(ViolationKind kind) { return kViolationKindNames.CName(kind); }

}  // namespace leasesim::checker
