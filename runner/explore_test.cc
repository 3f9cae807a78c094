#include "runner/explore.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <sstream>

#include "runner/fault_catalogue.h"

namespace leasesim::runner {
namespace {

std::string SourceDir() {
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  return root == nullptr ? "." : root;
}

Scenario TwoNodes() {
  auto loaded = LoadScenarioFile(SourceDir() + "/scenarios/explore.json");
  if (auto* error = std::get_if<base::InputError>(&loaded)) ADD_FAILURE() << error->ToString();
  for (const Scenario& scenario : std::get<ScenarioFile>(loaded).scenarios) {
    if (scenario.name == "two-nodes") return scenario;
  }
  ADD_FAILURE() << "scenarios/explore.json has no scenario two-nodes";
  return {};
}

ExploreMenu Menu(const Scenario& scenario, const std::string& text) {
  auto parsed = ParseMenuText(text, scenario);
  if (auto* error = std::get_if<base::InputError>(&parsed)) ADD_FAILURE() << error->ToString();
  return std::get<ExploreMenu>(parsed);
}

std::string MenuError(const std::string& text) {
  auto parsed = ParseMenuText(text, TwoNodes());
  if (std::holds_alternative<ExploreMenu>(parsed)) return "accepted";
  return std::get<base::InputError>(parsed).In("menu.json");
}

std::vector<std::vector<std::size_t>> AllPlacements(std::size_t items, int k_max) {
  std::vector<std::vector<std::size_t>> placements;
  for (PlacementCursor cursor(items, k_max); !cursor.done() && placements.size() < 100'000; cursor.Next()) {
    EXPECT_EQ(cursor.index(), placements.size());
    placements.push_back(cursor.current());
  }
  return placements;
}

TEST(Explore, PlacementsOfOneFaultComeAfterTheEmptyOneInMenuOrder) {
  using P = std::vector<std::vector<std::size_t>>;
  EXPECT_EQ(AllPlacements(3, 1), (P{{}, {0}, {1}, {2}}));
  EXPECT_EQ(PlacementCount(3, 1), 4u);
}

TEST(Explore, PlacementsOfTwoFaultsAreSetsInLexicographicOrder) {
  using P = std::vector<std::vector<std::size_t>>;
  EXPECT_EQ(AllPlacements(3, 2), (P{{}, {0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}}));
  EXPECT_EQ(PlacementCount(3, 2), 7u);
  // More faults than items: every subset, once.
  EXPECT_EQ(AllPlacements(2, 4).size(), 4u);
  EXPECT_EQ(PlacementCount(2, 4), 4u);
  for (std::size_t items : {5u, 17u, 40u}) {
    for (int k = 1; k <= 3; ++k) EXPECT_EQ(AllPlacements(items, k).size(), PlacementCount(items, k)) << items << " " << k;
  }
  EXPECT_EQ(PlacementCount(1000, 2), 1u + 1000u + 499'500u);
  EXPECT_EQ(PlacementCount(1'000'000'000'000ULL, 4), std::numeric_limits<std::uint64_t>::max());
}

TEST(Explore, TinyMenuHasOneItemPerArrivalAndTimeInFixedOrder) {
  const Scenario scenario = TwoNodes();
  const ExploreMenu menu = Menu(scenario, R"({"kinds": ["pause", "crash"], "points": ["before_renew"],
      "arrivals": [1, 2], "durations": ["long"], "targets": ["leader"], "times_ms": [7000]})");
  const std::vector<MenuItem> items = BuildMenu(scenario, menu);
  std::vector<std::string> labels;
  for (const MenuItem& item : items) labels.push_back(item.label);
  EXPECT_EQ(labels, (std::vector<std::string>{
                        R"(pause at_point="before_renew" duration_ms=3000 node="leader" at_ms=5000)",
                        R"(pause arrival=2 at_point="before_renew" duration_ms=3000 node="leader" at_ms=5000)",
                        R"(pause duration_ms=3000 node="leader" at_ms=7000)",
                        R"(crash at_point="before_renew" node="leader" at_ms=5000)",
                        R"(crash arrival=2 at_point="before_renew" node="leader" at_ms=5000)",
                        R"(crash node="leader" at_ms=7000)",
                    }));
  ASSERT_EQ(items.size(), 6u);
  EXPECT_EQ(items[1].fault.arrival, 2);
  EXPECT_EQ(items[1].fault.at_point, "before_renew");
  EXPECT_EQ(items[2].fault.at, 7000 * sim::kNanosPerMilli);
}

TEST(Explore, DefaultMenuDrawsEveryAdmittedKindOnceEachWithoutDuplicates) {
  const Scenario scenario = TwoNodes();
  const std::vector<MenuItem> items = BuildMenu(scenario, DefaultMenu(scenario));
  std::set<FaultKind> kinds;
  for (const MenuItem& item : items) kinds.insert(item.fault.kind);
  const std::vector<FaultKind> admitted = AdmittedKinds(scenario);
  EXPECT_EQ(kinds, std::set<FaultKind>(admitted.begin(), admitted.end()));
  // A single store, no regions, no KV store hosts: no replica, region or
  // KV host kind is admitted; every other kind is.
  for (const FaultKindSpec& spec : FaultCatalogue()) {
    const bool elsewhere = spec.target == FaultTarget::kReplica || spec.target == FaultTarget::kRegion ||
                           spec.target == FaultTarget::kKv;
    EXPECT_EQ(kinds.contains(spec.kind), !elsewhere) << spec.name;
  }
  std::set<std::string> labels;
  for (const MenuItem& item : items) EXPECT_TRUE(labels.insert(item.label).second) << item.label;
  for (std::size_t i = 1; i < items.size(); ++i) EXPECT_FALSE(items[i].fault == items[i - 1].fault) << i;
  // Short stays within the stated assumptions, long goes beyond them.
  for (const MenuItem& item : items) {
    if (SpecOf(item.fault.kind).within == nullptr) continue;
    const bool short_class = item.fault.duration == scenario.timing.pause_budget ||
                             std::abs(item.fault.drift_ppm) == scenario.timing.drift_bound_ppm;
    EXPECT_EQ(WithinAssumptions(item.fault, scenario.timing), short_class) << item.label;
  }
}

TEST(Explore, BadMenuIsRejectedNamingTheField) {
  EXPECT_NE(MenuError(R"({"kinds": ["pause", "warp"]})").find("menu.json: kinds[1]: unknown fault kind \"warp\""),
            std::string::npos);
  EXPECT_NE(MenuError(R"({"kinds": ["replica_crash"]})").find("kinds[0]: scenario \"two-nodes\" does not admit"),
            std::string::npos);
  EXPECT_NE(MenuError(R"({"arrivals": [0]})").find("arrivals[0]: must be an integer in [1, 1000]"), std::string::npos);
  EXPECT_NE(MenuError(R"({"durations": ["huge"]})").find("durations[0]: unknown duration class"), std::string::npos);
  EXPECT_NE(MenuError(R"({"points": ["before_lunch"]})").find("points[0]: unknown fault point"), std::string::npos);
  EXPECT_NE(MenuError(R"({"targets": [3]})").find("targets[0]: names node 3"), std::string::npos);
  EXPECT_NE(MenuError(R"({"times_ms": [1, 1]})").find("times_ms[1]: repeats an earlier entry"), std::string::npos);
  EXPECT_NE(MenuError(R"({"times_ms": [20001]})").find("times_ms[0]"), std::string::npos);
  EXPECT_NE(MenuError(R"({"kinds": []})").find("kinds: must not be empty"), std::string::npos);
  EXPECT_NE(MenuError(R"({"points": [], "times_ms": []})").find("points: and times_ms are both empty"),
            std::string::npos);
  EXPECT_NE(MenuError(R"({"kind": ["pause"]})").find("menu.json: kind: is not a known field"), std::string::npos);
  EXPECT_NE(MenuError(R"({"arm_at_ms": "soon"})").find("arm_at_ms: must be an integer"), std::string::npos);
  EXPECT_NE(MenuError(R"({"arrivals": [1], "arrivals": [2]})").find("field \"arrivals\" appears twice"), std::string::npos);
  EXPECT_NE(MenuError(R"([1, 2])").find("must be an object"), std::string::npos);
  // A syntax error names its place as compilers do, once: "menu.json:1:11: not valid JSON: ...".
  EXPECT_EQ(MenuError(R"({"kinds": )").rfind("menu.json:1:11: not valid JSON: ", 0), 0u) << MenuError(R"({"kinds": )");
  EXPECT_EQ(MenuError(R"({"kinds": )").find("not valid JSON", 20), std::string::npos);
  EXPECT_EQ(MenuError("{}"), "accepted");
}

// A report as text, to compare two of them whole.
std::string Describe(const ExploreReport& report) {
  std::ostringstream text;
  text << report.menu_items << " " << report.planned << " " << report.ran << " " << report.violating << "\n";
  for (const ViolatingPlacement& found : report.kept) {
    text << found.index << ":";
    for (const checker::Violation& violation : found.violations) text << " " << violation.kind << " " << violation.message;
    text << "\n";
  }
  for (const auto& [probe, placements] : report.probes) text << probe << "=" << placements << " ";
  for (const auto& [point, placements] : report.fault_points) text << point << "=" << placements << " ";
  return text.str();
}

constexpr const char* kSmallMenu = R"({"kinds": ["pause", "isolate_from_store", "crash", "clock_step"],
    "points": ["before_renew", "before_ledger_write"], "arrivals": [1], "targets": ["leader"], "times_ms": [6000]})";

