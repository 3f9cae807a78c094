// Writes the pages the browser test loads:
//   OUT/run/report.html  what `leasesim run tests/browser/failing.json --seeds 1-3`
//                        writes: a real sweep whose "no-term-bump" runs (a bug
//                        zoo variant) fail with term_reuse and dual_writer, with
//                        a partition, a pause beyond the lease, a clock step, a
//                        store outage, a crash and restarts on their timelines
//   OUT/sample.html      report.html of a hand-made failing run: a stale-token
//                        write that an unfenced ledger applied, and one a
//                        fenced ledger rejected (reports/sample_report.h)
// usage: browser_report_fixture SOURCE_DIR OUT_DIR

#include <filesystem>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "harness/builtin_protocols.h"
#include "reports/html_report.h"
#include "reports/sample_report.h"
#include "reports/summary_json.h"

int main(int argc, char** argv) {
  using namespace leasesim;
  harness::RegisterBuiltinProtocols();  // its failing file runs a zoo protocol
  if (argc != 3) {
    std::cerr << "usage: browser_report_fixture SOURCE_DIR OUT_DIR\n";
    return 2;
  }
  const std::filesystem::path source = argv[1];
  const std::filesystem::path out = argv[2];
  std::filesystem::create_directories(out);
  const std::string sample = reports::ReportHtml(reports::testing::SampleFailingSweep(),
                                                 {reports::testing::SampleFailingTimeline()});
  if (const std::string problem = reports::WriteFileAtomically((out / "sample.html").string(), sample);
      !problem.empty()) {
    std::cerr << problem << "\n";
    return 1;
  }
  std::ostringstream run_out, run_err;
  const int code = cli::RunCommand({(source / "tests/browser/failing.json").string(), "--seeds", "1-3", "--jobs", "2",
                                    "--out", (out / "run").string(), "--quiet"},
                                   run_out, run_err);
  if (code != cli::kExitViolation) {
    std::cerr << "expected the sweep to fail (exit 1), got exit " << code << "\n" << run_out.str() << run_err.str();
    return 1;
  }
  return 0;
}
