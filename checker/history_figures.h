#pragma once
// Key figures of a run, derived from its history alone, so simulated and
// live runs report the same numbers the same way: leaderless time, leader
// terms, demotions by reason, ledger outcomes, store operations, recovery.

#include <cstdint>
#include <map>
#include <string>

#include "checker/history.h"
#include "checker/history_index.h"

namespace leasesim::checker {

// Ordered by name. Times in milliseconds ("_ms").
std::map<std::string, std::int64_t> HistoryFigures(const History& history);
// The same over an index of the history (see CheckHistory).
std::map<std::string, std::int64_t> HistoryFigures(const HistoryIndex& index);

// Time from the end of the last fault until some node led again: 0 when a
// leader held throughout, -1 when none led again before the end.
std::int64_t RecoveryMs(const History& history);

}  // namespace leasesim::checker
