// Tests of sweeps run as a fleet: suite-level requirements judged by the
// whole sweep (unsharded, or merged) and never by one shard; the build's
// version and the scenario file's digest recorded in every output and
// checked by `leasesim merge`.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "base/test_temp_path.h"
#include "base/version.h"
#include "cli/command_test_util.h"
#include "cli/commands.h"
#include "reports/report_files.h"
#include "runner/test_scenarios.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;
using command_test::Outcome;
using command_test::Invoke;
using command_test::ReadText;

fs::path TempDir(const std::string& name) { return base::FreshTestDir("leasesim_fleet_test_" + name); }

// Two short scenarios whose runs all pass. Only "crash" runs reach the probe
// takeover_after_expiry, and no run reaches the fault point during_release:
// `requirements` is the file's suite-level part.
fs::path WriteSuite(const fs::path& dir, const std::string& requirements) {
  auto scenario = [](const std::string& name, const std::string& faults) {
    return runner::testing::ShortScenarioEntry(name, faults);
  };
  const fs::path path = dir / "suite.json";
  std::ofstream(path) << "{" << requirements << R"("scenarios": [)" << scenario("steady", "") << ", "
                      << scenario("crash", R"({"at_ms": 6000, "kind": "crash", "node": "leader"})") << "]}\n";
  return path;
}

constexpr const char* kMetOverall = R"("require_probes": ["takeover_after_expiry"],
                                       "require_fault_points": ["before_acquire"], )";
constexpr const char* kNeverMet = R"("require_probes": ["takeover_after_expiry"],
                                     "require_fault_points": ["during_release"], )";

// The fleet's promise: a shard exits 0 when its runs pass, whatever the
// suite; merging all N shards fails exactly when the unsharded run fails,
// and writes what it writes.
TEST(Fleet, MergedShardsFailExactlyWhenTheUnshardedRunFails) {
  const fs::path dir = TempDir("exactly");
  for (const char* requirements : {kMetOverall, kNeverMet}) {
    const fs::path suite_dir = dir / (requirements == kMetOverall ? "met" : "unmet");
    fs::create_directories(suite_dir);
    const std::string suite = WriteSuite(suite_dir, requirements).string();
    const Outcome whole = Invoke(RunCommand, {suite, "--seeds", "1-4", "--out", (suite_dir / "whole").string()});
    ASSERT_EQ(whole.code, requirements == kMetOverall ? kExitOk : kExitViolation) << whole.out << whole.err;
    for (const int count : {2, 3, 8}) {
      std::vector<std::string> merge_args;
      for (int k = 1; k <= count; ++k) {
        const fs::path out = suite_dir / ("shard-" + std::to_string(k) + "-of-" + std::to_string(count));
        const std::string shard = std::to_string(k) + "/" + std::to_string(count);
        const Outcome run = Invoke(RunCommand, {suite, "--seeds", "1-4", "--shard", shard, "--jobs", "1", "--out",
                                                out.string(), "--quiet"});
        // 8 shards of 8 runs: shards 1-4 hold steady runs only, which never
        // reach the probe; none of them may fail on it.
        EXPECT_EQ(run.code, kExitOk) << shard << "\n" << run.out << run.err;
        EXPECT_NE(run.out.find("judged by leasesim merge"), std::string::npos) << run.out;
        const nlohmann::json summary = nlohmann::json::parse(ReadText(out / "summary.json"));
        EXPECT_EQ(summary["suite"]["verdict"], "pending");
        merge_args.push_back(out.string());
      }
      const fs::path merged = suite_dir / ("merged-" + std::to_string(count));
      merge_args.insert(merge_args.end(), {"--out", merged.string(), "--quiet"});
      const Outcome merge = Invoke(MergeCommand, merge_args);
      EXPECT_EQ(merge.code, whole.code) << count << " shards\n" << merge.out << merge.err;
      for (const char* name : {"summary.json", "junit.xml", "report.html", "timelines.json"}) {
        EXPECT_EQ(ReadText(merged / name), ReadText(suite_dir / "whole" / name)) << name << ", " << count << " shards";
      }
      if (requirements == kNeverMet) {
        EXPECT_NE(merge.out.find("FAIL fault point during_release never fired in any run"), std::string::npos)
            << merge.out;
      }
    }
  }
}

