#include "checker/schedule_checks.h"

#include <limits>
#include <string>

#include "checker/format.h"
#include "checker/violation_kind.h"

namespace leasesim::checker {
namespace {

// Where window `window` ends on the schedule's wall clock; kNeverNs when the
// arithmetic would overflow (a window no clock reading can reach).
TimeNs WindowEnd(const Assumptions& a, std::int64_t window) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (window < 0 || window >= kMax / a.settlement_period_ns - 1) return kNeverNs;
  const std::int64_t span = (window + 1) * a.settlement_period_ns;
  if (a.settlement_epoch_wall_ns > kMax - span) return kNeverNs;
  return a.settlement_epoch_wall_ns + span;
}

}  // namespace

void CheckEarlySettlements(const History& history, Verdict& verdict) {
  const Assumptions& a = history.assumptions;
  if (a.settlement_period_ns <= 0) return;
  for (const LedgerWrite& write : history.ledger_writes) {
    if (write.wall_seen_ns == kNeverNs) continue;
    const TimeNs end = WindowEnd(a, write.window);
    if (end != kNeverNs && write.wall_seen_ns >= end) continue;
    const std::string early = end == kNeverNs ? std::string("although that window never ends")
                                              : FormatTime(end - write.wall_seen_ns) +
                                                    " before that window was over by the latest reading of its own wall clock";
    verdict.violations.push_back(Violation{
        .kind = KindName(ViolationKind::kSettledEarly),
        .message = "Node " + std::to_string(write.node) + " (" + write.holder + ", token " +
                   std::to_string(write.token) + ") sent settlement window " + std::to_string(write.window) +
                   " at " + FormatTime(write.sent_ns) + ", " + early + ": it was not yet due.",
        .at_ns = write.sent_ns,
        .nodes = {write.node},
    });
  }
}

}  // namespace leasesim::checker
