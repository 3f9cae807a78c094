#pragma once
// The checker's entry point: every check over a history, in a fixed order.

#include "checker/history.h"
#include "checker/history_index.h"
#include "checker/store_checks.h"
#include "checker/verdict.h"

namespace leasesim::checker {

struct CheckOptions {
  StoreCheckOptions store;
};

// Runs, in order: stale_token_write, dual_writer, duplicate_settlement,
// term_reuse, lease_overlap (after the fencing checks, whose outcome its
// note reports), write_outside_lease, missed_settlement, slow_recovery and
// not_linearizable (the store's recorded order first, the search if needed),
// then not_linearizable of each KV store (History::kv_ops).
Verdict CheckHistory(const History& history);
Verdict CheckHistory(const History& history, const CheckOptions& options);
// The same over an index of the history, for a caller that also wants its
// figures (HistoryFigures) and so builds the index once.
Verdict CheckHistory(const HistoryIndex& index, const CheckOptions& options = {});

}  // namespace leasesim::checker
