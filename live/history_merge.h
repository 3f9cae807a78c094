#pragma once
// Merges the journals of every node incarnation of a live run (see
// node_journal.h), the orchestrator's fault log and the ledger's own record
// of applied batches into one checker::History on one time line: true time
// is CLOCK_MONOTONIC minus the run's start.
//
// The ledger is the authority on what it applied: a write whose reply was
// lost (timeout) but whose batch is in etcd counts as applied, and applied
// writes are ordered by etcd's revision (their arrival instants are chosen
// inside each write's [sent, reply] interval consistently with that order).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/etcd/etcd_ledger.h"
#include "checker/history.h"

namespace leasesim::live {

// One node incarnation's journal file.
struct JournalFile {
  int node = 0;
  int incarnation = 0;
  std::string path;
};

// A node process the orchestrator killed, and when (CLOCK_MONOTONIC).
struct KillRecord {
  int node = 0;
  int incarnation = 0;
  std::int64_t at_mono = 0;
};

// Everything the merge reads: the journals, what the orchestrator did, the ledger's record.
struct MergeInput {
  std::int64_t start_mono = 0;  // true time 0
  std::int64_t end_mono = 0;    // the run's end
  int node_count = 0;
  std::vector<JournalFile> journals;
  std::vector<KillRecord> kills;
  std::vector<checker::FaultRecord> faults;  // times already relative to start_mono
  std::vector<etcd::AppliedBatch> applied;   // from the ledger, in revision order
  checker::Assumptions assumptions;
  std::vector<std::int64_t> due_windows;
};

// The merged history and what the merge learned besides.
struct MergeOutput {
  checker::History history;
  std::vector<std::int64_t> renewal_latencies_ns;  // successful renewals, each CAS's invoke->reply
  std::vector<std::string> warnings;               // unreadable lines etc.
};

MergeOutput MergeJournals(const MergeInput& input);


}  // namespace leasesim::live
