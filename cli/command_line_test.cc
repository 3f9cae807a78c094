// The command line of every command (cli/command_line.h on CLI11): --help,
// short flags, repeatable and glob --scenario, usage errors naming the
// option, options bound to typed variables with their ranges; and run's
// --fail-fast and --time-budget.

#include "cli/command_line.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "base/test_temp_path.h"
#include "cli/command_test_util.h"
#include "cli/commands.h"
#include "cli/cpu_quota.h"
#include "cli/live_command.h"
#include "reports/report_files.h"
#include "runner/test_scenarios.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;
using command_test::Command;
using command_test::Outcome;
using command_test::Invoke;
using command_test::ReadText;

fs::path TempDir(const std::string& name) { return base::FreshTestDir("leasesim_command_line_test_" + name); }

// Three short scenarios; "slow" fails some runs (its recovery bound is
// shorter than a takeover after a crash can be).
fs::path WriteSuite(const fs::path& dir) {
  auto scenario = [](const std::string& name, const std::string& faults, const std::string& expect) {
    return runner::testing::ShortScenarioEntry(name, faults, expect);
  };
  const fs::path path = dir / "suite.json";
  std::ofstream(path) << R"({"scenarios": [)" << scenario("leader-steady", "", "") << ", "
                      << scenario("leader-crash", R"({"at_ms": 6000, "kind": "crash", "node": "leader"})", "") << ", "
                      << scenario("slow", R"({"at_ms": 4000, "kind": "pause", "node": 2, "duration_ms": 3000},
                                             {"at_ms": 6000, "kind": "crash", "node": "leader"})",
                                  R"(, "expect": {"violations": [], "recovery_ms_max": 500})")
                      << "]}";
  return path;
}

TEST(CommandLine, EveryCommandHasHelpThatExitsZero) {
  const std::pair<const char*, Command> commands[] = {
      {"run", RunCommand},         {"merge", MergeCommand}, {"replay", ReplayCommand}, {"check", CheckCommand},
      {"fuzz", FuzzCommand},       {"explore", ExploreCommand}, {"zoo", ZooCommand}, {"live", LiveCommand},
      {"timing", TimingCommand},   {"compare", CompareCommand}, {"store-fuzz", StoreFuzzCommand},
      {"designs", DesignsCommand}};
  for (const auto& [name, command] : commands) {
    for (const char* flag : {"--help", "-h"}) {
      const Outcome help = Invoke(command, {flag});
      EXPECT_EQ(help.code, kExitOk) << name << " " << flag << help.err;
      EXPECT_NE(help.out.find(std::string("usage: leasesim ") + name), std::string::npos) << help.out;
      EXPECT_NE(help.out.find("Exit: 0"), std::string::npos) << name;
    }
  }
  EXPECT_NE(Invoke(RunCommand, {"--help"}).out.find("-j,--jobs"), std::string::npos);
  EXPECT_NE(Invoke(RunCommand, {"--help"}).out.find("--protocol"), std::string::npos);
  EXPECT_NE(Invoke(RunCommand, {"--help"}).out.find("--variant"), std::string::npos);  // its alias
  EXPECT_NE(Invoke(CompareCommand, {"--help"}).out.find("--tolerate"), std::string::npos);
}

