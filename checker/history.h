#pragma once
// The recorded history of one run: what the checker judges. It is plain data
// with no link to the simulator or the protocol core, so a history can come
// from a simulated run, a live run, or another tool (Jepsen) alike.
//
// Times are true times in integer nanoseconds since the start of the run.

#include <cstdint>
#include <string>
#include <vector>

#include "base/enum_names.h"
#include "base/units.h"

namespace leasesim::checker {

using TimeNs = base::Nanos;
inline constexpr TimeNs kNeverNs = base::kNeverNanos;

// What a client learned of an operation it sent.
enum class Outcome {
  kOk,       // took effect (or, for a read, returned a value)
  kFail,     // definitely did not take effect
  kUnknown,  // may have taken effect at any point after its invocation, or never
};
inline constexpr base::EnumNames<Outcome, 3> kOutcomeNames{
    {{Outcome::kOk, "ok"}, {Outcome::kFail, "fail"}, {Outcome::kUnknown, "unknown"}}};

// The value part of a lease record as the store holds it.
struct LeaseValue {
  std::string holder;  // empty = released
  std::int64_t term = 0;
  std::int64_t duration_ns = 0;
  friend bool operator==(const LeaseValue&, const LeaseValue&) = default;
};

enum class StoreOpKind { kRead, kCreate, kCas };
inline constexpr base::EnumNames<StoreOpKind, 3> kStoreOpKindNames{
    {{StoreOpKind::kRead, "read"}, {StoreOpKind::kCreate, "create"}, {StoreOpKind::kCas, "cas"}}};

// One operation on the coordination store, as its client saw it. Versions
// are per key: 1 after create, +1 on every successful CAS.
struct StoreOp {
  std::int64_t id = 0;
  int node = 0;             // node number, 1-based
  std::string process;      // the client's unique identity (node and incarnation)
  std::string key;
  StoreOpKind kind = StoreOpKind::kRead;
  // Inputs.
  std::int64_t expected_version = 0;  // kCas only
  LeaseValue value;                   // kCreate and kCas: the value written
  // Outputs (meaningful when outcome == kOk; for kFail of kCas/kCreate the
  // store's current record, when the store reported it: found = true then.
  // A failure without a reported record says nothing about the store's state
  // — it may have been an outage — so the linearizability check ignores it).
  Outcome outcome = Outcome::kUnknown;
  bool found = false;                 // kRead: whether the key existed
  std::int64_t version = 0;           // kRead: version read; kCreate/kCas: version written
  LeaseValue read_value;              // kRead: value read
  TimeNs invoke_ns = 0;
  TimeNs complete_ns = kNeverNs;      // kNeverNs when the outcome is unknown
  // The store's own application order (0-based), when the recorder knows it
  // (the simulator does); -1 when not applied or not known.
  std::int64_t applied_seq = -1;
  // The true instant the store applied it, when the recorder knows it (the
  // simulator does; a real store does not say): where the lease a written
  // record grants begins in the store's terms.
  TimeNs applied_ns = kNeverNs;
  // A read that is a watch's answer (the store reported a change), not a
  // call: it has no latency of its own. Known only in the simulator.
  bool watch_answer = false;
};

// An interval during which a node believed it held the lease. until_ns is
// the earlier of its self-demotion and the true instant its own validity
// deadline passed on its own clock.
struct LeadershipBelief {
  int node = 0;
  std::string holder;
  std::int64_t term = 0;
  TimeNs from_ns = 0;
  TimeNs until_ns = 0;
  std::string end_reason;  // "deadline", "conflict", "released", "crash", "end_of_run", ...
};

// A holder's claim of validity at one instant (an acquisition or a
// renewal): at true time at_ns its boot clock read boot_ns, and it took its
// lease to last until that clock reads until_boot_ns. What the claim means
// in true time depends on how fast the clock runs from then on; the checker
// takes the slowest rate the drift bound allows.
struct ValidityClaim {
  int node = 0;
  std::string holder;
  std::int64_t term = 0;
  TimeNs at_ns = 0;
  TimeNs boot_ns = 0;
  TimeNs until_boot_ns = 0;
};

enum class LedgerResult {
  kApplied,           // the ledger accepted and applied the batch
  kRejectedStale,     // token below the highest accepted: fenced
  kDuplicate,         // idempotency key already applied: earlier result returned
  kLost,              // never reached the ledger (loss, partition, crash, end of run)
};
inline constexpr base::EnumNames<LedgerResult, 4> kLedgerResultNames{{{LedgerResult::kApplied, "applied"},
                                                                      {LedgerResult::kRejectedStale, "rejected_stale"},
                                                                      {LedgerResult::kDuplicate, "duplicate"},
                                                                      {LedgerResult::kLost, "lost"}}};

// One attempt of a business write (a settlement batch) at the ledger.
struct LedgerWrite {
  std::int64_t id = 0;
  int node = 0;
  std::string holder;
  std::int64_t token = 0;          // the fencing token (the lease term)
  std::string idempotency_key;     // empty when the writer sent none
  std::int64_t window = 0;         // settlement window index
  TimeNs sent_ns = 0;
  TimeNs arrived_ns = kNeverNs;    // when the ledger received it (kNeverNs if lost)
  LedgerResult result = LedgerResult::kLost;
  // The writer's own view at send time: it believed its lease valid.
  bool lease_valid_at_send = true;
  // When not: how far past its own validity deadline (on its own clock) it
  // sent. A send late by no more than the pause budget is what the timing
  // rules allow for (a pause between the lease check and the send).
  std::int64_t late_ns = 0;
  // How long the writer stood still (its own clock) between the protocol's
  // last point before a write (assumptions.last_point_before_write) and the
  // send — a stop-the-world pause after its last lease check; 0 if unknown.
  std::int64_t stalled_ns = 0;
  // The latest reading of its own wall clock the writer had taken when it
  // sent (its clock's high-water mark): a window that was not over by then
  // had not fallen due by any reading the writer ever saw. kNeverNs when
  // unknown (the check then skips the write).
  TimeNs wall_seen_ns = kNeverNs;
};

// The KV store's operations (core/kv_store.h's data model, etcd v3's), in
// the checker's own vocabulary (the checker sees no core/); judged by
// checker/kv_store_model.h.
using KvStoreLease = std::int64_t;  // 0 = no lease

// A key as read: create/mod revisions are store-wide, version per key.
struct KvStoreEntry {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  KvStoreLease lease = 0;
  friend bool operator==(const KvStoreEntry&, const KvStoreEntry&) = default;
};

enum class KvStoreCompareTarget { kValue, kVersion, kCreateRevision, kModRevision };
enum class KvStoreCompareResult { kEqual, kNotEqual, kLess, kGreater };

// A txn guard on one key. An absent key compares as version and revisions
// 0, and fails every value compare.
struct KvStoreCompare {
  std::string key;
  KvStoreCompareTarget target = KvStoreCompareTarget::kVersion;
  KvStoreCompareResult result = KvStoreCompareResult::kEqual;
  std::int64_t number = 0;
  std::string value;
};

// One request of a txn branch, with its response when the txn returned.
struct KvStoreRequest {
  enum class Kind { kRange, kPut, kDelete };
  Kind kind = Kind::kRange;
  std::string key;
  std::string end;  // kRange, kDelete: "" = the key alone; "\0" = every key >= key; else [key, end)
  std::string value;         // kPut
  KvStoreLease lease = 0;    // kPut
  bool prev_kv = false;      // kPut, kDelete
  bool sort_by_create = false;  // kRange: by create revision (else by key)
  std::int64_t limit = 0;       // kRange: 0 = all
  // Response (the op's outcome kOk).
  std::vector<KvStoreEntry> kvs;  // kRange: entries; kPut/kDelete with prev_kv: what was there
  std::int64_t count = 0;         // kRange: keys in range; kDelete: keys deleted
  bool more = false;              // kRange
};

// One operation as its client (or, for an expiry, the store) recorded it.
struct KvStoreOp {
  enum class Kind { kTxn, kLeaseGrant, kLeaseKeepAlive, kLeaseRevoke, kLeaseExpire };
  Kind kind = Kind::kTxn;
  // Which store (a run's KV host name, "kv" or "kv1"...): each store is
  // independent and judged on its own.
  std::string store;
  int process = 0;  // kLeaseExpire: the store's own (any number)
  Outcome outcome = Outcome::kUnknown;
  // kTxn inputs.
  std::vector<KvStoreCompare> compares;
  std::vector<KvStoreRequest> success;
  std::vector<KvStoreRequest> failure;
  // Outputs (kOk).
  bool succeeded = false;        // kTxn: which branch ran
  bool lease_not_found = false;  // kTxn: refused for a put's missing lease; keep-alive, revoke: no such lease
  // Whether the store-wide revisions were recorded (the header revision
  // and entries' create/mod revisions); false: they are not checked.
  bool revisions = true;
  // The header revision after the op; kLeaseExpire: the revision its
  // deletions took, 0 when the lease had no keys.
  std::int64_t revision = 0;
  KvStoreLease lease = 0;   // grant (the id given; 0 if unknown), keep-alive, revoke, expire
  std::int64_t ttl_ns = 0;  // grant, keep-alive: the TTL granted
  TimeNs call_ns = 0;
  TimeNs return_ns = kNeverNs;  // kNeverNs when the outcome is unknown
  // The store's own order of application (0-based, per store), when the
  // recorder knows it (the simulator does); -1: not applied, or not known.
  // Where every op that matters carries one, the checker first tries that
  // order as the linearization (CheckKvStore).
  std::int64_t applied_seq = -1;
};

// One injected fault, as it happened.
struct FaultRecord {
  // A fault kind's word (checker/fault_kind.h: "crash", "pause", ...), or a
  // condition the world reports as a fault ("cluster_down", "store_quorum_lost").
  std::string kind;
  std::vector<int> nodes;   // the nodes it hit (empty for store-wide faults)
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;        // == start_ns for instantaneous faults
  bool within_assumptions = true;
  std::string description;
  // For faults that struck at a named point of the protocol (a pause right
  // after the lease check, ...): that point; empty for timed faults.
  std::string at_point;
};

// A leader callback, or a step of the job it runs, as a process reported
// it (docs/LEADER_CALLBACKS.md). Optional: a protocol that reports none is
// not judged on callbacks.
enum class CallbackKind {
  kStarted,    // on_started_leading began the leadership of `term`
  kStopped,    // on_stopped_leading for `term`
  kJobStep,    // job code of the leadership of `term` ran (a lease check, and its answer)
  kNewLeader,  // on_new_leader named `leader`
};
inline constexpr base::EnumNames<CallbackKind, 4> kCallbackKindNames{{{CallbackKind::kStarted, "started"},
                                                                      {CallbackKind::kStopped, "stopped"},
                                                                      {CallbackKind::kJobStep, "job_step"},
                                                                      {CallbackKind::kNewLeader, "new_leader"}}};

struct CallbackRecord {
  int node = 0;
  std::string process;  // the process incarnation's identity, as beliefs name it
  CallbackKind kind = CallbackKind::kStarted;
  std::int64_t term = 0;
  std::string leader;   // kNewLeader: the holder named
  std::string reason;   // kStopped: why
  // kJobStep: whether the check proved the lease (false: it found it gone,
  // and the leadership is over).
  bool lease_valid = true;
  TimeNs at_ns = 0;
};

// A metric (or a health answer) of a process took `value` at `at_ns`; it
// holds until the next sample of the same name and process, the process's
// crash or the run's end. Optional, like callbacks.
struct MetricSample {
  int node = 0;
  std::string process;
  std::string name;  // "is_leader", "healthz_leading", "term", counters "..._total"
  std::int64_t value = 0;
  TimeNs at_ns = 0;
};

// What the protocol promises under, and the figures checks derive bounds from.
struct Assumptions {
  std::int64_t drift_bound_ppm = 0;
  std::int64_t pause_budget_ns = 0;
  std::int64_t lease_duration_ns = 0;
  std::int64_t renew_interval_ns = 0;
  std::int64_t retry_ns = 0;
  std::int64_t settlement_period_ns = 0;
  // The wall-clock instant window 0 of the settlement schedule begins
  // (window w covers [epoch + w * period, epoch + (w + 1) * period)).
  std::int64_t settlement_epoch_wall_ns = 0;
  // After the last fault heals, a leader must hold the lease within this bound.
  std::int64_t recovery_bound_ns = 0;
  // How long after a lease began or ended its leadership may be reported
  // started or stopped by the leader callbacks: the runner's poll plus the
  // longest its job goes between two lease checks. 0 = unknown: the
  // callbacks' timing is not judged.
  std::int64_t callback_bound_ns = 0;
  // The protocol's last fault point before a business write (the writer
  // checks its lease after every other one): a pause there that covers the
  // moment a write's lease ran out may leave that write late by up to the
  // pause budget. The protocol's author names it (the runner sets core's);
  // empty = none is known, so no pause at a named point excuses a late write.
  std::string last_point_before_write;
};

struct History {
  static constexpr int kFormatVersion = 1;
  Assumptions assumptions;
  int node_count = 0;
  TimeNs end_ns = 0;                       // true time the run stopped
  std::vector<StoreOp> store_ops;
  std::vector<LeadershipBelief> beliefs;
  std::vector<ValidityClaim> claims;  // optional: the simulator records them
  std::vector<LedgerWrite> ledger_writes;
  std::vector<FaultRecord> faults;
  // Optional (see CallbackRecord, MetricSample); each process's in the
  // order they happened.
  std::vector<CallbackRecord> callbacks;
  std::vector<MetricSample> metrics;
  // Operations on the KV stores (client calls and the stores' own lease
  // expiries), every store's in one list; empty when the run had none.
  std::vector<KvStoreOp> kv_ops;
  // Settlement windows that fell due during the run (a due window must be
  // applied by the end of a run whose faults healed).
  std::vector<std::int64_t> due_windows;
  // Optional, parallel to due_windows: the true time each fell due. When
  // absent (empty), window w is taken to fall due at (w + 1) *
  // assumptions.settlement_period_ns, the latest it could.
  std::vector<TimeNs> due_window_ns;
};

}  // namespace leasesim::checker
