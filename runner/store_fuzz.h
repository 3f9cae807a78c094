#pragma once
// The replicated store (backends/replicated_store.h) under a search of its
// own, as etcd's robustness suite tests etcd (etcd tests/robustness: a
// traffic of many concurrent clients, failpoints and network faults injected
// while it runs, and every history validated against a model): one seed
// draws a store (1, 3 or 5 replicas, an fsync latency), a workload of KV
// clients (core::KvClient: ranges, puts, compare-and-sets, multi-key
// transactions, deletes, and TTL leases granted, kept alive, revoked and
// ended by the store leader's lessor) on a few keys, and of lease-record
// clients (reads, creates and compare-and-sets of one lease record through
// core's record store, core::KvRecordStore over the same KV seam), peer
// links with a long tail of delay and late second deliveries, and a nemesis
// of store-leader partitions, one-way cuts, clogs, slow peer links, replica
// crashes, power losses (the un-fsynced tail of the disk is lost, as
// LazyFS's clear-cache loses it), deaths at failpoints of the raft loop
// (before or after the fsync, after applying, before sending, a leader
// before sending what it appended), slow fsyncs, pauses and clock drift on
// replicas, and faults of the cluster as a whole: leader churn (whoever
// leads dies before its new entries leave, in a crash loop), a majority or
// all paused and resumed at one instant (split votes), and one peer link
// clogged for several elections; all healed before a quiet end. A run is
// judged twice: by the checker's linearizability of the
// clients' histories (the KV one by checker/kv_store_model.h, expiries
// included), and by Raft's own invariants, checked as the replicas run
// (backends/raft_invariants.h). Same seed, same run.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/replicated_store.h"
#include "sim/time.h"

namespace leasesim::runner {

struct StoreFuzzOptions {
  int replicas = 0;  // 0: 1, 3 or 5, drawn per seed (10%, 45%, 45%)
  int clients = 6;         // KV clients
  int record_clients = 2;  // lease-record clients (core's record store over the KV seam, one record)
  int keys = 3;            // the KV clients' keys
  sim::Nanos duration = sim::Seconds(20);  // faults and traffic; a quiet second follows
  // One fsync's latency; -1: drawn per seed from 1-8 ms.
  sim::Nanos fsync = -1;
  backends::ReadMode read_mode = backends::ReadMode::kLinearizable;
  bool reply_before_fsync = false;  // the deliberate fsync mistake (ReplicatedStoreConfig)
  // Steps the linearizability search may take before it says "unknown".
  std::int64_t search_budget = 20'000'000;
};

struct StoreFuzzResult {
  std::uint64_t seed = 0;
  // Broken Raft invariants and the checker's violations, each a sentence.
  std::vector<std::string> problems;
  bool linearizability_unknown = false;
  std::uint64_t trace_hash = 0;
  // ops_ok, ops_unknown, ops_failed, entries_applied, store_leaders_elected,
  // invariant_checks, kv_ops, kv_lease_expiries, and fault_<kind> for each
  // fault struck.
  std::map<std::string, std::int64_t> counts;
  bool ok() const { return problems.empty(); }
};

// The fault kinds the nemesis draws from, by name (for counts and docs).
const std::vector<std::string>& StoreFuzzFaultKinds();

StoreFuzzResult RunStoreFuzz(std::uint64_t seed, const StoreFuzzOptions& options = {});

}  // namespace leasesim::runner
