#include "checker/checker.h"

#include "checker/fencing_checks.h"

namespace leasesim::checker {

Verdict CheckHistory(const History& history) {
  Verdict verdict;
  CheckStaleTokenWrites(history, verdict);
  CheckDualWriters(history, verdict);
  CheckDuplicateSettlements(history, verdict);
  return verdict;
}

}  // namespace leasesim::checker