TEST(Explore, SameInputsGiveTheSameReport) {
  Scenario scenario = TwoNodes();
  scenario.protocol = "no-term-bump";
  const std::vector<MenuItem> menu = BuildMenu(scenario, Menu(scenario, kSmallMenu));
  const ExploreOptions options{.faults = 2};
  const ExploreReport first = Explore(scenario, menu, options);
  const ExploreReport second = Explore(scenario, menu, options);
  EXPECT_EQ(first.ran, PlacementCount(menu.size(), 2));
  EXPECT_GT(first.violating, 0u);
  EXPECT_EQ(Describe(first), Describe(second));
}

TEST(Explore, ZooVariantIsCaughtWithOneFaultAndTheCorrectProtocolIsNot) {
  Scenario scenario = TwoNodes();
  const std::vector<MenuItem> menu = BuildMenu(scenario, DefaultMenu(scenario));
  const ExploreReport correct = Explore(scenario, menu, {.faults = 1});
  EXPECT_EQ(correct.ran, menu.size() + 1);
  EXPECT_EQ(correct.violating, 0u) << (correct.kept.empty() ? "" : correct.kept.front().scenario.description);
  scenario.protocol = "no-term-bump";
  std::vector<std::uint64_t> seen;
  const ExploreReport broken = Explore(scenario, menu, {.faults = 1, .keep = 1},
                                       [&](const ViolatingPlacement& found) { seen.push_back(found.index); });
  ASSERT_GT(broken.violating, 0u);
  EXPECT_EQ(seen.size(), broken.violating);  // every one reported, one kept
  ASSERT_EQ(broken.kept.size(), 1u);
  const ViolatingPlacement& first = broken.kept.front();
  EXPECT_GT(first.index, 0u);  // the scenario with no fault added is clean
  EXPECT_EQ(first.scenario.faults.size(), 1u);
  EXPECT_EQ(first.scenario.faults.front(), menu[first.items.front()].fault);
  EXPECT_EQ(first.scenario.name, "two-nodes-placement-" + std::to_string(first.index));
  EXPECT_EQ(first.scenario.protocol, "no-term-bump");
  EXPECT_FALSE(first.violations.empty());
  // Stopping at the first catch runs exactly the placements up to it.
  const ExploreReport stopped = Explore(scenario, menu, {.faults = 1, .stop_at_first = true});
  EXPECT_EQ(stopped.ran, first.index + 1);
  EXPECT_EQ(stopped.violating, 1u);
}

