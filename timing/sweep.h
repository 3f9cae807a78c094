#pragma once
// `leasesim timing --sweep`: what a lease duration costs. For a range of
// durations around the derived one, each with the timing PlanForDuration
// gives it (margins given up, and said so, where the lease is too short to
// keep them), the leader-crash world measures failover and the quiet worlds
// (steady, pauses within budget) measure renewal failures and spurious
// demotions under the given latency. Every figure comes from runs; the same
// inputs and seeds give the same table.

#include <cstdint>
#include <string>
#include <vector>

#include "timing/derive.h"
#include "timing/regions.h"
#include "timing/targets.h"
#include "timing/verify.h"

namespace leasesim::timing {

struct SweepRow {
  std::int64_t duration_ms = 0;
  bool derived = false;     // the duration Derive chose
  bool valid = false;       // some timing passes every rule at this duration
  Plan plan;                // when valid
  std::int64_t failover_p99_ms = 0, failover_max_ms = 0;
  std::int64_t renew_failed_per_hour = 0;        // hundredths, quiet worlds
  std::int64_t spurious_demotions_per_hour = 0;  // hundredths, quiet worlds
  std::int64_t leader_changes_per_hour = 0;      // hundredths, quiet worlds
  std::int64_t violating_runs = 0;
  // Every world's stats: their by_seed_* vectors pair this row with any
  // other seed by seed (the seam for a paired comparison between rows).
  std::vector<WorldStats> worlds;
};

// The durations swept: fractions and multiples of the derived one.
std::vector<std::int64_t> SweepDurations(std::int64_t derived_ms);

std::vector<SweepRow> RunTimingSweep(const Targets& targets, const Derivation& derivation, const RegionsPlan* regions,
                                     const RunPlan& plan);

// The table, one row per duration.
std::string SweepTable(const std::vector<SweepRow>& rows, const Targets& targets, const std::string& seeds_text);

// A small SVG plot: failover p99 (with the target) and spurious demotions
// per hour against the lease duration. Integer coordinates: same rows,
// same bytes.
std::string SweepSvg(const std::vector<SweepRow>& rows, const Targets& targets);

}  // namespace leasesim::timing
