// Tests of `leasesim run` sweeps (--jobs, --shard, --check-determinism, the
// report files) and of `leasesim merge`.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/test_temp_path.h"
#include "cli/command_test_util.h"
#include "cli/commands.h"
#include "reports/report_files.h"
#include "reports/sample_report.h"
#include "runner/test_scenarios.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;
using command_test::Outcome;
using command_test::Invoke;
using command_test::ReadText;

fs::path TempDir(const std::string& name) { return base::FreshTestDir("leasesim_merge_test_" + name); }

int Count(const std::string& text, const std::string& needle) {
  int count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

const char* const kReportFiles[] = {"summary.json", "junit.xml", "report.html", "timelines.json"};

void ExpectSameReports(const fs::path& a, const fs::path& b) {
  for (const char* name : kReportFiles) EXPECT_EQ(ReadText(a / name), ReadText(b / name)) << name;
}

// Short scenarios, so that a sweep takes well under a second. With
// `failing`, a third scenario fails every run for real: its recovery bound
// is shorter than a takeover after a crash can be (slow_recovery).
fs::path WriteSuite(const fs::path& dir, bool failing = false) {
  auto scenario = [](const std::string& name, const std::string& faults, const std::string& expect = "") {
    return runner::testing::ShortScenarioEntry(name, faults, expect);
  };
  const fs::path path = dir / "suite.json";
  std::ofstream(path) << R"({"scenarios": [)" << scenario("steady", "") << ", "
                      << scenario("crash", R"({"at_ms": 6000, "kind": "crash", "node": "leader"},
                                             {"at_ms": 9000, "kind": "restart", "node": 1},
                                             {"at_ms": 9000, "kind": "restart", "node": 2},
                                             {"at_ms": 9000, "kind": "restart", "node": 3})");
  if (failing) {
    std::ofstream(path, std::ios::app)
        << ", "
        << scenario("slow-recovery", R"({"at_ms": 4000, "kind": "pause", "node": 2, "duration_ms": 3000},
                                        {"at_ms": 6000, "kind": "crash", "node": "leader"})",
                    R"(, "expect": {"violations": [], "recovery_ms_max": 500})");
  }
  std::ofstream(path, std::ios::app) << "]}";
  return path;
}

TEST(Sweeps, JobsTwoWritesWhatJobsOneWrites) {
  const fs::path dir = TempDir("jobs");
  const std::string suite = WriteSuite(dir, /*failing=*/true).string();
  const Outcome one = Invoke(RunCommand, {suite, "--seeds", "1-9", "--jobs", "1", "--out", (dir / "one").string()});
  const Outcome two = Invoke(RunCommand, {suite, "--seeds", "1-9", "--jobs", "2", "--out", (dir / "two").string()});
  ASSERT_EQ(one.code, kExitViolation) << one.out << one.err;
  ASSERT_EQ(two.code, kExitViolation) << two.out << two.err;
  ExpectSameReports(dir / "one", dir / "two");
  auto without_paths = [](std::string text) { return text.substr(0, text.rfind("wrote")); };
  EXPECT_EQ(without_paths(one.out), without_paths(two.out));
  const nlohmann::json summary = nlohmann::json::parse(ReadText(dir / "two" / "summary.json"));
  EXPECT_EQ(summary["runs"].size(), 27u);
  EXPECT_EQ(summary["scenarios"][1]["name"], "crash");
  EXPECT_EQ(summary["scenarios"][1]["runs"], 9);
  // Some runs of slow-recovery fail (when the paused node 2 led, the crash
  // finds no leader and is skipped), some pass.
  const int failed = summary["scenarios"][2]["failed"].get<int>();
  ASSERT_GE(failed, 2);
  ASSERT_LT(failed, 9);
  EXPECT_EQ(summary["totals"]["failed"], failed);
  // FAIL lines in sweep order, whatever the jobs.
  const auto seeds = summary["scenarios"][2]["failed_seeds"];
  const std::size_t first = two.out.find("FAIL slow-recovery seed " + seeds[0].dump() + " ");
  const std::size_t second = two.out.find("FAIL slow-recovery seed " + seeds[1].dump() + " ");
  EXPECT_NE(first, std::string::npos);
  EXPECT_LT(first, second);
  // The reports show the real failures: a timeline per failing run, a JUnit failure per failing seed.
  const std::string html = ReadText(dir / "two" / "report.html");
  EXPECT_NE(html.find(std::to_string(failed) + " of 27 runs failed"), std::string::npos);
  EXPECT_EQ(Count(html, "<svg class=\"timeline\""), failed);
  EXPECT_NE(html.find("data-kind=\"slow_recovery\""), std::string::npos);
  const std::string junit = ReadText(dir / "two" / "junit.xml");
  EXPECT_NE(junit.find("<testsuite name=\"crash\" tests=\"9\" failures=\"0\""), std::string::npos);
  EXPECT_NE(junit.find("<testsuite name=\"slow-recovery\" tests=\"9\" failures=\"" + std::to_string(failed) + "\""),
            std::string::npos);
  EXPECT_EQ(Count(junit, "<failure type=\"slow_recovery\""), failed);
}

