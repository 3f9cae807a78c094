#pragma once
// Runs one scenario for one seed: builds the world (nodes running the core,
// the store and ledger servers, the fault script), runs it to the end, and
// hands the recorded history to the checker.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "checker/history.h"
#include "checker/verdict.h"
#include "runner/scenario.h"
#include "sim/trace.h"

namespace leasesim::runner {

struct RunOptions {
  bool retain_trace = false;    // keep every trace event (replay --trace, divergence)
  bool keep_history = false;    // keep the history in the result
};

struct RunResult {
  std::string scenario;
  std::uint64_t seed = 0;
  std::uint64_t trace_hash = 0;
  std::uint64_t trace_events = 0;
  checker::Verdict verdict;
  // Violations whose kind the scenario did not expect: the run fails on these.
  std::vector<checker::Violation> unexpected;
  bool ok() const { return unexpected.empty(); }
  // Key figures: leaderless time, leader changes, failed renewals, ... (ordered by name).
  std::map<std::string, std::int64_t> figures;
  checker::History history;               // when keep_history
  std::vector<sim::TraceEvent> trace;     // when retain_trace
};

RunResult RunScenario(const Scenario& scenario, std::uint64_t seed, const RunOptions& options = {});

// The points of `required` that fired in none of the runs whose figures are
// given ("fault_point_NAME" counts): a suite whose file sets
// require_fault_points fails when this is not empty, so a fault aimed at a
// point that is never reached cannot give a false green.
std::vector<std::string> FaultPointsNeverFired(const std::vector<std::string>& required,
                                               const std::vector<const std::map<std::string, std::int64_t>*>& figures);

// The probes of `required` (names, or every probe for "all") reached in
// none of the runs whose figures are given: a suite whose file sets
// require_probes fails when this is not empty.
std::vector<std::string> ProbesNeverReached(const std::vector<std::string>& required,
                                            const std::vector<const std::map<std::string, std::int64_t>*>& figures);

// The wall-clock reading of true time 0 on a node with no offset.
inline constexpr sim::Nanos kWallClockBase = 1'767'225'600LL * sim::kNanosPerSecond;  // 2026-01-01

}  // namespace leasesim::runner
