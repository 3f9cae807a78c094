// `leasesim explore` end to end, and the promise its files rest on: every
// menu item, of every kind, written by the scenario writer, reads back as
// the same fault through the strict parser.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/test_temp_path.h"
#include "cli/command_test_util.h"
#include "cli/commands.h"
#include "fuzz/scenario_json.h"
#include "runner/explore.h"
#include "runner/fault_catalogue.h"
#include "runner/scenario_parser.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;
using command_test::Outcome;
using command_test::SourceDir;

std::string ExploreFile() { return SourceDir() + "/scenarios/explore.json"; }

runner::Scenario Load(const std::string& file, const std::string& name) {
  auto loaded = runner::LoadScenarioFile(file);
  if (auto* error = std::get_if<base::InputError>(&loaded)) ADD_FAILURE() << error->ToString();
  for (const runner::Scenario& scenario : std::get<runner::ScenarioFile>(loaded).scenarios) {
    if (scenario.name == name) return scenario;
  }
  ADD_FAILURE() << file << " has no scenario " << name;
  return {};
}

Outcome Explore(const std::vector<std::string>& args) { return command_test::Invoke(ExploreCommand, args); }

fs::path TempDir(const std::string& name) { return base::FreshTestDir("leasesim_explore_test_" + name); }

// Each item alone in the scenario, written and read back.
void ExpectRoundTrips(const runner::Scenario& base, std::set<runner::FaultKind>& kinds) {
  runner::ExploreMenu menu = runner::DefaultMenu(base);
  menu.durations = {runner::DurationClass::kShort, runner::DurationClass::kMedium, runner::DurationClass::kLong};
  menu.lease_remaining_below = {base.timing.renew_interval};
  for (const runner::MenuItem& item : runner::BuildMenu(base, menu)) {
    kinds.insert(item.fault.kind);
    runner::Scenario scenario = base;
    scenario.faults.push_back(item.fault);
    const std::string text = fuzz::ScenarioFileText({scenario});
    auto parsed = runner::ParseScenarioText("placement.json", text);
    if (auto* error = std::get_if<base::InputError>(&parsed)) {
      ADD_FAILURE() << item.label << ": " << error->ToString();
      continue;
    }
    const runner::Scenario& back = std::get<runner::ScenarioFile>(parsed).scenarios.at(0);
    EXPECT_EQ(back.faults, scenario.faults) << item.label;
  }
}

TEST(ExploreCommand, EveryMenuItemOfEveryKindRoundTripsThroughTheScenarioFile) {
  std::set<runner::FaultKind> kinds;
  ExpectRoundTrips(Load(ExploreFile(), "two-nodes"), kinds);
  // A replicated store in regions admits the replica and region kinds.
  ExpectRoundTrips(Load(SourceDir() + "/scenarios/regions.json", "region-isolated"), kinds);
  // KV store hosts admit the kv_* kinds, each aimed at every host.
  runner::Scenario kv_world = Load(ExploreFile(), "two-nodes");
  kv_world.kv.servers = 2;
  ExpectRoundTrips(kv_world, kinds);
  for (const runner::FaultKindSpec& spec : runner::FaultCatalogue()) EXPECT_TRUE(kinds.contains(spec.kind)) << spec.name;
}

TEST(ExploreCommand, BadInputExitsTwoWithAClearMessage) {
  const std::string file = ExploreFile();
  const fs::path dir = TempDir("bad");
  const auto expect_bad = [](const Outcome& outcome, const std::string& message) {
    EXPECT_EQ(outcome.code, kExitBadInput) << outcome.out << outcome.err;
    EXPECT_NE(outcome.err.find(message), std::string::npos) << outcome.err;
  };
  expect_bad(Explore({file, "--scenario", "nope", "--faults", "1"}),
             "leasesim explore: --scenario: " + file + " has no scenario named \"nope\"");
  expect_bad(Explore({file, "--faults", "1"}), "leasesim explore: --scenario: is required (NAME)");
  expect_bad(Explore({"--scenario", "two-nodes", "--faults", "1"}),
             "leasesim explore: FILE: needs exactly one scenario file");
  expect_bad(Explore({file, "--scenario", "two-nodes", "--faults", "0"}), "--faults: must be a whole number from 1 to 4");
  expect_bad(Explore({file, "--scenario", "two-nodes", "--faults", "5"}), "--faults: must be a whole number from 1 to 4");
  expect_bad(Explore({file, "--scenario", "two-nodes"}), "leasesim explore: --faults: is required (K)");
  expect_bad(Explore({file, "--scenario", "two-nodes", "--faults", "1", "--variant", "sloppy"}),
             "leasesim explore: --protocol: unknown protocol \"sloppy\"");
  const fs::path menu = dir / "menu.json";
  std::ofstream(menu) << R"({"kinds": ["pause"], "durations": ["short", "tiny"]})";
  expect_bad(Explore({file, "--scenario", "two-nodes", "--faults", "1", "--menu", menu.string()}),
             "--menu: " + menu.string() + ": durations[1]: unknown duration class \"tiny\"");
  expect_bad(Explore({file, "--scenario", "two-nodes", "--faults", "1", "--menu", (dir / "none.json").string()}),
             "cannot be read");
}

TEST(ExploreCommand, ViolatingPlacementIsWrittenAndReplaysWithRun) {
  const fs::path dir = TempDir("caught");
  const Outcome outcome = Explore({ExploreFile(), "--scenario", "two-nodes", "--faults", "1", "--protocol",
                                   "no-term-bump", "--out", dir.string(), "--stop-at-first"});
  ASSERT_EQ(outcome.code, kExitViolation) << outcome.out << outcome.err;
  const std::string marker = "replay: leasesim run ";
  const std::size_t at = outcome.out.find(marker);
  ASSERT_NE(at, std::string::npos) << outcome.out;
  const std::string command = outcome.out.substr(at + marker.size(), outcome.out.find('\n', at) - at - marker.size());
  const std::string path = command.substr(0, command.find(' '));
  EXPECT_EQ(command.substr(path.size()), " --seed 1");
  EXPECT_EQ(fs::path(path).parent_path(), dir);
  std::ostringstream out, err;
  EXPECT_EQ(RunCommand({path, "--seed", "1", "--out", (dir / "replayed").string(), "--quiet"}, out, err),
            kExitViolation)
      << out.str() << err.str();
}

TEST(ExploreCommand, CleanExplorationExitsZeroAndNamesUnreachedProbes) {
  const fs::path dir = TempDir("clean");
  const fs::path menu = dir / "menu.json";
  std::ofstream(menu) << R"({"kinds": ["pause", "crash"], "points": ["before_renew"], "targets": ["leader"]})";
  const std::vector<std::string> args = {ExploreFile(), "--scenario", "two-nodes", "--faults", "2",
                                         "--menu", menu.string(), "--out", dir.string()};
  const Outcome first = Explore(args);
  ASSERT_EQ(first.code, kExitOk) << first.out << first.err;
  EXPECT_NE(first.out.find("0 violating"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("probes never reached:"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("fault points reached"), std::string::npos) << first.out;
  EXPECT_EQ(Explore(args).out, first.out);  // deterministic to the byte (the elapsed time goes to stderr)
}

}  // namespace
}  // namespace leasesim::cli
