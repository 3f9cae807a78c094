#pragma once
// Judges a finished live run: assembles the merge's input (the timing's
// assumptions, the settlement windows a healed run must have settled),
// merges the journals with the ledger's record, runs the checker, and
// derives the run's figures (renewal latency, failover times, ...).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/etcd/etcd_ledger.h"
#include "checker/history.h"
#include "checker/verdict.h"
#include "live/fault_injector.h"
#include "live/history_merge.h"
#include "live/live_run.h"

namespace leasesim::live {

// What a finished run left behind.
struct FinishedRun {
  std::int64_t start_mono = 0;  // CLOCK_MONOTONIC at true time 0
  std::int64_t end_mono = 0;
  std::int64_t start_wall_ns = 0;  // the wall clock at true time 0
  std::int64_t epoch_wall_ns = 0;  // the settlement schedule's epoch
  std::vector<JournalFile> journals;
  std::vector<KillRecord> kills;
  std::vector<checker::FaultRecord> faults;
  std::vector<etcd::AppliedBatch> applied;  // in revision order
  std::vector<Takeout> takeouts;
};

// A judged run: the merged history, the checker's verdict, the figures.
struct Judgement {
  MergeOutput merged;
  checker::Verdict verdict;
  std::map<std::string, std::int64_t> figures;
  std::vector<std::string> failovers;  // one line per measured failover
};

MergeInput BuildMergeInput(const LiveOptions& options, const FinishedRun& run);
Judgement Judge(const LiveOptions& options, const FinishedRun& run);

}  // namespace leasesim::live
