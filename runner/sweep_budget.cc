#include "runner/sweep_budget.h"

#include <algorithm>
#include <cassert>
#include <map>

#include "runner/seeds.h"
#include "runner/suite_judge.h"

namespace leasesim::runner {
namespace {

constexpr std::size_t kBatchesMax = 10'000'000;  // one seed each at the least

// The first failing runs' timelines in sweep order (scenario order, then
// seed order) over the batches so far, at most `max`.
class FirstTimelines {
 public:
  FirstTimelines(const std::vector<std::string>& scenarios, std::size_t max) : max_(max) {
    for (std::size_t i = 0; i < scenarios.size(); ++i) scenario_position_.emplace(scenarios[i], i);
  }

  // A batch's seeds are drawn after every earlier batch's. Each batch kept
  // its own first failing runs, which include every one of the whole
  // sweep's first `max` that lies in it.
  void Add(const std::vector<std::uint64_t>& seeds, std::vector<reports::Timeline> batch) {
    for (const std::uint64_t seed : seeds) seed_position_.emplace(seed, seed_position_.size());
    for (reports::Timeline& timeline : batch) kept_.push_back(std::move(timeline));
    std::stable_sort(kept_.begin(), kept_.end(), [&](const reports::Timeline& a, const reports::Timeline& b) {
      return Position(a) < Position(b);
    });
    if (kept_.size() > max_) kept_.resize(max_);
  }

  std::vector<reports::Timeline> Take() { return std::move(kept_); }

 private:
  std::pair<std::size_t, std::size_t> Position(const reports::Timeline& t) const {
    return {scenario_position_.at(t.scenario), seed_position_.at(t.seed)};
  }

  std::size_t max_;
  std::map<std::string, std::size_t> scenario_position_;
  std::map<std::uint64_t, std::size_t> seed_position_;
  std::vector<reports::Timeline> kept_;
};

}  // namespace

SweepOutcome RunBudgetedSweep(const ScenarioFile& file, const std::vector<const Scenario*>& scenarios,
                              const SeedSource& next_seeds, const std::function<bool()>& spent,
                              const SweepOptions& options, const std::function<void(const RunResult&)>& on_run,
                              const std::function<void(const SweepProgress&)>& on_progress) {
  assert(options.shard.whole());
  assert(!options.on_summary && "a budgeted sweep reorders its batches' runs: it keeps them");
  assert(!scenarios.empty());
  // Enough runs per batch to keep every worker busy, few enough to stop
  // soon after the budget is spent.
  const std::size_t runs_wanted = 4 * static_cast<std::size_t>(std::max(options.jobs, 1));
  const std::size_t seeds_per_batch = std::max<std::size_t>(1, runs_wanted / scenarios.size());
  std::vector<reports::SweepSummary> batches;
  std::vector<std::uint64_t> ran;
  std::vector<std::string> names;
  for (const Scenario* scenario : scenarios) names.push_back(scenario->name);
  FirstTimelines timelines(names, options.timelines_max);
  SweepProgress before;
  std::size_t nondeterministic = 0;
  std::string stopped;
  for (std::size_t b = 0; b < kBatchesMax && stopped.empty() && !spent(); ++b) {
    const std::vector<std::uint64_t> seeds = next_seeds(seeds_per_batch);
    if (seeds.empty()) break;
    SweepOutcome batch = RunSweep(file, scenarios, seeds, FormatSeeds(seeds), options, on_run,
                                  [&](const SweepProgress& progress) {
                                    if (!on_progress) return;
                                    on_progress({.done = before.done + progress.done,
                                                 .total = before.done + progress.total,
                                                 .failed = before.failed + progress.failed});
                                  });
    ran.insert(ran.end(), seeds.begin(), seeds.end());
    timelines.Add(seeds, std::move(batch.timelines));
    nondeterministic += batch.nondeterministic;
    before.done += batch.summary.runs.size();
    before.failed += static_cast<std::size_t>(batch.summary.failed());
    stopped = batch.summary.stopped;
    batches.push_back(std::move(batch.summary));
  }
  // An empty sweep's summary still names the file and its requirements.
  SweepOutcome whole;
  whole.summary = batches.empty() ? RunSweep(file, scenarios, {}, "", options, {}).summary : batches.front();
  whole.summary.runs.clear();
  whole.summary.seeds = FormatSeeds(ran);
  whole.summary.stopped = stopped;
  for (const std::string& name : names) {  // back in sweep order
    for (const reports::SweepSummary& batch : batches) {
      for (const reports::RunSummary& run : batch.runs) {
        if (run.scenario == name) whole.summary.runs.push_back(run);
      }
    }
  }
  whole.timelines = timelines.Take();
  whole.nondeterministic = nondeterministic;
  whole.summary.suite.judged = false;
  if (stopped.empty()) JudgeSuite(whole.summary);
  return whole;
}

}  // namespace leasesim::runner
