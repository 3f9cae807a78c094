#pragma once
// The scheduled settlement job that only the lease holder may run, as
// leader callbacks (core/leader_callbacks.h). Each period (a window of the
// wall-clock schedule) is settled once: a batch of items committed to the
// ledger as one transaction, carrying the lease term as fencing token and
// the window's idempotency key.

#include <cstdint>
#include <string>

#include "core/env.h"
#include "core/leader_callbacks.h"
#include "core/metrics.h"
#include "core/protocol_rules.h"

namespace leasesim::core {

struct SettlementConfig {
  Nanos period = 0;            // one window per period of wall-clock time
  Nanos schedule_epoch_wall = 0;  // wall time at which window 0 begins
  int batch_items = 1;         // items per window's batch
  Nanos poll = 0;              // how often the job looks for due windows
  Nanos request_timeout = 0;   // per ledger call
};

// The job's leader callbacks: settle each due window once, fenced by the term.
class SettlementJob {
 public:
  // `rules` must outlive the job; services keep the default.
  SettlementJob(Env& env, SettlementConfig config, LeaseMetrics& metrics,
                const ProtocolRules& rules = CorrectRules());

  // The job as callbacks: started leading runs Lead.
  LeaderCallbacks Callbacks();
  // How its runner polls: every `poll`; a release waits for a write in
  // flight at most one ledger request; the task is named "settlement".
  RunnerConfig RunnerFor() const;

  // One leadership: settles every due window, each poll, until the lease
  // can no longer be proven.
  void Lead(LeaderContext& ctx);

 private:
  // Settles due windows under the lease; returns when caught up or when
  // leadership or the ledger stops it.
  void SettleDueWindows(LeaderContext& ctx);
  // Commits one window's batch; false when the caller must stop.
  bool SettleWindow(LeaderContext& ctx, std::int64_t window);
  // The lease, proven again if the rules check at `check`; false to stop.
  bool Prove(LeaderContext& ctx, LeaseCheck check, int item, SettlementBatch& batch);
  // Reports a write's outcome; false when the caller must stop.
  bool Settled(LeaderContext& ctx, const SettlementBatch& batch, const LedgerResult& result);
  std::int64_t LastDueWindow();

  static constexpr int kWindowsPerRoundMax = 1'000;

  Env& env_;
  SettlementConfig config_;
  LeaseMetrics& metrics_;
  const ProtocolRules& rules_;
  // The term next_window_ was learned under: kept across leaderships, so a
  // lease re-adopted in the same term goes on where it stopped.
  std::int64_t known_term_ = 0;
  std::int64_t next_window_ = -1;   // first window not known to be applied
};

}  // namespace leasesim::core
