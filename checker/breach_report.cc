#include "checker/breach_report.h"

#include <utility>

#include "checker/format.h"

namespace leasesim::checker {

const FaultRecord* FaultBeyondAssumptionsBy(const History& history, TimeNs at) {
  for (const FaultRecord& fault : history.faults) {
    if (!fault.within_assumptions && fault.start_ns <= at) return &fault;
  }
  return nullptr;
}

BreachReport::BreachReport(const History& history, Verdict& verdict, std::string contract)
    : history_(history), verdict_(verdict), contract_(std::move(contract)) {}

void BreachReport::Breach(ViolationKind kind, TimeNs at, std::vector<int> nodes, const std::string& what) {
  if (const FaultRecord* cause = FaultBeyondAssumptionsBy(history_, at); cause != nullptr) {
    if (++excused_ <= kMaxBreachesSpelledOut) {
      verdict_.notes.push_back(contract_ + " broken, expected: " + what + "; the " + cause->kind + " fault at " +
                               FormatTime(cause->start_ns) + " exceeded the stated assumptions.");
    }
    return;
  }
  if (++found_ > kMaxBreachesSpelledOut) return;
  verdict_.violations.push_back(Violation{.kind = KindName(kind),
                                          .message = what + ", although every fault stayed within the stated "
                                                            "assumptions.",
                                          .at_ns = at,
                                          .nodes = std::move(nodes)});
}

void BreachReport::Excused(const std::string& what, const std::string& why) {
  if (++excused_ <= kMaxBreachesSpelledOut) verdict_.notes.push_back(contract_ + " broken, excused: " + what + "; " + why + ".");
}

BreachReport::~BreachReport() {
  if (found_ > kMaxBreachesSpelledOut) {
    verdict_.notes.push_back(std::to_string(found_ - kMaxBreachesSpelledOut) + " further breaches of the " +
                             contract_ + " not listed.");
  }
}

}  // namespace leasesim::checker
