// Writes the pages the browser test loads:
//   OUT/report.html  report.html of a hand-made failing sweep (a stale-token
//                    write applied by an unfenced ledger, a pause beyond the
//                    protocol's assumptions, a partition, a crash, a clock step)
//   OUT/replay.html  the timeline of a real run (what `replay --html` draws):
//                    scenarios/ci.json leader-crash-restart seed 3
// usage: browser_report_fixture SOURCE_DIR OUT_DIR

#include <filesystem>
#include <iostream>

#include "reports/html_report.h"
#include "reports/sample_report.h"
#include "reports/summary_json.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "runner/sweep_timeline.h"

int main(int argc, char** argv) {
  using namespace leasesim;
  if (argc != 3) {
    std::cerr << "usage: browser_report_fixture SOURCE_DIR OUT_DIR\n";
    return 2;
  }
  const std::filesystem::path source = argv[1];
  const std::filesystem::path out = argv[2];
  std::filesystem::create_directories(out);
  const std::string report = reports::ReportHtml(reports::testing::SampleFailingSweep(),
                                                 {reports::testing::SampleFailingTimeline()});
  if (const std::string problem = reports::WriteFileAtomically((out / "report.html").string(), report);
      !problem.empty()) {
    std::cerr << problem << "\n";
    return 1;
  }
  const std::string suite = (source / "scenarios" / "ci.json").string();
  auto loaded = runner::LoadScenarioFile(suite);
  if (std::holds_alternative<runner::ParseError>(loaded)) {
    std::cerr << std::get<runner::ParseError>(loaded).message << "\n";
    return 1;
  }
  for (const runner::Scenario& scenario : std::get<runner::ScenarioFile>(loaded).scenarios) {
    if (scenario.name != "leader-crash-restart") continue;
    const runner::RunResult result = runner::RunScenario(scenario, 3, {.keep_history = true});
    const std::string page = reports::TimelineHtml(runner::BuildTimeline(result, "scenarios/ci.json"));
    if (const std::string problem = reports::WriteFileAtomically((out / "replay.html").string(), page);
        !problem.empty()) {
      std::cerr << problem << "\n";
      return 1;
    }
    return 0;
  }
  std::cerr << suite << " has no scenario leader-crash-restart\n";
  return 1;
}