TEST(Explore, LimitRunsTheFirstPlacementsOnly) {
  const Scenario scenario = TwoNodes();
  const std::vector<MenuItem> menu = BuildMenu(scenario, Menu(scenario, kSmallMenu));
  const ExploreReport report = Explore(scenario, menu, {.faults = 3, .limit = 5});
  EXPECT_EQ(report.planned, 5u);
  EXPECT_EQ(report.ran, 5u);
  EXPECT_EQ(report.fault_points.size(), core::kFaultPointNames.size());
  EXPECT_EQ(report.probes.size(), core::kProbeNames.size());
}

TEST(Explore, ProgressCountsEveryPlacementAndTheViolatingOnes) {
  Scenario scenario = TwoNodes();
  scenario.protocol = "no-term-bump";
  const std::vector<MenuItem> menu = BuildMenu(scenario, Menu(scenario, kSmallMenu));
  std::vector<ExploreProgress> reports;
  const ExploreReport report = Explore(scenario, menu, {.faults = 2}, {},
                                       [&](const ExploreProgress& progress) { reports.push_back(progress); });
  ASSERT_GT(report.violating, 0u);
  ASSERT_EQ(reports.size(), report.ran + 2);  // before the first, after each, at the end
  for (std::size_t i = 0; i + 1 < reports.size(); ++i) {
    EXPECT_EQ(reports[i].done, i);
    EXPECT_EQ(reports[i].total, report.planned);
    EXPECT_FALSE(reports[i].finished);
    EXPECT_LE(reports[i].violating, reports[i + 1].violating);
  }
  EXPECT_TRUE(reports.back().finished);
  EXPECT_EQ(reports.back().done, report.ran);
  EXPECT_EQ(reports.back().violating, report.violating);
  // Watching changes nothing the exploration finds.
  EXPECT_EQ(Describe(report), Describe(Explore(scenario, menu, {.faults = 2})));
}

TEST(Explore, NemesisScenarioIsRefused) {
  Scenario scenario = TwoNodes();
  EXPECT_FALSE(ExploreRefusal(scenario));
  scenario.nemesis.enabled = true;
  ASSERT_TRUE(ExploreRefusal(scenario));
  EXPECT_NE(ExploreRefusal(scenario)->find("nemesis"), std::string::npos);
}

}  // namespace
}  // namespace leasesim::runner