// Every usage error is the one bad-input error, printed after the command:
// the flag (or FILE) it is about, then the rule; exit 2.
TEST(CommandLine, UsageErrorsNameTheOptionAndExitTwo) {
  const std::vector<std::tuple<Command, std::vector<std::string>, std::string>> cases = {
      {RunCommand, {"x.json", "--bogus"}, "leasesim run: unknown option --bogus"},
      {ReplayCommand, {"x.json", "--seed"}, "--seed"},
      {RunCommand, {"x.json", "--jobs", "1", "-j", "2"}, "--jobs is given twice"},
      {RunCommand, {"a.json", "b.json"}, "b.json"},
      {RunCommand, {"--seeds", "1"}, "leasesim run: FILE: needs exactly one scenario file"},
      {RunCommand, {"x.json", "--seeds", "1-2", "--seed", "3"}, "leasesim run: --seed: give --seeds or --seed, not both"},
      {RunCommand, {"x.json", "--seeds", "x"}, "leasesim run: --seeds: \"x\" is not a seed (a non-negative integer)"},
      {RunCommand, {"x.json", "--protocol", "sloppy"}, "leasesim run: --protocol: unknown protocol \"sloppy\" (known: "},
      {ZooCommand, {"--protocol", "leasesim"},
       "leasesim zoo: --protocol: \"leasesim\" has no known mistake to hunt (known-broken: "},
      // A required option is required where it is declared.
      {ReplayCommand, {"x.json", "--scenario", "s"}, "leasesim replay: --seed: is required (N)"},
      {ReplayCommand, {"x.json", "--scenario", "s", "--seed", "1-2"},
       "leasesim replay: --seed: must be one non-negative integer"},
      {LiveCommand, {"--duration", "0"}, "leasesim live: --duration: must be a duration like 90s, 10m, 2h or 1h30m, or "
                                          "whole seconds, from 1 s to 24 h (got \"0\")"},
      {LiveCommand, {"--duration", "25h"}, "leasesim live: --duration: must be a duration like 90s"},
      {TimingCommand,
       {"--failover-target", "9000", "--store-p99", "50", "--pause-budget", "500", "--drift-bound", "100", "--force"},
       "leasesim timing: --force: only with --out FILE"},
      {FuzzCommand, {"--runs", "1", "--property", "no-bugs"},
       "leasesim fuzz: --property: unknown property \"no-bugs\" (known: all,"},
      {CheckCommand, {}, "leasesim check: FILE: needs exactly one history file"},
      {CheckCommand, {"x.json", "--format", "csv"},
       "leasesim check: --format: unknown \"csv\" (expected leasesim, jepsen-log or edn)"},
      {CheckCommand, {"x.json", "--initial-value", "one"}, "leasesim check: --initial-value: must be an integer"},
      {MergeCommand, {"a", "b"}, "leasesim merge: --out: is required (DIR)"},
      {MergeCommand, {"--out", "o"}, "leasesim merge: DIR: needs at least one shard's output directory"},
      {FuzzCommand, {"--expand", "x.json", "--scenario", "s"}, "leasesim fuzz: --expand: FILE needs --scenario NAME"},
      // A bad --faults list is refused before anything starts.
      {LiveCommand, {"--faults", "kill:1@2,pause@3"},
       "leasesim live: --faults: fault \"pause@3\": needs +DURATION (seconds)"},
  };
  for (const auto& [command, args, message] : cases) {
    const Outcome bad = Invoke(command, args);
    EXPECT_EQ(bad.code, kExitBadInput) << message;
    EXPECT_NE(bad.err.find(message), std::string::npos) << bad.err;
  }
}

// An option bound where it is declared: its value lands in the variable,
// its range is checked there, and a bad value is a usage error naming the
// flag and the rule. --jobs is one declaration for every command.
TEST(CommandLine, BoundOptionsSetTheirVariablesAndCheckTheirRange) {
  CommandLine args("test", "bound options");
  int jobs = 0;
  std::int64_t count = 7;
  std::optional<std::uint64_t> seed;
  bool quick = false;
  std::optional<std::string> name;
  args.Jobs(jobs)
      .Integer("--count", "N", "a count", count, 0, 10)
      .Integer("--seed", "S", "a seed", seed, 0, 100)
      .Switch("--quick", "quick", quick)
      .Option("--name", "NAME", "a name", name);
  EXPECT_EQ(jobs, DefaultJobs(CommandLine::kJobsMax)) << "the container-aware default, set at declaration";
  std::ostringstream out, err;
  ASSERT_FALSE(args.Parse({"-j", "3", "--count", "10", "--quick", "--name", "n"}, out, err)) << err.str();
  EXPECT_EQ(jobs, 3);
  EXPECT_EQ(count, 10);
  EXPECT_FALSE(seed.has_value()) << "not given: left as it was";
  EXPECT_TRUE(quick);
  EXPECT_EQ(name, "n");
}

