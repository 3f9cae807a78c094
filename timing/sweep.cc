#include "timing/sweep.h"

#include <algorithm>
#include <variant>

#include <absl/strings/str_format.h>

#include "base/percentile.h"
#include "base/units.h"
#include "runner/scenario_parser.h"
#include "timing/explain.h"
#include "timing/worlds.h"

namespace leasesim::timing {
namespace {

// Durations as fractions num/den of the derived one.
constexpr std::int64_t kFractions[][2] = {{1, 8}, {1, 6}, {1, 4}, {1, 3}, {1, 2}, {2, 3}, {1, 1}, {3, 2}, {2, 1}};

void Summarize(SweepRow& row) {
  std::vector<std::int64_t> failover;
  std::int64_t quiet_ms = 0, renew_failed = 0, demotions = 0, changes = 0;
  for (const WorldStats& w : row.worlds) {
    row.violating_runs += w.violating_runs;
    if (w.world.role == WorldRole::kFailover) failover.insert(failover.end(), w.failover_ms.begin(), w.failover_ms.end());
    if (w.world.role != WorldRole::kQuiet) continue;
    quiet_ms += w.sim_ms;
    renew_failed += w.renewals_failed;
    demotions += w.demotions;
    changes += w.leader_changes;
  }
  row.failover_p99_ms = base::NearestRank(failover, 990);
  row.failover_max_ms = base::NearestRank(failover, 1000);
  row.renew_failed_per_hour = PerHourHundredths(renew_failed, quiet_ms);
  row.spurious_demotions_per_hour = PerHourHundredths(demotions, quiet_ms);
  row.leader_changes_per_hour = PerHourHundredths(changes, quiet_ms);
}

SweepRow RunRow(const Targets& targets, std::int64_t duration, bool derived, const RegionsPlan* regions,
                const RunPlan& plan) {
  SweepRow row;
  row.duration_ms = duration;
  row.derived = derived;
  const std::optional<Plan> timing = PlanForDuration(targets, duration, /*relaxed=*/true);
  if (!timing) {
    if (duration > kLeaseMsMax) row.plan.below_margins = "longer than a day, the longest lease considered";
    return row;
  }
  row.valid = true;
  row.plan = *timing;
  const WorldSet worlds =
      SelectWorlds(VerifyWorlds(targets, timing->timing, regions), {kSteadyWorld, kPausesWorld, kCrashWorld});
  const std::string name = "timing-sweep-" + std::to_string(duration) + "ms.json";
  auto parsed = runner::ParseScenarioText(name, worlds.file.dump(2));
  // The worlds are generated from a timing ValidateTiming accepted; a parse
  // error here is a bug in worlds.cc, not bad input.
  if (auto* error = std::get_if<base::InputError>(&parsed)) {
    row.valid = false;
    row.plan.below_margins = "generated worlds refused: " + error->In(name);
    return row;
  }
  const CallThresholds thresholds{targets.EffectiveP99(), targets.EffectiveP999(),
                                  timing->timing.request_timeout / base::kNanosPerMilli};
  row.worlds = RunWorlds(std::get<runner::ScenarioFile>(parsed), worlds, thresholds, plan);
  Summarize(row);
  return row;
}

}  // namespace

std::vector<std::int64_t> SweepDurations(std::int64_t derived_ms) {
  std::vector<std::int64_t> durations;
  for (const auto& [num, den] : kFractions) {
    const std::int64_t d = num == den ? derived_ms : NiceDown(derived_ms * num / den);
    if (d >= 1 && std::find(durations.begin(), durations.end(), d) == durations.end()) durations.push_back(d);
  }
  return durations;
}

std::vector<SweepRow> RunTimingSweep(const Targets& targets, const Derivation& derivation, const RegionsPlan* regions,
                                     const RunPlan& plan) {
  const std::int64_t derived = derivation.timing.lease_duration / base::kNanosPerMilli;
  const std::vector<std::int64_t> durations = SweepDurations(derived);
  std::vector<SweepRow> rows;
  // One count over every row: rows not run yet are taken as big as this one.
  runner::SweepProgress before, last;
  RunPlan row_plan = plan;
  for (std::size_t i = 0; i < durations.size(); ++i) {
    if (plan.on_progress) {
      row_plan.on_progress = [&, rows_left = durations.size() - i](const runner::SweepProgress& progress) {
        last = progress;
        plan.on_progress({.done = before.done + progress.done,
                          .total = before.done + progress.total * rows_left,
                          .failed = before.failed + progress.failed});
      };
    }
    rows.push_back(RunRow(targets, durations[i], durations[i] == derived, regions, row_plan));
    before = {.done = before.done + last.done, .total = 0, .failed = before.failed + last.failed};
    last = {};
  }
  return rows;
}

std::string SweepTable(const std::vector<SweepRow>& rows, const Targets& targets, const std::string& seeds_text) {
  std::string text = "sweep over seeds " + seeds_text + " (failover: " + kCrashWorld + "; renewals and demotions: " +
                     kSteadyWorld + ", " + kPausesWorld + "):\n";
  absl::StrAppendFormat(&text, "  %9s %9s %9s %7s %8s %9s %9s %10s %11s %9s %5s  %s\n", "lease_ms", "interval",
                        "deadline", "retry", "timeout", "fail p99", "fail max", "renew-f/h", "spurious/h", "chg/h", "viol",
                        "notes");
  auto ms = [](base::Nanos ns) { return ns / base::kNanosPerMilli; };
  for (const SweepRow& row : rows) {
    if (!row.valid) {
      absl::StrAppendFormat(&text, "  %9d  no timing passes every rule at this duration%s\n", row.duration_ms,
                            row.plan.below_margins.empty() ? "" : ": ");
      text += row.plan.below_margins + (row.plan.below_margins.empty() ? "" : "\n");
      continue;
    }
    const core::TimingConfig& t = row.plan.timing;
    std::string notes = row.derived ? "derived" : "";
    if (row.failover_p99_ms > targets.failover_target_ms) notes += (notes.empty() ? "" : "; ") + std::string("over target");
    if (!row.plan.within_margins) notes += (notes.empty() ? "" : "; ") + row.plan.below_margins;
    std::string trimmed = absl::StrFormat(
        "  %9d %9d %9d %7d %8d %9s %9s %10s %11s %9s %5d  %s\n", row.duration_ms, ms(t.renew_interval),
        ms(t.renew_deadline), ms(t.retry), ms(t.request_timeout), FormatSeconds(row.failover_p99_ms),
        FormatSeconds(row.failover_max_ms), FormatHundredths(row.renew_failed_per_hour),
        FormatHundredths(row.spurious_demotions_per_hour), FormatHundredths(row.leader_changes_per_hour),
        row.violating_runs, notes);
    while (trimmed.size() > 1 && trimmed[trimmed.size() - 2] == ' ') trimmed.erase(trimmed.size() - 2, 1);
    text += trimmed;
  }
  return text;
}

}  // namespace leasesim::timing
