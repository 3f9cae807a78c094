// `leasesim timing` end to end, as a user runs it: the issue's example is
// derived, written as a scenario file the runner reads, and verified; an
// unreachable target and bad input exit 2 naming the bound or the flag;
// an existing file is not overwritten without --force; the sweep prints
// the same table twice.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <variant>

#include "base/test_temp_path.h"
#include "cli/command_test_util.h"
#include "cli/commands.h"
#include "runner/scenario_parser.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;
using command_test::Outcome;
using command_test::ReadText;

const std::vector<std::string> kIssue = {"--failover-target", "15000", "--store-p99", "200", "--pause-budget", "500",
                                         "--drift-bound", "500"};

Outcome Timing(std::vector<std::string> extra, const std::vector<std::string>& base = kIssue) {
  std::vector<std::string> args = base;
  args.insert(args.end(), extra.begin(), extra.end());
  return command_test::Invoke(TimingCommand, args);
}

fs::path TempDir(const std::string& name) { return base::FreshTestDir("leasesim_timing_test_" + name); }

TEST(TimingCommand, TheIssueExampleIsDerivedAndWrittenAsARunnableScenarioFile) {
  const fs::path file = TempDir("write") / "timing.json";
  const Outcome o = Timing({"--out", file.string()});
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_NE(o.out.find("core::ValidateTiming: every rule holds"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("\"lease\": {\"duration_ms\":12600,"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("worst-case failover 14974 ms <= target 15000 ms"), std::string::npos) << o.out;
  auto loaded = runner::LoadScenarioFile(file.string());
  ASSERT_TRUE(std::holds_alternative<runner::ScenarioFile>(loaded)) << std::get<base::InputError>(loaded).ToString();
  for (const runner::Scenario& s : std::get<runner::ScenarioFile>(loaded).scenarios) {
    EXPECT_EQ(s.timing.lease_duration, 12'600'000'000) << s.name;
    EXPECT_EQ(s.timing.request_timeout, 400'000'000) << s.name;
  }
  // Never overwritten silently: refused, the file untouched; --force replaces it.
  std::ofstream(file, std::ios::trunc) << "mine";
  const Outcome again = Timing({"--out", file.string()});
  EXPECT_EQ(again.code, kExitBadInput);
  EXPECT_NE(again.err.find("--out: " + file.string() + " exists"), std::string::npos) << again.err;
  EXPECT_EQ(ReadText(file), "mine");
  EXPECT_EQ(Timing({"--out", file.string(), "--force"}).code, kExitOk);
  EXPECT_NE(ReadText(file), "mine");
}

TEST(TimingCommand, AnUnreachableTargetIsRefusedWithTheAchievableBound) {
  const Outcome o = Timing({}, {"--failover-target", "3000", "--store-p99", "200", "--pause-budget", "500",
                                "--drift-bound", "500"});
  EXPECT_EQ(o.code, kExitBadInput);
  EXPECT_NE(o.err.find("--failover-target: 3000 ms cannot be met: the smallest achievable failover target with "
                       "these inputs is 4606 ms"),
            std::string::npos)
      << o.err;
  EXPECT_EQ(o.out, "");
  // And that bound is accepted.
  EXPECT_EQ(Timing({}, {"--failover-target", "4606", "--store-p99", "200", "--pause-budget", "500", "--drift-bound",
                        "500"}).code,
            kExitOk);
}

TEST(TimingCommand, BadInputExitsTwoNamingTheFlagAndTheRule) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--failover-target", "15000", "--pause-budget", "500", "--drift-bound", "500"}, "--store-p99: is required"},
      {{"--failover-target", "15s", "--store-p99", "200", "--pause-budget", "500", "--drift-bound", "500"},
       "--failover-target: must be a whole number"},
      {{"--failover-target", "15000", "--store-p99", "200", "--pause-budget", "-1", "--drift-bound", "500"},
       "--pause-budget: must be a whole number of milliseconds in [0, "},
      {{"--failover-target", "15000", "--store-p99", "200", "--pause-budget", "500", "--drift-bound", "100000"},
       "--drift-bound: must be in [0, 100000) ppm"},
      {{"--failover-target", "15000", "--store-p99", "200", "--store-p999", "100", "--pause-budget", "500",
        "--drift-bound", "5"},
       "--store-p999: must be above --store-p99"},
      {{"--failover-target", "15000", "--store-p99", "200", "--pause-budget", "500", "--drift-bound", "5", "--seeds",
        "0", "--verify"},
       "--seeds: must be a whole number from 1 to 100000"},
      {{"--failover-target", "15000", "--store-p99", "200", "--pause-budget", "500", "--drift-bound", "5", "--regions",
        "/nonexistent/regions.json"},
       "--regions: /nonexistent/regions.json: cannot be read"},
      {{"--failover-target", "15000", "--store-p99", "200", "--pause-budget", "500", "--drift-bound", "5", "--bogus"},
       "unknown option --bogus"},
  };
  for (const auto& [args, message] : cases) {
    const Outcome o = Timing({}, args);
    EXPECT_EQ(o.code, kExitBadInput) << message;
    EXPECT_NE(o.err.find(message), std::string::npos) << o.err;
  }
}

TEST(TimingCommand, VerifyShowsTheFailoverWithinTheTargetAndNoViolation) {
  const Outcome o = Timing({"--verify", "--seeds", "5", "--jobs", "2"});
  ASSERT_EQ(o.code, kExitOk) << o.out << o.err;
  EXPECT_NE(o.out.find("target 15.00 s met"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("violations: none"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("VERIFIED: failover p99 "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("beyond the assumptions, timing-pause-beyond-budget: 5 of 5 runs"), std::string::npos) << o.out;
  // The same with one job: the figures do not depend on the thread count.
  EXPECT_EQ(Timing({"--verify", "--seeds", "5", "--jobs", "1"}).out, o.out);
}

TEST(TimingCommand, TheSweepGivesTheSameTableTwiceAndWritesItsPlotBesideTheFile) {
  const fs::path dir = TempDir("sweep");
  const Outcome first = Timing({"--sweep", "--seeds", "2", "--out", (dir / "t.json").string()});
  ASSERT_EQ(first.code, kExitOk) << first.err;
  const std::string svg = ReadText(dir / "t.sweep.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  const Outcome second = Timing({"--sweep", "--seeds", "2", "--out", (dir / "t.json").string(), "--force"});
  ASSERT_EQ(second.code, kExitOk) << second.err;
  EXPECT_EQ(first.out, second.out);
  EXPECT_EQ(ReadText(dir / "t.sweep.svg"), svg);
  EXPECT_NE(first.out.find("derived"), std::string::npos) << first.out;
  // The plot is a file too: not overwritten without --force.
  fs::remove(dir / "t.json");
  const Outcome refused = Timing({"--sweep", "--seeds", "2", "--out", (dir / "t.json").string()});
  EXPECT_EQ(refused.code, kExitBadInput);
  EXPECT_NE(refused.err.find("t.sweep.svg exists"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace leasesim::cli
