#pragma once
// How a check of a contract reports its breaches: as violations while every
// fault begun by then stayed within the stated assumptions, as notes once
// one beyond them had begun (such a breach is expected), the first few
// spelled out and the rest counted. Shared by the lease contract's checks
// and the service contract's, so both explain themselves alike.

#include <string>
#include <vector>

#include "checker/history.h"
#include "checker/verdict.h"
#include "checker/violation_kind.h"

namespace leasesim::checker {

// A fault beyond the stated assumptions begun by `at`: what excuses a breach.
const FaultRecord* FaultBeyondAssumptionsBy(const History& history, TimeNs at);

// One contract's breaches as they are found: violations, notes, and the counts
// of those not spelled out.
class BreachReport {
 public:
  // `contract` names what is broken in notes ("lease contract", ...).
  BreachReport(const History& history, Verdict& verdict, std::string contract);
  BreachReport(const BreachReport&) = delete;
  BreachReport& operator=(const BreachReport&) = delete;
  ~BreachReport();

  // `what` says what happened, as a sentence without its end.
  void Breach(ViolationKind kind, TimeNs at, std::vector<int> nodes, const std::string& what);
  // A breach the history explains otherwise (`why`, a sentence without its
  // end): a note, never a violation.
  void Excused(const std::string& what, const std::string& why);

 private:
  static constexpr int kMaxBreachesSpelledOut = 5;

  const History& history_;
  Verdict& verdict_;
  std::string contract_;
  int found_ = 0;
  int excused_ = 0;
};

}  // namespace leasesim::checker