TEST(Sweeps, ShardedAndMergedIsTheUnshardedSweep) {
  const fs::path dir = TempDir("shards");
  const std::string suite = WriteSuite(dir, /*failing=*/true).string();
  const Outcome whole = Invoke(RunCommand, {suite, "--seeds", "1-40", "--jobs", "2", "--out", (dir / "whole").string()});
  ASSERT_EQ(whole.code, kExitViolation) << whole.err;
  std::size_t runs = 0;
  for (int k = 1; k <= 3; ++k) {
    const std::string out = (dir / ("shard" + std::to_string(k))).string();
    const Outcome shard = Invoke(RunCommand, {suite, "--seeds", "1-40", "--shard", std::to_string(k) + "/3",
                                              "--jobs", "1", "--out", out, "--quiet"});
    ASSERT_EQ(shard.code, kExitViolation) << shard.err;
    EXPECT_NE(shard.out.find("shard " + std::to_string(k) + "/3"), std::string::npos);
    const nlohmann::json summary = nlohmann::json::parse(ReadText(fs::path(out) / "summary.json"));
    EXPECT_EQ(summary["shard"], std::to_string(k) + "/3");
    runs += summary["runs"].size();
  }
  EXPECT_EQ(runs, 120u);
  // Shards in any order.
  const Outcome merged = Invoke(MergeCommand, {(dir / "shard3").string(), (dir / "shard1").string(),
                                               (dir / "shard2").string(), "--out", (dir / "merged").string()});
  ASSERT_EQ(merged.code, kExitViolation) << merged.out << merged.err;
  ExpectSameReports(dir / "whole", dir / "merged");
  const nlohmann::json summary = nlohmann::json::parse(ReadText(dir / "whole" / "summary.json"));
  // More failing runs than report.html draws: the merge draws the same first 20.
  EXPECT_GT(summary["totals"]["failed"].get<int>(), 20);
  EXPECT_EQ(Count(ReadText(dir / "merged" / "report.html"), "<svg class=\"timeline\""), 20);
}

TEST(Sweeps, MergeRefusesShardsThatAreNotOneSweep) {
  const fs::path dir = TempDir("bad_merge");
  const std::string suite = WriteSuite(dir).string();
  for (int k = 1; k <= 2; ++k) {
    ASSERT_EQ(Invoke(RunCommand, {suite, "--seeds", "1-3", "--shard", std::to_string(k) + "/2", "--jobs", "1",
                                  "--out", (dir / ("s" + std::to_string(k))).string()})
                  .code,
              kExitOk);
  }
  ASSERT_EQ(Invoke(RunCommand, {suite, "--seeds", "1-4", "--shard", "2/2", "--jobs", "1", "--out",
                                (dir / "other").string()})
                .code,
            kExitOk);
  const std::string s1 = (dir / "s1").string();
  const std::string s2 = (dir / "s2").string();
  const std::string out = (dir / "out").string();
  Outcome missing = Invoke(MergeCommand, {s1, "--out", out});
  EXPECT_EQ(missing.code, kExitBadInput);
  EXPECT_NE(missing.err.find("shard 2/2 is missing"), std::string::npos) << missing.err;
  Outcome twice = Invoke(MergeCommand, {s1, s1, "--out", out});
  EXPECT_EQ(twice.code, kExitBadInput);
  EXPECT_NE(twice.err.find("is also in"), std::string::npos) << twice.err;
  Outcome mixed = Invoke(MergeCommand, {s1, (dir / "other").string(), "--out", out});
  EXPECT_EQ(mixed.code, kExitBadInput);
  EXPECT_NE(mixed.err.find("seeds 1-4"), std::string::npos) << mixed.err;
  EXPECT_EQ(Invoke(MergeCommand, {s1, s2, "--out", s1}).code, kExitBadInput);
  EXPECT_EQ(Invoke(MergeCommand, {(dir / "nothing").string(), "--out", out}).code, kExitBadInput);
  EXPECT_EQ(Invoke(MergeCommand, {s1, s2}).code, kExitBadInput);
  EXPECT_FALSE(fs::exists(dir / "out" / "summary.json"));
  // A shard whose runs were edited away is refused too.
  nlohmann::json edited = nlohmann::json::parse(ReadText(dir / "s2" / "summary.json"));
  edited["runs"].erase(0);
  std::ofstream(dir / "s2" / "summary.json") << edited.dump(2);
  Outcome truncated = Invoke(MergeCommand, {s1, s2, "--out", out});
  EXPECT_EQ(truncated.code, kExitBadInput);
  EXPECT_NE(truncated.err.find("does not hold run"), std::string::npos) << truncated.err;
}

