#pragma once
// What the reports need of a sweep beyond each run's own entry, added up
// run by run: counts, failing seeds and figure ranges per scenario, and the
// first failing runs in full. A sweep's reports are built from this and a
// stream of run entries (reports/report_stream.h), so memory does not grow
// with the number of seeds.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reports/run_summary.h"

namespace leasesim::reports {

// One figure over a scenario's runs (those that reported it).
struct FigureRange {
  std::int64_t min = 0;
  std::int64_t max = 0;
  std::int64_t sum = 0;
  int runs = 0;
  void Add(std::int64_t value);
};
using FigureRanges = std::map<std::string, FigureRange>;  // by figure name

struct ScenarioTotals {
  int runs = 0;
  int failed = 0;
  std::vector<std::uint64_t> failed_seeds;  // every one, in sweep order
  FigureRanges figures;
};

// The sweep's running totals, one Add per run.
class SweepTotals {
 public:
  // Failing runs kept whole when written run by run: enough for
  // report.html, which draws at most kTimelinesMax of them and lists 200 more.
  static constexpr std::size_t kFailingRunsKept = 240;

  // Totals per scenario of `scenarios` (the sweep's, in file order); the
  // first `failing_kept` failing runs added will be kept whole.
  explicit SweepTotals(std::vector<std::string> scenarios, std::size_t failing_kept = kFailingRunsKept);
  // Every run of `sweep`, every failing one kept.
  static SweepTotals Of(const SweepSummary& sweep);

  // Adds the next run in sweep order (scenario order, then seed order).
  void Add(const RunSummary& run);

  const std::vector<std::string>& scenarios() const { return scenarios_; }
  std::size_t runs() const { return runs_; }
  int failed() const { return failed_; }
  // Parallel to scenarios().
  const std::vector<ScenarioTotals>& by_scenario() const { return by_scenario_; }
  // The first failing runs (as many as the constructor said), in sweep order.
  const std::vector<RunSummary>& first_failing() const { return first_failing_; }
  // The index of `scenario` in scenarios(); scenarios().size() when absent.
  std::size_t IndexOf(const std::string& scenario) const;
  // The largest value of each figure over every run.
  std::map<std::string, std::int64_t> FigureMaxima() const;

 private:
  std::vector<std::string> scenarios_;
  std::size_t runs_ = 0;
  int failed_ = 0;
  std::vector<ScenarioTotals> by_scenario_;
  std::size_t failing_kept_;
  std::vector<RunSummary> first_failing_;
  std::size_t last_index_ = 0;  // runs arrive in scenario order
};

}  // namespace leasesim::reports
