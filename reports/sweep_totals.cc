#include "reports/sweep_totals.h"

#include <algorithm>
#include <utility>

namespace leasesim::reports {

void FigureRange::Add(std::int64_t value) {
  min = runs == 0 ? value : std::min(min, value);
  max = runs == 0 ? value : std::max(max, value);
  sum += value;
  runs += 1;
}

SweepTotals::SweepTotals(std::vector<std::string> scenarios, std::size_t failing_kept)
    : scenarios_(std::move(scenarios)), by_scenario_(scenarios_.size()), failing_kept_(failing_kept) {}

SweepTotals SweepTotals::Of(const SweepSummary& sweep) {
  SweepTotals totals(sweep.scenarios, sweep.runs.size());
  for (const RunSummary& run : sweep.runs) totals.Add(run);
  return totals;
}

std::size_t SweepTotals::IndexOf(const std::string& scenario) const {
  // Runs come in scenario order, so the search almost always ends at once.
  for (std::size_t i = last_index_; i < scenarios_.size(); ++i) {
    if (scenarios_[i] == scenario) return i;
  }
  for (std::size_t i = 0; i < last_index_ && i < scenarios_.size(); ++i) {
    if (scenarios_[i] == scenario) return i;
  }
  return scenarios_.size();
}

void SweepTotals::Add(const RunSummary& run) {
  runs_ += 1;
  if (!run.ok) {
    failed_ += 1;
    if (first_failing_.size() < failing_kept_) first_failing_.push_back(run);
  }
  const std::size_t index = IndexOf(run.scenario);
  if (index == scenarios_.size()) return;  // a run of no listed scenario counts in the totals only
  last_index_ = index;
  ScenarioTotals& totals = by_scenario_[index];
  totals.runs += 1;
  if (!run.ok) {
    totals.failed += 1;
    totals.failed_seeds.push_back(run.seed);
  }
  for (const auto& [name, value] : run.figures) totals.figures[name].Add(value);
}

std::map<std::string, std::int64_t> SweepTotals::FigureMaxima() const {
  std::map<std::string, std::int64_t> maxima;
  for (const ScenarioTotals& totals : by_scenario_) {
    for (const auto& [name, range] : totals.figures) {
      auto [it, fresh] = maxima.emplace(name, range.max);
      if (!fresh) it->second = std::max(it->second, range.max);
    }
  }
  return maxima;
}

}  // namespace leasesim::reports