TEST(Sweeps, MergeCarriesFailuresAndTheirTimelines) {
  // Hand-made shard outputs of a failing sweep (what `run --shard` writes).
  const fs::path dir = TempDir("failing_merge");
  const reports::SweepSummary whole = reports::testing::SampleFailingSweep();
  const std::vector<reports::Timeline> timelines = {reports::testing::SampleFailingTimeline()};
  fs::create_directories(dir / "whole");
  ASSERT_EQ(reports::WriteReports((dir / "whole").string(), whole, timelines), "");
  for (int k = 1; k <= 2; ++k) {
    reports::SweepSummary shard = whole;
    shard.shard = {k, 2};
    shard.runs.clear();
    std::vector<reports::Timeline> shard_timelines;
    for (std::size_t i = 0; i < whole.runs.size(); ++i) {
      if (i % 2 != static_cast<std::size_t>(k - 1)) continue;
      shard.runs.push_back(whole.runs[i]);
      if (!whole.runs[i].ok) shard_timelines = timelines;
    }
    fs::create_directories(dir / ("s" + std::to_string(k)));
    ASSERT_EQ(reports::WriteReports((dir / ("s" + std::to_string(k))).string(), shard, shard_timelines), "");
  }
  const Outcome merged = Invoke(MergeCommand, {(dir / "s1").string(), (dir / "s2").string(), "--out",
                                               (dir / "merged").string()});
  EXPECT_EQ(merged.code, kExitViolation) << merged.err;
  EXPECT_NE(merged.out.find("replay: leasesim replay 'sc&n.json' --scenario x --seed 17"), std::string::npos);
  ExpectSameReports(dir / "whole", dir / "merged");
  EXPECT_NE(ReadText(dir / "merged" / "report.html").find("<svg class=\"timeline\""), std::string::npos);
}

TEST(Sweeps, CheckDeterminismRunsEverySeedTwiceAndPasses) {
  const fs::path dir = TempDir("determinism");
  const std::string suite = WriteSuite(dir).string();
  const Outcome checked = Invoke(RunCommand, {suite, "--seeds", "1-3", "--jobs", "2", "--check-determinism",
                                              "--out", (dir / "checked").string()});
  EXPECT_EQ(checked.code, kExitOk) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("each run twice"), std::string::npos);
  EXPECT_EQ(checked.out.find("NONDETERMINISM"), std::string::npos);
  const Outcome plain = Invoke(RunCommand, {suite, "--seeds", "1-3", "--out", (dir / "plain").string()});
  EXPECT_EQ(ReadText(dir / "checked" / "summary.json"), ReadText(dir / "plain" / "summary.json"));
}

TEST(Sweeps, BadSweepOptionsExitTwo) {
  const fs::path dir = TempDir("bad_options");
  const std::string suite = WriteSuite(dir).string();
  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{{"--jobs", "0"}, {"--jobs", "x"}, {"--jobs", "2x"}, {"--jobs", "100000"},
                                             {"--shard", "3/2"}, {"--shard", "0/1"}, {"--shard", "1"}}) {
    std::vector<std::string> args = {suite, "--out", (dir / "out").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const Outcome run = Invoke(RunCommand, args);
    EXPECT_EQ(run.code, kExitBadInput) << extra[0] << " " << extra[1];
    EXPECT_NE(run.err.find(extra[0]), std::string::npos) << run.err;
  }
  EXPECT_FALSE(fs::exists(dir / "out" / "summary.json"));
}

}  // namespace
}  // namespace leasesim::cli
