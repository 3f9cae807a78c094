#include "checker/checker.h"

#include "checker/fencing_checks.h"
#include "checker/lease_checks.h"
#include "checker/lease_contract_checks.h"
#include "checker/liveness_checks.h"
#include "checker/schedule_checks.h"

namespace leasesim::checker {

Verdict CheckHistory(const History& history) { return CheckHistory(history, CheckOptions{}); }

Verdict CheckHistory(const History& history, const CheckOptions& options) {
  Verdict verdict;
  CheckStaleTokenWrites(history, verdict);
  CheckStaleTokensAccepted(history, verdict);
  CheckDualWriters(history, verdict);
  CheckDuplicateSettlements(history, verdict);
  CheckTermReuse(history, verdict);
  CheckLeaseOverlap(history, verdict);
  CheckLeaseContract(history, verdict);
  CheckWriteOutsideLease(history, verdict);
  CheckMissedSettlements(history, verdict);
  CheckEarlySettlements(history, verdict);
  CheckSlowRecovery(history, verdict);
  CheckStoreLinearizable(history, options.store, verdict);
  return verdict;
}

}  // namespace leasesim::checker
