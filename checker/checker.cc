#include "checker/checker.h"

#include "checker/fencing_checks.h"
#include "checker/lease_checks.h"
#include "checker/lease_contract_checks.h"
#include "checker/liveness_checks.h"
#include "checker/schedule_checks.h"
#include "checker/service_contract_checks.h"

namespace leasesim::checker {

Verdict CheckHistory(const History& history) { return CheckHistory(history, CheckOptions{}); }

Verdict CheckHistory(const History& history, const CheckOptions& options) {
  return CheckHistory(HistoryIndex(history), options);
}

Verdict CheckHistory(const HistoryIndex& index, const CheckOptions& options) {
  const History& history = index.history();
  Verdict verdict;
  CheckStaleTokenWrites(history, verdict);
  CheckStaleTokensAccepted(history, verdict);
  CheckDualWriters(history, verdict);
  CheckDuplicateSettlements(history, verdict);
  CheckTermReuse(index, verdict);
  CheckLeaseOverlap(history, verdict);
  CheckLeaseContract(index, verdict);
  CheckWriteOutsideLease(history, verdict);
  CheckMissedSettlements(history, verdict);
  CheckEarlySettlements(history, verdict);
  CheckSlowRecovery(history, verdict);
  CheckLeaderCallbacks(index, verdict);
  CheckServiceMetrics(history, verdict);
  CheckStoreLinearizable(index, options.store, verdict);
  CheckKvStoresLinearizable(history, options.store.lin, verdict);
  return verdict;
}

}  // namespace leasesim::checker
