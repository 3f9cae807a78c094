#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/test_temp_path.h"
#include "checker/check_command.h"
#include "cli/command_test_util.h"
#include "cli/commands.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;
using command_test::Outcome;
using command_test::Invoke;
using command_test::SourceDir;

fs::path TempDir(const std::string& name) { return base::FreshTestDir("leasesim_cli_test_" + name); }

TEST(Cli, RunWritesASummaryAndReplayReproducesEveryTraceHash) {
  const fs::path dir = TempDir("run");
  const std::string suite = SourceDir() + "/scenarios/ci.json";
  const Outcome run = Invoke(RunCommand, {suite, "--seeds", "1-2", "--out", dir.string()});
  ASSERT_EQ(run.code, kExitOk) << run.out << run.err;
  std::ifstream in(dir / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(in);
  ASSERT_GE(summary["runs"].size(), 6u);
  for (const auto& entry : summary["runs"]) {
    EXPECT_TRUE(entry["ok"].get<bool>());
    const Outcome replay = Invoke(ReplayCommand, {suite, "--scenario", entry["scenario"].get<std::string>(), "--seed",
                                               std::to_string(entry["seed"].get<std::uint64_t>())});
    EXPECT_EQ(replay.code, kExitOk);
    EXPECT_NE(replay.out.find("trace " + entry["trace_hash"].get<std::string>()), std::string::npos)
        << replay.out;
  }
}

TEST(Cli, MalformedScenarioExitsTwoNamingTheField) {
  const fs::path dir = TempDir("bad");
  const fs::path bad = dir / "bad.json";
  std::ofstream(bad) << R"({"scenarios": [{"name": "x", "nodes": 0}]})";
  const Outcome run = Invoke(RunCommand, {bad.string(), "--out", (dir / "out").string()});
  EXPECT_EQ(run.code, kExitBadInput);
  EXPECT_NE(run.err.find("scenarios[0].nodes: must be in [1, 64] (got 0)"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "summary.json"));
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(Invoke(RunCommand, {}).code, kExitBadInput);
  EXPECT_EQ(Invoke(RunCommand, {"x.json", "--bogus"}).code, kExitBadInput);
  EXPECT_EQ(Invoke(RunCommand, {"x.json", "--seeds", "9-1"}).code, kExitBadInput);
  EXPECT_EQ(Invoke(RunCommand, {"/nonexistent/x.json"}).code, kExitBadInput);
  EXPECT_EQ(Invoke(ReplayCommand, {"x.json", "--seed", "1"}).code, kExitBadInput);
}

TEST(Cli, RefusesToOverwriteAFileItDidNotWrite) {
  const fs::path dir = TempDir("foreign");
  std::ofstream(dir / "summary.json") << "my notes";
  const Outcome run =
      Invoke(RunCommand, {SourceDir() + "/scenarios/ci.json", "--seed", "1", "--out", dir.string()});
  EXPECT_EQ(run.code, kExitBadInput);
  std::ifstream in(dir / "summary.json");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "my notes");
}

TEST(Cli, AReplayedHistoryWrittenToDiskChecksTheSame) {
  const fs::path dir = TempDir("history");
  const std::string suite = SourceDir() + "/scenarios/ci.json";
  const std::string history = (dir / "h.jsonl").string();
  const Outcome replay = Invoke(ReplayCommand, {suite, "--scenario", "leader-paused-beyond-lease", "--seed", "3",
                                                "--history", history});
  ASSERT_EQ(replay.code, kExitOk) << replay.err;
  std::ostringstream out, err;
  EXPECT_EQ(cli::CheckCommand({history}, out, err), 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("OK"), std::string::npos);
}

}  // namespace
}  // namespace leasesim::cli
