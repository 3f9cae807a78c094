#include "checker/liveness_checks.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "base/units.h"
#include "checker/format.h"

namespace leasesim::checker {
namespace {

// When the last fault ended, or kNeverNs if some fault never ended within the
// run. 0 when there were no faults.
TimeNs LastFaultEnd(const History& history) {
  TimeNs last = 0;
  for (const FaultRecord& fault : history.faults) {
    const TimeNs end = std::max(fault.start_ns, fault.end_ns);
    if (fault.end_ns == kNeverNs || end > history.end_ns) return kNeverNs;
    last = std::max(last, end);
  }
  return last;
}

}  // namespace

void CheckMissedSettlements(const History& history, Verdict& verdict) {
  const Assumptions& a = history.assumptions;
  if (a.settlement_period_ns <= 0 || a.recovery_bound_ns <= 0 || history.due_windows.empty()) return;
  const TimeNs healed = LastFaultEnd(history);
  if (healed == kNeverNs) return;
  if (healed > history.end_ns - a.recovery_bound_ns - 2 * a.settlement_period_ns) return;
  const TimeNs judged_until = history.end_ns - a.recovery_bound_ns - a.settlement_period_ns;

  std::vector<std::int64_t> applied;  // windows, sorted
  for (const LedgerWrite& write : history.ledger_writes) {
    if (write.result == LedgerResult::kApplied) applied.push_back(write.window);
  }
  if (!std::is_sorted(applied.begin(), applied.end())) std::sort(applied.begin(), applied.end());
  const bool have_times = history.due_window_ns.size() == history.due_windows.size();
  std::set<std::int64_t> reported;
  for (std::size_t i = 0; i < history.due_windows.size(); ++i) {
    const std::int64_t window = history.due_windows[i];
    const TimeNs due = have_times ? history.due_window_ns[i] : (window + 1) * a.settlement_period_ns;
    // The schedule runs on the settling node's wall clock, which may lag
    // true time by the drift bound times the time run so far (a host with
    // no NTP client): a window falls due that much later for it, due / (1 -
    // bound) - due.
    const TimeNs lag = base::TrueSpanAtSlowest(due, a.drift_bound_ppm) - due;
    if (due + lag >= judged_until || std::binary_search(applied.begin(), applied.end(), window) || !reported.insert(window).second) continue;
    std::vector<int> nodes;
    std::string attempts;
    int count = 0;
    for (const LedgerWrite& write : history.ledger_writes) {
      if (write.window != window) continue;
      ++count;
      if (std::find(nodes.begin(), nodes.end(), write.node) == nodes.end()) nodes.push_back(write.node);
    }
    attempts = count == 0 ? "no node ever attempted it"
                          : std::to_string(count) + " attempt(s) were made, none applied";
    verdict.violations.push_back(Violation{
        .kind = KindName(ViolationKind::kMissedSettlement),
        .message = "Settlement window " + std::to_string(window) + " fell due at " + FormatTime(due) +
                   " but was never applied (" + attempts + "), although the last fault ended at " +
                   FormatTime(healed) + " and the run went on to " + FormatTime(history.end_ns) + ".",
        .at_ns = due,
        .nodes = nodes,
    });
  }
}

void CheckSlowRecovery(const History& history, Verdict& verdict) {
  const TimeNs bound = history.assumptions.recovery_bound_ns;
  if (history.faults.empty() || bound <= 0) return;
  const TimeNs healed = LastFaultEnd(history);
  if (healed == kNeverNs || healed > history.end_ns - bound) return;
  const TimeNs deadline = healed + bound;
  TimeNs first_after = kNeverNs;
  for (const LeadershipBelief& belief : history.beliefs) {
    const TimeNs until = belief.until_ns == kNeverNs ? history.end_ns : belief.until_ns;
    if (belief.from_ns <= deadline && until > healed) return;  // a leader within the bound
    if (belief.from_ns > deadline) first_after = std::min(first_after, belief.from_ns);
  }
  verdict.violations.push_back(Violation{
      .kind = KindName(ViolationKind::kSlowRecovery),
      .message = "No node held the lease between the end of the last fault at " + FormatTime(healed) +
                 " and the recovery bound at " + FormatTime(deadline) + " (" + FormatTime(bound) +
                 " later); " +
                 (first_after == kNeverNs ? std::string("no leader emerged before the run ended at ") +
                                                FormatTime(history.end_ns) + "."
                                          : "the next leader took over only at " + FormatTime(first_after) + "."),
      .at_ns = deadline,
      .nodes = {},
  });
}

}  // namespace leasesim::checker
