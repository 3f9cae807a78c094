#include "timing/verify.h"

#include <algorithm>
#include <map>

#include <absl/strings/str_format.h>

#include "base/percentile.h"
#include "base/units.h"
#include "runner/sweep.h"
#include "timing/explain.h"

namespace leasesim::timing {
namespace {

constexpr std::size_t kViolationsListedPerWorld = 5;

std::int64_t Figure(const std::map<std::string, std::int64_t>& figures, const std::string& name) {
  const auto it = figures.find(name);
  return it == figures.end() ? 0 : it->second;
}

// Sums of the figures whose name starts with `prefix`, but for `except`.
std::int64_t SumPrefixed(const std::map<std::string, std::int64_t>& figures, const std::string& prefix,
                         std::initializer_list<const char*> except = {}) {
  std::int64_t sum = 0;
  for (const auto& [name, value] : figures) {
    if (name.rfind(prefix, 0) != 0) continue;
    bool skip = false;
    for (const char* e : except) skip = skip || name == e;
    if (!skip) sum += value;
  }
  return sum;
}

void AddRun(WorldStats& stats, const runner::RunResult& result, std::int64_t duration_ms, const std::string& file) {
  const std::map<std::string, std::int64_t>& f = result.figures;
  const RunMeasure m = MeasureFromFigures(f);
  stats.runs += 1;
  stats.sim_ms += duration_ms;
  stats.failover_ms.insert(stats.failover_ms.end(), m.failover_ms.begin(), m.failover_ms.end());
  stats.kept += m.kept;
  stats.unrecovered += m.unrecovered;
  stats.leaderless_ms += Figure(f, "leaderless_ms");
  stats.leaderless_ms_max = std::max(stats.leaderless_ms_max, Figure(f, "leaderless_ms"));
  stats.renewals_failed += SumPrefixed(f, "renew_failed_");
  stats.renewals_ok += Figure(f, "renewals_ok");
  const std::int64_t demotions = SumPrefixed(f, "demotions_", {"demotions_crash", "demotions_released"});
  stats.demotions += demotions;
  stats.by_seed_demotions.push_back(demotions);
  stats.by_seed_failover_max_ms.push_back(
      m.failover_ms.empty() ? 0 : *std::max_element(m.failover_ms.begin(), m.failover_ms.end()));
  stats.leader_changes += std::max<std::int64_t>(0, Figure(f, "leader_terms") - 1);
  if (stats.world.role == WorldRole::kOutage) {
    for (std::int64_t ms : m.recovery_ms) {
      if (ms < 0) stats.unrecovered += 1;
      if (ms >= 0) stats.recovery_ms.push_back(ms);
    }
  }
  bool beyond = false;
  for (const std::string& note : result.verdict.notes) beyond = beyond || note.find("expected") != std::string::npos;
  stats.beyond_runs += beyond ? 1 : 0;
  stats.calls += m.calls;
  stats.over_p99 += m.over_p99;
  stats.over_p999 += m.over_p999;
  stats.unanswered += m.unanswered;
  if (result.ok()) return;
  stats.violating_runs += 1;
  if (stats.violations.size() >= kViolationsListedPerWorld) return;
  const checker::Violation& first = result.unexpected.front();
  stats.violations.push_back("seed " + std::to_string(result.seed) + ": " + first.kind + ": " + first.message +
                             "\n      replay: " + runner::ReplayCommand(file, result.scenario, result.seed));
}

std::string Percent(std::int64_t part, std::int64_t whole) {
  return FormatHundredths(whole == 0 ? 0 : part * 10'000 / whole) + "%";  // hundredths of a percent
}

std::string FailoverCells(std::vector<std::int64_t> samples) {
  if (samples.empty()) return "           -        -        -";
  const std::int64_t p50 = base::NearestRank(samples, 500), p99 = base::NearestRank(samples, 990),
                     max = base::NearestRank(samples, 1000);
  return absl::StrFormat("%6d %8s %8s %8s", samples.size(), FormatSeconds(p50), FormatSeconds(p99), FormatSeconds(max));
}

std::string WorldLine(const WorldStats& w) {
  return absl::StrFormat("  %-34s %-8s %5d %s %9s %8s %8s %7s %6d %5d\n", w.world.name, WorldRoleName(w.world.role),
                         w.runs, FailoverCells(w.failover_ms), FormatSeconds(w.runs == 0 ? 0 : w.leaderless_ms / w.runs),
                         FormatHundredths(PerHourHundredths(w.renewals_failed, w.sim_ms)),
                         FormatHundredths(PerHourHundredths(w.leader_changes, w.sim_ms)),
                         FormatHundredths(PerHourHundredths(w.demotions, w.sim_ms)), w.kept, w.violating_runs);
}

}  // namespace

std::vector<WorldStats> RunWorlds(const runner::ScenarioFile& file, const WorldSet& set, const CallThresholds& thresholds,
                                  const RunPlan& plan) {
  std::vector<WorldStats> stats;
  std::map<std::string, std::size_t> index;
  std::map<std::string, std::int64_t> duration_ms;
  std::vector<const runner::Scenario*> scenarios;
  for (const runner::Scenario& scenario : file.scenarios) {
    scenarios.push_back(&scenario);
    duration_ms[scenario.name] = scenario.duration / base::kNanosPerMilli;
  }
  for (const World& world : set.worlds) {
    index[world.name] = stats.size();
    stats.push_back(WorldStats{.world = world});
  }
  runner::SweepOptions options;
  options.jobs = plan.jobs;
  options.protocol = plan.protocol;
  options.timelines_max = 0;
  options.run = MeasuringRun(thresholds);
  runner::RunSweep(file, scenarios, plan.seeds, plan.seeds_text, options, [&](const runner::RunResult& result) {
    const auto it = index.find(result.scenario);
    if (it != index.end()) AddRun(stats[it->second], result, duration_ms[result.scenario], file.path);
  }, plan.on_progress);
  return stats;
}

VerifyVerdict Judge(const std::vector<WorldStats>& worlds, const Targets& targets, std::int64_t bound_ms) {
  VerifyVerdict verdict;
  verdict.no_violation = true;
  verdict.recovery_met = true;
  std::int64_t unrecovered = 0;
  for (const WorldStats& w : worlds) {
    verdict.no_violation = verdict.no_violation && w.violating_runs == 0;
    if (w.world.role == WorldRole::kOutage) {
      verdict.recovery_met = verdict.recovery_met && w.unrecovered == 0;
      for (std::int64_t ms : w.recovery_ms) verdict.recovery_met = verdict.recovery_met && ms <= bound_ms;
    }
    if (w.world.role != WorldRole::kFailover) continue;
    verdict.failover_ms.insert(verdict.failover_ms.end(), w.failover_ms.begin(), w.failover_ms.end());
    unrecovered += w.unrecovered;
  }
  std::vector<std::int64_t> samples = verdict.failover_ms;
  verdict.target_met =
      !samples.empty() && unrecovered == 0 && base::NearestRank(samples, 990) <= targets.failover_target_ms;
  return verdict;
}

namespace {

std::string WorldTable(const std::vector<WorldStats>& worlds) {
  std::string text;
  absl::StrAppendFormat(&text, "  %-34s %-8s %5s %6s %8s %8s %8s %9s %8s %8s %7s %6s %5s\n", "world", "role", "runs",
                        "fails", "p50", "p99", "max", "leaderless", "renew-", "leader", "demote", "kept", "viol");
  absl::StrAppendFormat(&text, "  %-34s %-8s %5s %6s %8s %8s %8s %9s %8s %8s %7s %6s %5s\n", "", "", "", "over",
                        "failover", "failover", "failover", "per run", "fail/h", "chg/h", "/h", "", "runs");
  for (const WorldStats& w : worlds) text += WorldLine(w);
  return text;
}

// The store calls against the percentiles asked for.
std::string CallsLine(const std::vector<WorldStats>& worlds, const CallThresholds& thresholds) {
  WorldStats all;
  for (const WorldStats& w : worlds) {
    all.calls += w.calls, all.over_p99 += w.over_p99, all.over_p999 += w.over_p999, all.unanswered += w.unanswered;
  }
  return "store calls: " + std::to_string(all.calls) + " answered; slower than the p99 (" +
         std::to_string(thresholds.p99_ms) + " ms): " + Percent(all.over_p99, all.calls) + ", than the p999 (" +
         std::to_string(thresholds.p999_ms) + " ms): " + Percent(all.over_p999, all.calls) + "; " +
         std::to_string(all.unanswered) + " timed out or unanswered\n";
}

std::string QuietLine(const std::vector<WorldStats>& worlds) {
  WorldStats quiet;
  for (const WorldStats& w : worlds) {
    if (w.world.role != WorldRole::kQuiet) continue;
    quiet.sim_ms += w.sim_ms, quiet.renewals_failed += w.renewals_failed, quiet.demotions += w.demotions;
    quiet.leader_changes += w.leader_changes;
  }
  return "quiet worlds: renewals failed " + FormatHundredths(PerHourHundredths(quiet.renewals_failed, quiet.sim_ms)) +
         "/h, spurious demotions " + FormatHundredths(PerHourHundredths(quiet.demotions, quiet.sim_ms)) +
         "/h, leader changes " + FormatHundredths(PerHourHundredths(quiet.leader_changes, quiet.sim_ms)) + "/h\n";
}

std::string RecoveryLine(const std::vector<WorldStats>& worlds, const VerifyVerdict& verdict, std::int64_t bound_ms) {
  std::vector<std::int64_t> recovery;
  for (const WorldStats& w : worlds) recovery.insert(recovery.end(), w.recovery_ms.begin(), w.recovery_ms.end());
  if (recovery.empty()) return "";
  const std::int64_t p50 = base::NearestRank(recovery, 500), p99 = base::NearestRank(recovery, 990),
                     max = base::NearestRank(recovery, 1000);
  return "recovery after a long store outage: p50 " + FormatSeconds(p50) + ", p99 " + FormatSeconds(p99) + ", max " +
         FormatSeconds(max) + (verdict.recovery_met ? " within" : " NOT within") + " the recovery bound " +
         FormatSeconds(bound_ms) + "\n";
}

// Beyond-assumption worlds as such, then every violation with its replay command.
std::string BeyondAndViolations(const std::vector<WorldStats>& worlds, std::int64_t& violating) {
  std::string text;
  for (const WorldStats& w : worlds) {
    if (w.world.role != WorldRole::kBeyond) continue;
    text += "beyond the assumptions, " + w.world.name + ": " + std::to_string(w.beyond_runs) + " of " +
            std::to_string(w.runs) + " runs overlapped or wrote late as expected, every one fenced unless listed below\n";
  }
  for (const WorldStats& w : worlds) {
    violating += w.violating_runs;
    for (const std::string& line : w.violations) text += "  VIOLATION " + w.world.name + " " + line + "\n";
  }
  return text + "violations: " + (violating == 0 ? std::string("none") : std::to_string(violating) + " runs") + "\n";
}

}  // namespace

std::string VerifyText(const std::vector<WorldStats>& worlds, const Targets& targets, std::int64_t bound_ms,
                       const CallThresholds& thresholds, const std::string& seeds_text) {
  const VerifyVerdict verdict = Judge(worlds, targets, bound_ms);
  std::vector<std::int64_t> samples = verdict.failover_ms;
  const std::int64_t p50 = base::NearestRank(samples, 500), p99 = base::NearestRank(samples, 990);
  const std::int64_t max = base::NearestRank(samples, 1000);
  std::string text = "verify over seeds " + seeds_text + ":\n" + WorldTable(worlds) +
                     CallsLine(worlds, thresholds);
  text += "failover (within the assumptions, " + std::to_string(samples.size()) + " leader losses): p50 " +
          FormatSeconds(p50) + ", p99 " + FormatSeconds(p99) + ", max " + FormatSeconds(max) + "; target " +
          FormatSeconds(targets.failover_target_ms) + (verdict.target_met ? " met" : " NOT met") +
          "; worst case by the rules " + FormatSeconds(bound_ms) + "\n";
  text += QuietLine(worlds) + RecoveryLine(worlds, verdict, bound_ms);
  std::int64_t violating = 0;
  text += BeyondAndViolations(worlds, violating);
  text += std::string(verdict.passed() ? "VERIFIED" : "NOT VERIFIED") + ": failover p99 " + FormatSeconds(p99) +
          (verdict.target_met ? " <= " : " vs ") + FormatSeconds(targets.failover_target_ms) + " target, " +
          (violating == 0 ? "no violation" : std::to_string(violating) + " violating runs") +
          (verdict.recovery_met ? "" : ", slow recovery after a store outage") + "\n";
  return text;
}

}  // namespace leasesim::timing