TEST(CommandLine, ABoundIntegerOutOfRangeNamesTheFlagAndTheRule) {
  const std::vector<std::string> targets = {"--failover-target", "15000", "--store-p99", "200", "--pause-budget",
                                            "500", "--drift-bound", "5"};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), targets.begin(), targets.end());
    return extra;
  };
  const std::vector<std::tuple<Command, std::vector<std::string>, std::string>> cases = {
      {RunCommand, {"x.json", "--jobs", "0"}, "--jobs: must be a whole number from 1 to 256 (got \"0\")"},
      {RunCommand, {"x.json", "-j", "2x"}, "--jobs: must be a whole number from 1 to 256 (got \"2x\")"},
      {TimingCommand, with({"--jobs", "300"}), "--jobs: must be a whole number from 1 to 256 (got \"300\")"},
      {TimingCommand, with({"--verify", "--seeds", "0"}), "--seeds: must be a whole number from 1 to 100000"},
      {ZooCommand, {"--seeds", "0"}, "--seeds: must be a whole number from 1 to "},
      {ZooCommand, {"--generic", "--correct-runs", "-1"}, "--correct-runs: must be a whole number from 0 to "},
      {ZooCommand, {"--generic", "--seed", "x"}, "--seed: must be a whole number from 0 to "},
  };
  for (const auto& [command, args, rule] : cases) {
    const Outcome bad = Invoke(command, args);
    EXPECT_EQ(bad.code, kExitBadInput) << rule;
    EXPECT_NE(bad.err.find(rule), std::string::npos) << bad.err;
  }
}

// Short flags mean what their long names do: the same files.
TEST(CommandLine, ShortFlagsAreTheLongOnes) {
  const fs::path dir = TempDir("short");
  const std::string suite = WriteSuite(dir).string();
  const Outcome shortened = Invoke(RunCommand, {suite, "-s", "1-2", "-j2", "-q", "-o", (dir / "a").string()});
  const Outcome spelled =
      Invoke(RunCommand, {suite, "--seeds", "1-2", "--jobs=2", "--quiet", "--out", (dir / "b").string()});
  EXPECT_EQ(shortened.code, spelled.code);
  EXPECT_EQ(ReadText(dir / "a" / "summary.json"), ReadText(dir / "b" / "summary.json"));
  EXPECT_EQ(shortened.out.find("  ok   leader-steady"), std::string::npos);  // -q: no scenario lines
}

TEST(CommandLine, ScenarioIsRepeatableAndTakesGlobs) {
  const fs::path dir = TempDir("scenario");
  const std::string suite = WriteSuite(dir).string();
  const std::string out = (dir / "out").string();
  auto scenarios = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {suite, "--seed", "1", "-o", out};
    args.insert(args.end(), extra.begin(), extra.end());
    const Outcome run = Invoke(RunCommand, args);
    EXPECT_NE(run.code, kExitBadInput) << run.err;
    return nlohmann::json::parse(ReadText(fs::path(out) / "summary.json"))["scenarios"].size();
  };
  EXPECT_EQ(scenarios({"--scenario", "leader-*"}), 2u);
  EXPECT_EQ(scenarios({"--scenario", "slow", "--scenario", "leader-crash"}), 2u);
  EXPECT_EQ(scenarios({"--scenario", "*", "--scenario", "slow"}), 3u);  // each once, in file order
  const Outcome none = Invoke(RunCommand, {suite, "--scenario", "follower-*", "-o", out});
  EXPECT_EQ(none.code, kExitBadInput);
  EXPECT_NE(none.err.find("leasesim run: --scenario: " + suite + " has no scenario matching \"follower-*\""),
            std::string::npos)
      << none.err;
  const Outcome named = Invoke(RunCommand, {suite, "--scenario", "nope", "-o", out});
  EXPECT_NE(named.err.find("has no scenario named \"nope\""), std::string::npos) << named.err;
}

