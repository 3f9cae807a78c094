#pragma once
// The fault vocabulary: every kind of fault a run can inject, each with the
// one word that names it everywhere — in a scenario file's "kind", in the
// simulator's fault catalogue (runner/fault_catalogue.h, which adds how each
// strikes there), in a live run's fault table (live/live_faults.h, which
// names the kind each live fault is) and in a history's fault records
// (FaultRecord::kind), which the checker, the reports and `timing` read
// back. Here, beside the history, because runner/ and live/ both see
// checker/ and neither sees the other (README.md, Layout).

#include <string_view>

#include "base/enum_names.h"

namespace leasesim::checker {

enum class FaultKind {
  kCrash,             // node
  kRestart,           // node
  kPause,             // node, duration: stop-the-world; clocks keep going
  kSuspend,           // node, duration: as pause, and the monotonic clock stops
  kPartition,         // groups, duration: no messages between groups
  kClockDrift,        // node, drift_ppm: the monotonic clock's rate from now on
  kClockStep,         // node, step: the wall clock jumps by step (may be negative)
  kPartitionOneWay,   // from, to, duration: messages from -> to are dropped
  kIsolateFromStore,  // node, duration: the node and the store cannot talk
  kClog,              // from, to, duration: messages from -> to held until the end
  kStoreOutage,       // outage, duration: the store rejects or ignores requests
  kStoreLatency,      // extra, duration: every store request takes `extra` longer
  kShutdown,          // node, successor: graceful handoff, then the process exits
  kIsolate,           // node, duration: the node can reach no other host
  // The replicated store (runner/replicated_setup.h; live: an etcd member):
  // `replica` is a number or kStoreLeaderReplica / kStoreFollowerReplica,
  // resolved when it fires.
  kReplicaCrash,      // replica (at_point: when the lease `node` reaches it)
  kReplicaRestart,    // replica (a number)
  kReplicaPause,      // replica, duration
  kIsolateRegion,     // region, duration: no messages in or out of the region
  // A KV store host (the scenario's "kv"), `kv`: its process, clocks,
  // service and links; the TTLs it judges feel every one.
  kKvPause,           // kv, duration: stop-the-world; the expiry loop and requests queue
  kKvCrash,           // kv, duration: down, then up again (keys and leases kept, TTLs restarted)
  kKvClockDrift,      // kv, drift_ppm: the host's oscillator rate from now on
  kKvClockStep,       // kv, step: the host's wall clock jumps
  kKvOutage,          // kv, outage, duration: the store rejects or ignores requests
  kKvLatency,         // kv, extra, duration: every request takes `extra` longer
  kKvIsolate,         // kv, duration: the host can reach no other host, nor they it
};
// The number of kinds: the last enumerator + 1. The enumerators' values are
// in every simulator trace, so new kinds go at the end.
inline constexpr int kFaultKindCount = static_cast<int>(FaultKind::kKvIsolate) + 1;

// Each kind's word (the table is checked against the enum when compiled).
inline constexpr base::EnumNames<FaultKind, kFaultKindCount> kFaultKindNames{{
    {FaultKind::kCrash, "crash"},
    {FaultKind::kRestart, "restart"},
    {FaultKind::kPause, "pause"},
    {FaultKind::kSuspend, "suspend"},
    {FaultKind::kPartition, "partition"},
    {FaultKind::kClockDrift, "clock_drift"},
    {FaultKind::kClockStep, "clock_step"},
    {FaultKind::kPartitionOneWay, "partition_oneway"},
    {FaultKind::kIsolateFromStore, "isolate_from_store"},
    {FaultKind::kClog, "clog"},
    {FaultKind::kStoreOutage, "store_outage"},
    {FaultKind::kStoreLatency, "store_latency"},
    {FaultKind::kShutdown, "shutdown"},
    {FaultKind::kIsolate, "isolate"},
    {FaultKind::kReplicaCrash, "replica_crash"},
    {FaultKind::kReplicaRestart, "replica_restart"},
    {FaultKind::kReplicaPause, "replica_pause"},
    {FaultKind::kIsolateRegion, "isolate_region"},
    {FaultKind::kKvPause, "kv_pause"},
    {FaultKind::kKvCrash, "kv_crash"},
    {FaultKind::kKvClockDrift, "kv_clock_drift"},
    {FaultKind::kKvClockStep, "kv_clock_step"},
    {FaultKind::kKvOutage, "kv_outage"},
    {FaultKind::kKvLatency, "kv_latency"},
    {FaultKind::kKvIsolate, "kv_isolate"},
}};

// The kind's word ("crash", "store_latency", ...), NUL-terminated.
constexpr const char* FaultKindName(FaultKind kind) { return kFaultKindNames.CName(kind); }

// Whether a fault record's kind (FaultRecord::kind) is `kind`'s word.
constexpr bool IsFaultKind(std::string_view word, FaultKind kind) { return word == kFaultKindNames.Name(kind); }

}  // namespace leasesim::checker
