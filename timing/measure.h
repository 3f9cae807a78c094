#pragma once
// What `leasesim timing` measures in one run, from its recorded history:
// each fault that hit the leader and whether the lease moved (and how long
// until a successor led: the failover time) or the leader rode it out, and
// how slow the store calls were against the p99, p999 and request timeout.
// The measures travel through runner::RunSweep as "timing_" figures, so
// runs may go on several threads and still come back in sweep order.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "checker/history.h"
#include "runner/sweep.h"

namespace leasesim::timing {

// The latencies a store call is counted against: the p99 and p999 asked
// for and the derived request timeout, in ms.
struct CallThresholds {
  std::int64_t p99_ms = 0;
  std::int64_t p999_ms = 0;
  std::int64_t timeout_ms = 0;
};

// One run's measures (see the comment atop this file).
struct RunMeasure {
  std::vector<std::int64_t> failover_ms;  // per fault that moved the lease: fault start to the next leader
  std::int64_t kept = 0;         // faults the leader rode out, keeping its lease
  std::int64_t unrecovered = 0;  // faults after which nobody led again before the end
  // Per store outage: from its end until some node led (0: one led across
  // it; -1: nobody by the end of the run).
  std::vector<std::int64_t> recovery_ms;
  std::int64_t calls = 0;        // store calls answered
  std::int64_t over_p99 = 0;     // ... slower than the p99
  std::int64_t over_p999 = 0;    // ... slower than the p999
  std::int64_t unanswered = 0;   // store calls that timed out (outcome unknown)
};

// Failover incidents: crash, pause, suspend, isolate, isolate_from_store
// and partition_oneway records that found their node leading. Recovery is
// measured per store outage itself (the checker's recovery_ms counts from
// the end of the last fault, and a clock drifting from the start is a
// fault that lasts the whole run).
RunMeasure MeasureHistory(const checker::History& history, const CallThresholds& thresholds);

// Into and out of a run's figures ("timing_failover_N_ms", "timing_kept", ...).
void AddMeasureFigures(const RunMeasure& measure, std::map<std::string, std::int64_t>& figures);
RunMeasure MeasureFromFigures(const std::map<std::string, std::int64_t>& figures);

// runner::RunScenario, with the run's measure added to its figures.
runner::RunFunction MeasuringRun(const CallThresholds& thresholds);

// count per hour of `span_ms`, in hundredths (integer arithmetic).
std::int64_t PerHourHundredths(std::int64_t count, std::int64_t span_ms);
std::string FormatHundredths(std::int64_t hundredths);

}  // namespace leasesim::timing
