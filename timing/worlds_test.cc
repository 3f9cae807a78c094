// The verify worlds are ordinary scenario files with the derived lease;
// their store latency has the asked-for percentiles; the measures read a
// history the way a user would; the sweep's table and plot are a function
// of the inputs and seeds.

#include <gtest/gtest.h>

#include <set>
#include <variant>

#include "base/units.h"
#include "runner/scenario_parser.h"
#include "timing/derive.h"
#include "timing/measure.h"
#include "timing/regions.h"
#include "timing/sweep.h"
#include "timing/verify.h"
#include "timing/worlds.h"
#include "timing/targets_test_values.h"

namespace leasesim::timing {
namespace {

using base::Millis;

using test_values::IssueTargets;

runner::ScenarioFile Parse(const WorldSet& set) {
  auto parsed = runner::ParseScenarioText("worlds.json", set.file.dump(2));
  if (auto* error = std::get_if<base::InputError>(&parsed)) ADD_FAILURE() << error->ToString();
  return std::get<runner::ScenarioFile>(parsed);
}

RunPlan Seeds(std::uint64_t n) {
  RunPlan plan{{}, "1-" + std::to_string(n), 1};
  for (std::uint64_t seed = 1; seed <= n; ++seed) plan.seeds.push_back(seed);
  return plan;
}

TEST(VerifyWorlds, EveryWorldIsAScenarioTheParserReadsWithTheDerivedLease) {
  const Targets t = IssueTargets();
  const Derivation d = std::get<Derivation>(Derive(t));
  const WorldSet set = VerifyWorlds(t, d.timing, nullptr);
  const runner::ScenarioFile file = Parse(set);
  ASSERT_EQ(file.scenarios.size(), set.worlds.size());
  std::set<WorldRole> roles;
  for (std::size_t i = 0; i < set.worlds.size(); ++i) {
    const runner::Scenario& s = file.scenarios[i];
    EXPECT_EQ(s.name, set.worlds[i].name);
    EXPECT_EQ(s.timing.lease_duration, d.timing.lease_duration) << s.name;
    EXPECT_EQ(s.timing.renew_deadline, d.timing.renew_deadline) << s.name;
    EXPECT_EQ(s.timing.renew_interval, d.timing.renew_interval) << s.name;
    EXPECT_EQ(s.timing.retry, d.timing.retry) << s.name;
    EXPECT_EQ(s.timing.request_timeout, d.timing.request_timeout) << s.name;
    EXPECT_EQ(s.timing.safety_margin, d.timing.safety_margin) << s.name;
    EXPECT_EQ(s.timing.pause_budget, d.timing.pause_budget) << s.name;
    EXPECT_EQ(s.timing.drift_bound_ppm, d.timing.drift_bound_ppm) << s.name;
    roles.insert(set.worlds[i].role);
    ASSERT_EQ(s.clocks.size(), 2u);
    EXPECT_EQ(s.clocks[0].drift_ppm, -500);
    EXPECT_EQ(s.clocks[1].drift_ppm, 500);
  }
  EXPECT_EQ(roles.size(), 4u);
  // No pause budget promised: no world pauses within it.
  Targets none = t;
  none.pause_budget_ms = 0;
  const WorldSet without = VerifyWorlds(none, std::get<Derivation>(Derive(none)).timing, nullptr);
  EXPECT_EQ(without.worlds.size() + 1, set.worlds.size());
}

TEST(VerifyWorlds, TheStoreLatencyHasTheAskedForPercentiles) {
  Targets t = IssueTargets();
  t.store_p999_ms = 500;
  const Derivation d = std::get<Derivation>(Derive(t));
  const WorldSet steady = SelectWorlds(VerifyWorlds(t, d.timing, nullptr), {kSteadyWorld});
  ASSERT_EQ(steady.worlds.size(), 1u);
  const CallThresholds thresholds{200, 500, 750};
  // Calls only (a watch's answers are none): the leader's writes and the
  // candidates' few reads, about 43 a run, so a thousand runs.
  const std::vector<WorldStats> stats = RunWorlds(Parse(steady), steady, thresholds, Seeds(1000));
  ASSERT_EQ(stats.size(), 1u);
  const WorldStats& w = stats[0];
  ASSERT_GT(w.calls, 40'000);
  // 1 % and 0.1 % of calls, each within a factor of two.
  EXPECT_GT(w.over_p99 * 200, w.calls) << w.over_p99 << " of " << w.calls;
  EXPECT_LT(w.over_p99 * 50, w.calls) << w.over_p99 << " of " << w.calls;
  EXPECT_GT(w.over_p999 * 2'000, w.calls) << w.over_p999 << " of " << w.calls;
  EXPECT_LT(w.over_p999 * 500, w.calls) << w.over_p999 << " of " << w.calls;
  EXPECT_EQ(w.violating_runs, 0);
  EXPECT_EQ(w.demotions, 0);
}

checker::LeadershipBelief Belief(int node, std::int64_t from_ms, std::int64_t until_ms, const char* reason) {
  return {.node = node, .holder = "n" + std::to_string(node), .term = node, .from_ns = Millis(from_ms),
          .until_ns = Millis(until_ms), .end_reason = reason};
}

TEST(MeasureHistory, AFailoverIsFromTheFaultToTheNextLeaderAndARiddenOutFaultIsKept) {
  checker::History history;
  history.end_ns = Millis(100'000);
  history.beliefs = {Belief(1, 0, 20'000, "crash"), Belief(2, 32'500, 60'000, "deadline"),
                     Belief(3, 73'000, 100'000, "end_of_run")};
  history.faults = {{.kind = "crash", .nodes = {1}, .start_ns = Millis(20'000), .end_ns = Millis(20'000)},
                    {.kind = "isolate_from_store", .nodes = {2}, .start_ns = Millis(50'000), .end_ns = Millis(75'000)},
                    {.kind = "pause", .nodes = {3}, .start_ns = Millis(80'000), .end_ns = Millis(80'500)},
                    {.kind = "pause", .nodes = {1}, .start_ns = Millis(85'000), .end_ns = Millis(85'500)},
                    {.kind = "store_outage", .nodes = {}, .start_ns = Millis(61'000), .end_ns = Millis(70'000)}};
  const RunMeasure m = MeasureHistory(history, {200, 300, 400});
  EXPECT_EQ(m.failover_ms, (std::vector<std::int64_t>{12'500, 23'000}));
  EXPECT_EQ(m.kept, 1);  // node 3's pause; node 1's found it not leading
  EXPECT_EQ(m.unrecovered, 0);
  EXPECT_EQ(m.recovery_ms, (std::vector<std::int64_t>{3'000}));
  std::map<std::string, std::int64_t> figures;
  AddMeasureFigures(m, figures);
  const RunMeasure back = MeasureFromFigures(figures);
  EXPECT_EQ(back.failover_ms, m.failover_ms);
  EXPECT_EQ(back.recovery_ms, m.recovery_ms);
  EXPECT_EQ(back.kept, 1);
}

// Percentiles are base::NearestRank's (base/percentile_test.cc).
TEST(Measure, RatesAreIntegers) {
  EXPECT_EQ(FormatHundredths(PerHourHundredths(3, 2 * 3'600'000)), "1.50");
}

TEST(Judge, AFailoverP99OverTheTargetOrAViolationIsNotVerified) {
  const Targets t = IssueTargets();
  WorldStats crash{.world = {kCrashWorld, WorldRole::kFailover}};
  for (int i = 0; i < 100; ++i) crash.failover_ms.push_back(12'000);
  EXPECT_TRUE(Judge({crash}, t, 14'967).passed());
  crash.failover_ms[0] = 16'000;  // one in a hundred: still the p99
  EXPECT_TRUE(Judge({crash}, t, 14'967).passed());
  crash.failover_ms[1] = 16'000;  // two: the p99 is over
  EXPECT_FALSE(Judge({crash}, t, 14'967).target_met);
  WorldStats steady{.world = {kSteadyWorld, WorldRole::kQuiet}, .violating_runs = 1};
  crash.failover_ms[1] = 12'000;
  EXPECT_FALSE(Judge({crash, steady}, t, 14'967).passed());
  EXPECT_FALSE(Judge({}, t, 14'967).target_met);  // nothing measured proves nothing
  WorldStats outage{.world = {"timing-store-outage-long", WorldRole::kOutage}, .recovery_ms = {900, 15'000}};
  EXPECT_TRUE(Judge({crash, outage}, t, 15'000).passed());
  EXPECT_FALSE(Judge({crash, outage}, t, 14'967).recovery_met);
  outage.recovery_ms = {900};
  outage.unrecovered = 1;  // nobody led again after it
  EXPECT_FALSE(Judge({crash, outage}, t, 15'000).passed());
}

TEST(VerifyWorlds, ABrokenProtocolInTheWorldsIsCaught) {
  const Targets t = IssueTargets();
  const Derivation d = std::get<Derivation>(Derive(t));
  const WorldSet set = VerifyWorlds(t, d.timing, nullptr);
  runner::ScenarioFile file = Parse(set);
  for (runner::Scenario& s : file.scenarios) s.protocol = "connection-loss-still-leading";
  const std::vector<WorldStats> stats = RunWorlds(file, set, {200, 300, 400}, Seeds(5));
  std::int64_t violating = 0;
  for (const WorldStats& w : stats) violating += w.violating_runs;
  EXPECT_GT(violating, 0);
  EXPECT_FALSE(Judge(stats, t, 14'967).passed());
}

TEST(Sweep, TheSameInputsAndSeedsGiveTheSameTableAndPlot) {
  const Targets t = IssueTargets();
  const Derivation d = std::get<Derivation>(Derive(t));
  const std::vector<SweepRow> first = RunTimingSweep(t, d, nullptr, Seeds(2));
  const std::vector<SweepRow> second = RunTimingSweep(t, d, nullptr, Seeds(2));
  EXPECT_EQ(SweepTable(first, t, "1-2"), SweepTable(second, t, "1-2"));
  EXPECT_EQ(SweepSvg(first, t), SweepSvg(second, t));
  ASSERT_EQ(first.size(), SweepDurations(12'600).size());
  int derived = 0;
  for (const SweepRow& row : first) {
    derived += row.derived ? 1 : 0;
    if (!row.valid) continue;
    EXPECT_GT(row.failover_p99_ms, 0) << row.duration_ms;  // measured, not asserted
    ASSERT_EQ(row.worlds.size(), 3u);
    EXPECT_EQ(row.worlds[0].by_seed_demotions.size(), 2u);
  }
  EXPECT_EQ(derived, 1);
  // Longer leases fail over more slowly.
  EXPECT_LT(first.front().failover_p99_ms, first.back().failover_p99_ms);
  EXPECT_NE(SweepSvg(first, t).find("<polyline"), std::string::npos);
}

TEST(Regions, TheFarthestNodesRoundTripIsAddedAndMissingFieldsAreNamed) {
  const std::string text = R"({"names": ["us", "ap"], "within_ms": {"base": 1, "jitter": 1},
    "between": [{"regions": ["us", "ap"], "latency_ms": {"base": 80, "jitter": 10}}],
    "nodes": ["us", "ap", "ap"], "store": "us"})";
  auto parsed = ParseRegionsText(text);
  ASSERT_TRUE(std::holds_alternative<RegionsPlan>(parsed)) << std::get<base::InputError>(parsed).ToString();
  const RegionsPlan& plan = std::get<RegionsPlan>(parsed);
  EXPECT_EQ(plan.nodes, 3);
  EXPECT_EQ(plan.local_rtt_ms, 4);
  EXPECT_EQ(plan.extra_rtt_ms, 176);  // (80 + 10) x 2 - 4
  EXPECT_EQ(plan.json["ledger"], "us");
  auto missing = ParseRegionsText(R"({"names": ["us"], "within_ms": {"base": 1}, "nodes": ["us", "us"]})");
  ASSERT_TRUE(std::holds_alternative<base::InputError>(missing));
  EXPECT_EQ(std::get<base::InputError>(missing).path, "store");
  EXPECT_EQ(std::get<base::InputError>(missing).In("r.json"), "r.json: store: is required: the region of the store");
  auto unknown = ParseRegionsText(R"({"names": ["us"], "within_ms": {"base": 1}, "nodes": ["us", "eu"],
    "store": "us"})");
  ASSERT_TRUE(std::holds_alternative<base::InputError>(unknown));
  EXPECT_NE(std::get<base::InputError>(unknown).ToString().find("nodes[1]"), std::string::npos);
  // The worlds run in that placement.
  Targets t = IssueTargets();
  t.region_extra_rtt_ms = plan.extra_rtt_ms;
  const Derivation d = std::get<Derivation>(Derive(t));
  const runner::ScenarioFile file = Parse(VerifyWorlds(t, d.timing, &plan));
  EXPECT_TRUE(file.scenarios.front().replicated.regions.enabled());
  EXPECT_EQ(file.scenarios.front().nodes, 3);
}

}  // namespace
}  // namespace leasesim::timing
