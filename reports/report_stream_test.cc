#include "reports/report_stream.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "reports/report_files.h"
#include "reports/sample_report.h"
#include "base/test_temp_path.h"

namespace leasesim::reports {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) { return base::FreshTestDir("leasesim_report_stream_" + name); }

std::string Read(const fs::path& path) {
  std::string content;
  EXPECT_TRUE(ReadWholeFile(path.string(), content)) << path;
  return content;
}

// A sweep with passing runs, failing runs past what the totals keep whole
// (so report.html counts some it does not hold), expected violations,
// notes and a scenario with no runs.
SweepSummary BigSweep() {
  SweepSummary sweep = testing::SampleFailingSweep();
  sweep.scenarios.push_back("never-ran");
  RunSummary failing;
  for (const RunSummary& run : sweep.runs) {
    if (!run.ok) failing = run;
  }
  EXPECT_FALSE(failing.ok);
  for (std::uint64_t seed = 100; seed < 100 + SweepTotals::kFailingRunsKept + 50; ++seed) {
    RunSummary run = failing;
    run.seed = seed;
    run.figures["leader_terms"] = static_cast<std::int64_t>(seed % 7);
    sweep.runs.push_back(run);
  }
  return sweep;
}

void ExpectSameFiles(const fs::path& a, const fs::path& b) {
  for (const char* file : {kSummaryFile, kJunitFile, kReportFile, kTimelinesFile}) {
    EXPECT_EQ(Read(a / file), Read(b / file)) << file;
  }
}

TEST(ReportStream, WritesTheBytesWriteReportsWrites) {
  for (const SweepSummary& sweep : {testing::SampleFailingSweep(), BigSweep()}) {
    const std::vector<Timeline> timelines = {testing::SampleFailingTimeline()};
    const fs::path whole = TempDir("whole");
    const fs::path streamed = TempDir("streamed");
    ASSERT_EQ(WriteReports(whole.string(), sweep, timelines), "");
    {
      ReportStream stream(streamed.string(), sweep.scenario_file, sweep.scenarios);
      for (const RunSummary& run : sweep.runs) stream.Add(run);
      EXPECT_EQ(stream.totals().runs(), sweep.runs.size());
      EXPECT_EQ(stream.totals().failed(), sweep.failed());
      ASSERT_EQ(stream.Finish(sweep, timelines), "");
    }
    ExpectSameFiles(whole, streamed);
    // Only the four files are left: the spools are gone.
    EXPECT_EQ(std::distance(fs::directory_iterator(streamed), fs::directory_iterator{}), 4);
  }
}

TEST(ReportStream, AnEmptySweepToo) {
  SweepSummary sweep{.scenario_file = "x.json", .seeds = "1-0", .scenarios = {"a"}};
  const fs::path whole = TempDir("empty_whole");
  const fs::path streamed = TempDir("empty_streamed");
  ASSERT_EQ(WriteReports(whole.string(), sweep, {}), "");
  ReportStream stream(streamed.string(), sweep.scenario_file, sweep.scenarios);
  ASSERT_EQ(stream.Finish(sweep, {}), "");
  ExpectSameFiles(whole, streamed);
}

TEST(ReportStream, TotalsKeepOnlyTheFirstFailingRuns) {
  const SweepSummary sweep = BigSweep();
  SweepTotals totals(sweep.scenarios);
  for (const RunSummary& run : sweep.runs) totals.Add(run);
  EXPECT_EQ(totals.first_failing().size(), SweepTotals::kFailingRunsKept);
  EXPECT_EQ(totals.failed(), sweep.failed());
  EXPECT_EQ(SweepTotals::Of(sweep).first_failing().size(), static_cast<std::size_t>(sweep.failed()));
  EXPECT_EQ(totals.FigureMaxima().at("leader_terms"), 6);
}

}  // namespace
}  // namespace leasesim::reports