// A suite-level failure is in summary.json and junit.xml, not only on stdout.
TEST(Fleet, ASuiteFailureIsInTheSummaryAndItsOwnJunitTestcase) {
  const fs::path dir = TempDir("visible");
  const std::string suite = WriteSuite(dir, kNeverMet).string();
  const Outcome run = Invoke(RunCommand, {suite, "--seeds", "1-2", "--out", (dir / "out").string()});
  ASSERT_EQ(run.code, kExitViolation) << run.out << run.err;
  const nlohmann::json summary = nlohmann::json::parse(ReadText(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["totals"]["failed"], 0);
  EXPECT_EQ(summary["suite"]["verdict"], "failed");
  EXPECT_EQ(summary["suite"]["fault_points_never_fired"], nlohmann::json::array({"during_release"}));
  EXPECT_EQ(summary["suite"]["probes_never_reached"], nlohmann::json::array());
  const std::string junit = ReadText(dir / "out" / "junit.xml");
  EXPECT_NE(junit.find("tests=\"6\" failures=\"1\""), std::string::npos) << junit.substr(0, 300);
  EXPECT_NE(junit.find("<testsuite name=\"suite requirements\" tests=\"2\" failures=\"1\""), std::string::npos);
  EXPECT_NE(junit.find("<failure type=\"require_fault_points\" message=\"1 of 1 required fault points never fired in "
                       "any run: during_release\""),
            std::string::npos);
  const std::string html = ReadText(dir / "out" / "report.html");
  EXPECT_NE(html.find("the suite's requirements are not met"), std::string::npos);
  EXPECT_NE(html.find("<h2 id=\"suite\">"), std::string::npos);
}

TEST(Fleet, OutputsNameTheBuildAndTheScenarioFileDigest) {
  const fs::path dir = TempDir("digest");
  const fs::path suite = WriteSuite(dir, "");
  ASSERT_EQ(Invoke(RunCommand, {suite.string(), "--seed", "1", "--out", (dir / "out").string()}).code, kExitOk);
  const std::string digest = base::Sha256Hex(ReadText(suite));
  const nlohmann::json summary = nlohmann::json::parse(ReadText(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["file_digest"], digest);
  EXPECT_EQ(summary["leasesim_version"], std::string(base::Version()));
  EXPECT_FALSE(summary.contains("suite"));  // the file requires nothing
  const std::string junit = ReadText(dir / "out" / "junit.xml");
  EXPECT_NE(junit.find("<property name=\"file_digest\" value=\"" + digest + "\"/>"), std::string::npos);
  EXPECT_NE(junit.find("<property name=\"leasesim_version\" value=\"" + std::string(base::Version())), std::string::npos);
  const std::string html = ReadText(dir / "out" / "report.html");
  EXPECT_NE(html.find(digest), std::string::npos);
  EXPECT_NE(html.find(std::string(base::Version())), std::string::npos);
}

// merge joins shards of one build and one scenario file's content only.
TEST(Fleet, MergeRefusesShardsOfOtherBuildsOrOtherFileContents) {
  const fs::path dir = TempDir("refuse");
  const fs::path suite = WriteSuite(dir, kMetOverall);
  auto shard = [&](int k) {
    const fs::path out = dir / ("s" + std::to_string(k));
    EXPECT_EQ(Invoke(RunCommand, {suite.string(), "--seeds", "1-2", "--shard", std::to_string(k) + "/2", "--out",
                                  out.string()})
                  .code,
              kExitOk);
    return out.string();
  };
  const std::string s1 = shard(1);
  const std::string s2 = shard(2);
  const std::string out = (dir / "out").string();
  ASSERT_EQ(Invoke(MergeCommand, {s1, s2, "--out", out}).code, kExitOk);
  // Another build wrote shard 2.
  nlohmann::ordered_json edited = nlohmann::ordered_json::parse(ReadText(fs::path(s2) / "summary.json"));
  const std::string original = edited.dump(2);
  edited["leasesim_version"] = "0.0.1+git.other";
  std::ofstream(fs::path(s2) / "summary.json") << edited.dump(2);
  Outcome refused = Invoke(MergeCommand, {s1, s2, "--out", (dir / "out2").string()});
  EXPECT_EQ(refused.code, kExitBadInput);
  EXPECT_NE(refused.err.find("was written by leasesim 0.0.1+git.other"), std::string::npos) << refused.err;
  std::ofstream(fs::path(s2) / "summary.json") << original;
  // The same path, other content: shard 2 ran an edited file.
  std::ofstream(suite, std::ios::app) << "\n";
  const std::string s2_edited = shard(2);
  refused = Invoke(MergeCommand, {s1, s2_edited, "--out", (dir / "out2").string()});
  EXPECT_EQ(refused.code, kExitBadInput);
  EXPECT_NE(refused.err.find("file_digest"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("different scenario files"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir / "out2" / "summary.json"));
}

// CI engines hand each job its index in the environment.
TEST(Fleet, LeasesimShardStandsInForTheShardFlag) {
  const fs::path dir = TempDir("environment");
  const std::string suite = WriteSuite(dir, "").string();
  ASSERT_EQ(setenv("LEASESIM_SHARD", "2/3", 1), 0);
  const Outcome from_environment = Invoke(RunCommand, {suite, "--seeds", "1-3", "--out", (dir / "env").string()});
  const Outcome flag_wins =
      Invoke(RunCommand, {suite, "--seeds", "1-3", "--shard", "1/3", "--out", (dir / "flag").string()});
  ASSERT_EQ(setenv("LEASESIM_SHARD", "4/3", 1), 0);
  const Outcome bad = Invoke(RunCommand, {suite, "--seeds", "1-3", "--out", (dir / "bad").string()});
  unsetenv("LEASESIM_SHARD");
  EXPECT_EQ(from_environment.code, kExitOk) << from_environment.err;
  EXPECT_EQ(nlohmann::json::parse(ReadText(dir / "env" / "summary.json"))["shard"], "2/3");
  EXPECT_EQ(flag_wins.code, kExitOk) << flag_wins.err;
  EXPECT_EQ(nlohmann::json::parse(ReadText(dir / "flag" / "summary.json"))["shard"], "1/3");
  EXPECT_EQ(bad.code, kExitBadInput);
  EXPECT_NE(bad.err.find("LEASESIM_SHARD: \"4/3\" is not a shard K/N"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace leasesim::cli