// --fail-fast: the runs up to the first failing one in sweep order, the
// same for any jobs, and a summary that says it stopped.
TEST(CommandLine, FailFastStopsAtTheFirstFailingRun) {
  const fs::path dir = TempDir("fail_fast");
  const std::string suite = WriteSuite(dir).string();
  const Outcome whole = Invoke(RunCommand, {suite, "-s", "1-6", "--scenario", "slow", "-o", (dir / "whole").string()});
  ASSERT_EQ(whole.code, kExitViolation);
  const nlohmann::json all = nlohmann::json::parse(ReadText(dir / "whole" / "summary.json"));
  const std::uint64_t first_failing = all["scenarios"][0]["failed_seeds"][0].get<std::uint64_t>();
  for (const char* jobs : {"1", "2"}) {
    const fs::path out = dir / (std::string("jobs") + jobs);
    const Outcome fast = Invoke(RunCommand, {suite, "-s", "1-6", "--scenario", "slow", "--fail-fast", "-j", jobs,
                                             "-o", out.string()});
    EXPECT_EQ(fast.code, kExitViolation);
    const nlohmann::json summary = nlohmann::json::parse(ReadText(out / "summary.json"));
    EXPECT_EQ(summary["runs"].size(), first_failing) << jobs;
    EXPECT_EQ(summary["runs"].back()["seed"], first_failing);
    EXPECT_NE(summary["stopped"].get<std::string>().find("fail-fast"), std::string::npos);
  }
  EXPECT_EQ(ReadText(dir / "jobs1" / "summary.json"), ReadText(dir / "jobs2" / "summary.json"));
}

// --time-budget draws whole seeds until the budget is spent; the summary
// names the seeds that ran, and is what `run --seeds THOSE` writes.
TEST(CommandLine, TimeBudgetRunsWholeSeedsAndNamesThem) {
  const fs::path dir = TempDir("budget");
  const std::string suite = WriteSuite(dir).string();
  const Outcome budget = Invoke(RunCommand, {suite, "--time-budget", "1s", "-s", "1-40", "-o", (dir / "b").string()});
  ASSERT_NE(budget.code, kExitBadInput) << budget.err;
  const nlohmann::json summary = nlohmann::json::parse(ReadText(dir / "b" / "summary.json"));
  const std::string seeds = summary["seeds"].get<std::string>();
  ASSERT_EQ(seeds.rfind("1-", 0), 0u) << seeds;  // seeds from the start of the list, in order
  EXPECT_EQ(summary["runs"].size() % 3, 0u);     // whole seeds: every scenario of each
  EXPECT_NE(budget.out.find("time budget: ran seeds " + seeds), std::string::npos) << budget.out;
  const Outcome same = Invoke(RunCommand, {suite, "-s", seeds, "-o", (dir / "s").string()});
  EXPECT_EQ(same.code, budget.code);
  for (const char* name : {"summary.json", "junit.xml", "report.html", "timelines.json"}) {
    EXPECT_EQ(ReadText(dir / "b" / name), ReadText(dir / "s" / name)) << name;
  }
  const Outcome sharded = Invoke(RunCommand, {suite, "--time-budget", "1s", "--shard", "1/2", "-o", (dir / "x").string()});
  EXPECT_EQ(sharded.code, kExitBadInput);
  EXPECT_NE(sharded.err.find("leasesim run: --time-budget: cannot be sharded"), std::string::npos) << sharded.err;
  const Outcome soon = Invoke(RunCommand, {suite, "--time-budget", "soon", "-o", (dir / "x").string()});
  EXPECT_EQ(soon.code, kExitBadInput);
  EXPECT_NE(soon.err.find("leasesim run: --time-budget: must be a duration like 90s"), std::string::npos) << soon.err;
}

}  // namespace
}  // namespace leasesim::cli
