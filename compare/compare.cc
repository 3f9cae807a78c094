#include "compare/compare.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <set>

#include "base/percentile.h"

namespace leasesim::compare {
namespace {

using reports::RunSummary;
using reports::ViolationSummary;

std::vector<ViolationSummary> Unexpected(const RunSummary& run) {
  std::vector<ViolationSummary> kept;
  for (const ViolationSummary& violation : run.violations) {
    if (!violation.expected) kept.push_back(violation);
  }
  return kept;
}

std::vector<const RunSummary*> RunsOf(const Side& side, const std::string& scenario) {
  std::vector<const RunSummary*> runs;
  for (const RunSummary& run : side.sweep.runs) {
    if (run.scenario == scenario) runs.push_back(&run);
  }
  std::sort(runs.begin(), runs.end(), [](const RunSummary* a, const RunSummary* b) { return a->seed < b->seed; });
  return runs;
}

// Paired by seed (PairSides made sure both sides hold the same seeds).
void CompareSeeds(const std::vector<const RunSummary*>& base, const std::vector<const RunSummary*>& next,
                  ScenarioComparison& out) {
  assert(base.size() == next.size());
  for (std::size_t i = 0; i < base.size(); ++i) {
    assert(base[i]->seed == next[i]->seed);
    out.traces_differ += base[i]->trace_hash != next[i]->trace_hash ? 1 : 0;
    if (base[i]->ok && next[i]->ok) continue;
    const RunSummary& shown = next[i]->ok ? *base[i] : *next[i];
    SeedChange change{shown.seed, Unexpected(shown), shown.replay_command};
    if (base[i]->ok) {
      out.newly_failing.push_back(std::move(change));
    } else if (next[i]->ok) {
      out.fixed.push_back(std::move(change));
    } else {
      out.still_failing.push_back(std::move(change));
    }
  }
}

std::set<std::string> KindsOf(const std::vector<const RunSummary*>& runs) {
  std::set<std::string> kinds;
  for (const RunSummary* run : runs) {
    for (const ViolationSummary& violation : Unexpected(*run)) kinds.insert(violation.kind);
  }
  return kinds;
}

// Live runs are not paired: a failing run is "new" when its side shows a
// violation kind the other side never did.
void CompareLiveVerdicts(const std::vector<const RunSummary*>& base, const std::vector<const RunSummary*>& next,
                         ScenarioComparison& out) {
  const std::set<std::string> base_kinds = KindsOf(base);
  const std::set<std::string> next_kinds = KindsOf(next);
  auto has_kind_outside = [](const RunSummary& run, const std::set<std::string>& other) {
    for (const ViolationSummary& violation : Unexpected(run)) {
      if (!other.contains(violation.kind)) return true;
    }
    return false;
  };
  for (const RunSummary* run : next) {
    if (run->ok) continue;
    SeedChange change{run->seed, Unexpected(*run), run->replay_command};
    (has_kind_outside(*run, base_kinds) ? out.newly_failing : out.still_failing).push_back(std::move(change));
  }
  for (const RunSummary* run : base) {
    if (!run->ok && has_kind_outside(*run, next_kinds)) out.fixed.push_back({run->seed, Unexpected(*run), run->replay_command});
  }
}

std::vector<std::string> FigureNames(const std::vector<const RunSummary*>& base,
                                     const std::vector<const RunSummary*>& next) {
  std::set<std::string> names;
  for (const auto* runs : {&base, &next}) {
    for (const RunSummary* run : *runs) {
      for (const auto& [name, value] : run->figures) names.insert(name);
    }
  }
  return {names.begin(), names.end()};
}

// A figure's values in run order. In a sweep an absent figure is 0 (the
// summary leaves zeros out); a live run that lacks it did not measure it.
std::vector<std::int64_t> Values(const std::vector<const RunSummary*>& runs, const std::string& figure, bool live) {
  std::vector<std::int64_t> values;
  for (const RunSummary* run : runs) {
    const auto it = run->figures.find(figure);
    if (it != run->figures.end()) {
      values.push_back(it->second);
    } else if (!live) {
      values.push_back(0);
    }
  }
  return values;
}

Distribution Describe(const std::vector<std::int64_t>& values, std::int64_t never_value) {
  Distribution d;
  d.runs = static_cast<int>(values.size());
  if (values.empty()) return d;
  d.median = Median(values);
  d.p90 = base::NearestRank(values, 900);
  d.p99 = base::NearestRank(values, 990);
  d.max = base::NearestRank(values, 1000);
  double sum = 0;
  for (std::int64_t v : values) {
    sum += static_cast<double>(v);
    d.never += never_value != 0 && v == never_value ? 1 : 0;
  }
  d.mean = sum / static_cast<double>(values.size());
  return d;
}

// -1 ("never") ranked one above every value either side saw.
std::int64_t MapNever(std::vector<std::int64_t>& base, std::vector<std::int64_t>& next) {
  std::int64_t highest = 0;
  bool any = false;
  for (const auto* values : {&base, &next}) {
    for (std::int64_t v : *values) {
      any = any || v == -1;
      if (v != -1) highest = std::max(highest, v);
    }
  }
  if (!any) return 0;
  for (auto* values : {&base, &next}) std::replace(values->begin(), values->end(), std::int64_t{-1}, highest + 1);
  return highest + 1;
}

FigureRow MakeRow(const std::string& scenario, const std::string& figure, std::vector<std::int64_t> base,
                  std::vector<std::int64_t> next, bool paired, const CompareOptions& options) {
  FigureRow row{.scenario = scenario, .figure = figure, .info = DescribeFigure(figure), .paired = paired};
  row.tolerance = ToleranceFor(figure, options.tolerances);
  if (row.info.minus_one_is_never) row.never_value = MapNever(base, next);
  row.base = Describe(base, row.never_value);
  row.next = Describe(next, row.never_value);
  if (paired) {
    std::vector<std::int64_t> differences;
    double sum = 0;
    for (std::size_t i = 0; i < base.size(); ++i) {
      differences.push_back(next[i] - base[i]);
      row.differing += next[i] != base[i] ? 1 : 0;
      sum += static_cast<double>(next[i] - base[i]);
    }
    if (row.differing == 0) return row;
    row.signed_rank = WilcoxonSignedRank(differences);
    row.p = row.signed_rank.p.value;
    row.shift = row.signed_rank.hodges_lehmann;
    row.rank_biserial = row.signed_rank.rank_biserial;
    row.mean_change = sum / static_cast<double>(differences.size());
  } else {
    std::sort(base.begin(), base.end());
    std::sort(next.begin(), next.end());
    if (base == next || base.empty() || next.empty()) return row;
    row.differing = 1;
    row.rank_sum = MannWhitney(base, next);
    row.p = row.rank_sum.p.value;
    row.shift = row.rank_sum.hodges_lehmann;
    row.rank_biserial = row.rank_sum.rank_biserial;
    row.mean_change = row.next.mean - row.base.mean;
  }
  row.verdict = FigureVerdict::kNotSignificant;
  row.relative = row.base.mean != 0 ? row.mean_change / std::fabs(row.base.mean) : 0;
  return row;
}

bool BeyondTolerance(const FigureRow& row) {
  // More or fewer runs that never got there (never recovered) is beyond any tolerance.
  if (row.never_value != 0 && row.base.never != row.next.never) return true;
  const double change = std::fabs(row.mean_change);
  if (!row.tolerance.relative) return change > static_cast<double>(row.tolerance.absolute);
  if (row.base.mean == 0) return change > 0;
  return change * 100'000.0 > static_cast<double>(row.tolerance.milli_percent) * std::fabs(row.base.mean);
}

// The verdict of a tested row, given its adjusted p-value.
FigureVerdict Judge(const FigureRow& row, double alpha) {
  if (row.p_adjusted > alpha) return FigureVerdict::kNotSignificant;
  if (!BeyondTolerance(row)) return FigureVerdict::kWithinTolerance;
  if (row.info.direction == Direction::kNeutral) return FigureVerdict::kShifted;
  const bool higher = row.rank_biserial > 0 && row.mean_change > 0;
  const bool lower = row.rank_biserial < 0 && row.mean_change < 0;
  const bool lower_is_better = row.info.direction == Direction::kLowerIsBetter;
  if ((higher && lower_is_better) || (lower && !lower_is_better)) return FigureVerdict::kRegressed;
  if (higher || lower) return FigureVerdict::kImproved;
  return FigureVerdict::kWithinTolerance;  // the ranks and the mean disagree on the direction
}

// Holm over the tested rows of each family (directional; neutral), then verdicts.
void JudgeAll(std::vector<ScenarioComparison>& scenarios, double alpha) {
  for (const bool neutral : {false, true}) {
    std::vector<FigureRow*> family;
    for (ScenarioComparison& scenario : scenarios) {
      for (FigureRow& row : scenario.figures) {
        if (row.verdict == FigureVerdict::kSame) continue;
        if ((row.info.direction == Direction::kNeutral) == neutral) family.push_back(&row);
      }
    }
    std::vector<double> p_values;
    for (const FigureRow* row : family) p_values.push_back(row->p);
    const std::vector<double> adjusted = HolmAdjust(p_values);
    for (std::size_t i = 0; i < family.size(); ++i) {
      family[i]->p_adjusted = adjusted[i];
      family[i]->verdict = Judge(*family[i], alpha);
    }
  }
}

ScenarioComparison CompareScenario(const Side& base, const Side& next, const std::string& name,
                                   const CompareOptions& options) {
  const std::vector<const RunSummary*> base_runs = RunsOf(base, name);
  const std::vector<const RunSummary*> next_runs = RunsOf(next, name);
  ScenarioComparison out{.name = name, .runs = static_cast<int>(base_runs.size()),
                         .next_runs = static_cast<int>(next_runs.size())};
  const bool paired = !base.live;
  if (paired) {
    CompareSeeds(base_runs, next_runs, out);
  } else {
    CompareLiveVerdicts(base_runs, next_runs, out);
  }
  for (const std::string& figure : FigureNames(base_runs, next_runs)) {
    out.figures.push_back(MakeRow(name, figure, Values(base_runs, figure, base.live),
                                  Values(next_runs, figure, next.live), paired, options));
  }
  return out;
}

}  // namespace

const char* FigureVerdictName(FigureVerdict verdict) {
  switch (verdict) {
    case FigureVerdict::kSame: return "same";
    case FigureVerdict::kNotSignificant: return "not significant";
    case FigureVerdict::kWithinTolerance: return "within tolerance";
    case FigureVerdict::kImproved: return "improved";
    case FigureVerdict::kRegressed: return "REGRESSED";
    case FigureVerdict::kShifted: return "shifted (not gated)";
  }
  return "same";
}

int Comparison::newly_failing() const {
  int count = 0;
  for (const ScenarioComparison& s : scenarios) count += static_cast<int>(s.newly_failing.size());
  return count;
}

int Comparison::fixed() const {
  int count = 0;
  for (const ScenarioComparison& s : scenarios) count += static_cast<int>(s.fixed.size());
  return count;
}

int Comparison::still_failing() const {
  int count = 0;
  for (const ScenarioComparison& s : scenarios) count += static_cast<int>(s.still_failing.size());
  return count;
}

int Comparison::CountFigures(FigureVerdict verdict) const {
  int count = 0;
  for (const ScenarioComparison& s : scenarios) {
    for (const FigureRow& row : s.figures) count += row.verdict == verdict ? 1 : 0;
  }
  return count;
}

int Comparison::runs() const {
  int count = 0;
  for (const ScenarioComparison& s : scenarios) count += s.runs;
  return count;
}

bool Comparison::identical() const {
  for (const ScenarioComparison& s : scenarios) {
    if (!s.newly_failing.empty() || !s.fixed.empty() || s.runs != s.next_runs) return false;
    for (const FigureRow& row : s.figures) {
      if (row.verdict != FigureVerdict::kSame) return false;
    }
  }
  return true;
}

int Comparison::ExitCode() const {
  return newly_failing() > 0 || CountFigures(FigureVerdict::kRegressed) > 0 ? kExitWorse : kExitNotWorse;
}

std::variant<Comparison, base::InputError> Compare(const Side& base, const Side& next, const CompareOptions& options) {
  const Pairing pairing = PairSides(base, next, options.allow_scenario_change);
  if (pairing.refusal) return *pairing.refusal;
  Comparison comparison{.base_directory = base.directory, .next_directory = next.directory,
                        .base_protocol = base.sweep.protocol, .next_protocol = next.sweep.protocol,
                        .scenario_file = next.sweep.scenario_file, .seeds = next.sweep.seeds,
                        .live = base.live, .options = options, .notes = pairing.notes};
  for (const std::string& name : pairing.scenarios) {
    comparison.scenarios.push_back(CompareScenario(base, next, name, options));
  }
  JudgeAll(comparison.scenarios, options.alpha);
  return comparison;
}

std::variant<Comparison, base::InputError> CompareDirectories(const std::string& base, const std::string& next,
                                                              const CompareOptions& options) {
  auto base_side = LoadSide(base);
  if (auto* error = std::get_if<std::string>(&base_side)) return base::InputError{"BASE_DIR", std::move(*error)};
  auto next_side = LoadSide(next);
  if (auto* error = std::get_if<std::string>(&next_side)) return base::InputError{"NEW_DIR", std::move(*error)};
  return Compare(std::get<Side>(base_side), std::get<Side>(next_side), options);
}

}  // namespace leasesim::compare
