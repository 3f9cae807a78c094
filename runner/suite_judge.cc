#include "runner/suite_judge.h"

#include "runner/run.h"

namespace leasesim::runner {

void JudgeSuite(reports::SweepSummary& sweep) {
  std::vector<const std::map<std::string, std::int64_t>*> figures;
  figures.reserve(sweep.runs.size());
  for (const reports::RunSummary& run : sweep.runs) figures.push_back(&run.figures);
  JudgeSuite(sweep, figures);
}

void JudgeSuite(reports::SweepSummary& sweep, const std::vector<const std::map<std::string, std::int64_t>*>& figures) {
  sweep.suite.fault_points_unmet = FaultPointsNeverFired(sweep.suite.fault_points, figures);
  sweep.suite.probes_unmet = ProbesNeverReached(sweep.suite.probes, figures);
  sweep.suite.judged = true;
}

}  // namespace leasesim::runner
