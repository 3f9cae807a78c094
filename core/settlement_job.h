#pragma once
// The scheduled settlement job that only the lease holder may run. Each
// period (a window of the wall-clock schedule) is settled once: a batch of
// items committed to the ledger as one transaction, carrying the lease term
// as fencing token and the window's idempotency key.

#include <cstdint>
#include <string>

#include "core/env.h"
#include "core/lease_elector.h"
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

class SettlementJob {
 public:
  // `rules` must outlive the job; services keep the default.
  SettlementJob(Env& env, SettlementConfig config, LeaseElector& elector, LeaseMetrics& metrics,
                const ProtocolRules& rules = CorrectRules());

  // Runs forever: settles every due window while this process holds the lease.
  void Run();

  // Returns once no write that passed its lease check is still in flight
  // (bounded by the ledger call's timeout). A graceful release waits here.
  void WaitUntilQuiet();

 private:
  // Settles due windows under `grant`; returns when caught up or when
  // leadership or the ledger stops it.
  void SettleDueWindows();
  // Commits one window's batch; false when the caller must stop.
  bool SettleWindow(std::int64_t window);
  // The lease, proven again if the rules check at `check`; false to stop.
  bool Prove(LeaseCheck check, int item, SettlementBatch& batch);
  // Reports a write's outcome; false when the caller must stop.
  bool Settled(const SettlementBatch& batch, const LedgerResult& result);
  std::int64_t LastDueWindow();

  static constexpr int kWindowsPerRoundMax = 1'000;

  Env& env_;
  SettlementConfig config_;
  LeaseElector& elector_;
  LeaseMetrics& metrics_;
  const ProtocolRules& rules_;
  std::int64_t known_term_ = 0;     // the term next_window_ was learned under
  std::int64_t next_window_ = -1;
  bool writing_ = false;            // a write passed its last lease check and has not returned   // first window not known to be applied
};

}  // namespace leasesim::core
