#pragma once
// Linearizability of the store operations of a history, as a verdict:
// the O(n) check of the store's own application order first (when the
// history records it), the black-box search when that cannot decide.

#include "checker/history.h"
#include "checker/history_index.h"
#include "checker/lin_result.h"
#include "checker/verdict.h"

namespace leasesim::checker {

struct StoreCheckOptions {
  LinOptions lin;
  // Also run the black-box search when the recorded order already proves
  // linearizability, and report a disagreement (a checker bug) if any.
  bool cross_check = false;
};

// Adds a `not_linearizable` violation, or sets linearizability_unknown when
// the budget ran out, or a note when the store's recorded order was wrong
// but another order works.
void CheckStoreLinearizable(const History& history, const StoreCheckOptions& options,
                            Verdict& verdict);
void CheckStoreLinearizable(const HistoryIndex& index, const StoreCheckOptions& options, Verdict& verdict);

// The KV stores' operations (History::kv_ops), each store on its own,
// against the KV model (checker/kv_store_model.h): a `not_linearizable`
// violation naming the store, or linearizability_unknown (with a note) when
// the budget ran out. Nothing when the history has no KV operations.
void CheckKvStoresLinearizable(const History& history, const LinOptions& options, Verdict& verdict);

}  // namespace leasesim::checker
