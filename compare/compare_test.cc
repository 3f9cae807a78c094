#include "compare/compare.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "compare/render.h"
#include "reports/summary_json.h"
#include "base/test_temp_path.h"

namespace leasesim::compare {
namespace {

// A side of `seeds` runs of scenario "s"; figure(seed) gives leaderless_ms.
Side MakeSide(int seeds, const std::function<std::int64_t(int)>& leaderless, const std::string& protocol = "") {
  Side side{.directory = protocol.empty() ? "base" : protocol};
  side.sweep = {.scenario_file = "f.json", .seeds = "1-" + std::to_string(seeds), .scenarios = {"s"}};
  side.sweep.protocol = protocol;
  side.sweep.file_digest = std::string(64, 'f');
  side.sweep.scenario_digests["s"] = std::string(64, '5');
  for (int seed = 1; seed <= seeds; ++seed) {
    reports::RunSummary run{.scenario = "s", .seed = static_cast<std::uint64_t>(seed), .trace_hash = 7};
    run.figures["leaderless_ms"] = leaderless(seed);
    run.figures["settlements_applied"] = 20;
    run.figures["sim_events"] = 1000 + seed;
    run.replay_command = "leasesim replay f.json --scenario s --seed " + std::to_string(seed);
    side.sweep.runs.push_back(run);
  }
  return side;
}

Comparison MustCompare(const Side& base, const Side& next, const CompareOptions& options = {}) {
  auto result = Compare(base, next, options);
  EXPECT_TRUE(std::holds_alternative<Comparison>(result)) << std::get<base::InputError>(result).ToString();
  return std::get<Comparison>(std::move(result));
}

const FigureRow& Row(const Comparison& c, const std::string& figure) {
  for (const FigureRow& row : c.scenarios.at(0).figures) {
    if (row.figure == figure) return row;
  }
  ADD_FAILURE() << "no row " << figure;
  return c.scenarios.at(0).figures.at(0);
}

std::int64_t Spread(int seed) { return 100 + (seed * 37) % 50; }

TEST(Compare, ASideAgainstItselfIsNoDifference) {
  const Side side = MakeSide(20, Spread);
  const Comparison c = MustCompare(side, side);
  EXPECT_TRUE(c.identical());
  EXPECT_EQ(c.ExitCode(), kExitNotWorse);
  EXPECT_EQ(VerdictWord(c), "no difference");
  EXPECT_NE(Markdown(c).find("**leasesim compare: no difference**"), std::string::npos);
  EXPECT_EQ(Row(c, "leaderless_ms").verdict, FigureVerdict::kSame);
}

TEST(Compare, ANewlyFailingSeedFailsWithItsViolationAndReplay) {
  const Side base = MakeSide(10, Spread);
  Side next = MakeSide(10, Spread, "v");
  next.sweep.runs[3].ok = false;
  next.sweep.runs[3].violations.push_back({.kind = "dual_writer", .message = "n1 and n2 wrote"});
  next.sweep.runs[3].violations.push_back({.kind = "slow_recovery", .message = "fine here", .expected = true});
  next.sweep.runs[3].replay_command = "leasesim replay f.json --scenario s --seed 4 --protocol v";
  const Comparison c = MustCompare(base, next);
  EXPECT_EQ(c.ExitCode(), kExitWorse);
  ASSERT_EQ(c.scenarios[0].newly_failing.size(), 1u);
  const SeedChange& change = c.scenarios[0].newly_failing[0];
  EXPECT_EQ(change.seed, 4u);
  ASSERT_EQ(change.violations.size(), 1u);  // the expected one is not a new failure
  EXPECT_EQ(change.violations[0].kind, "dual_writer");
  const std::string markdown = Markdown(c);
  EXPECT_NE(markdown.find("**leasesim compare: worse** — 1 seed newly fails"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("`leasesim replay f.json --scenario s --seed 4 --protocol v`"), std::string::npos);
  // The other way round, the seed is fixed and nothing got worse.
  const Comparison back = MustCompare(next, base);
  EXPECT_EQ(back.ExitCode(), kExitNotWorse);
  EXPECT_EQ(back.fixed(), 1);
  EXPECT_EQ(VerdictWord(back), "not worse");
}

// 20 seeds each 150 ms worse: exact Wilcoxon p = 2/2^20, a shift of 150
// against a base mean near 124 (+121%).
TEST(Compare, AShiftOnEverySeedIsARealRegressionWithItsSize) {
  const Side base = MakeSide(20, Spread);
  const Side next = MakeSide(20, [](int seed) { return Spread(seed) + 150; }, "v");
  const Comparison c = MustCompare(base, next);
  const FigureRow& row = Row(c, "leaderless_ms");
  EXPECT_EQ(row.verdict, FigureVerdict::kRegressed);
  EXPECT_EQ(row.differing, 20);
  EXPECT_DOUBLE_EQ(row.shift, 150.0);
  EXPECT_DOUBLE_EQ(row.mean_change, 150.0);
  EXPECT_DOUBLE_EQ(row.rank_biserial, 1.0);
  EXPECT_EQ(row.signed_rank.p.count, 2u);
  EXPECT_EQ(row.signed_rank.p.total, 1u << 20);
  EXPECT_EQ(c.ExitCode(), kExitWorse);
  EXPECT_EQ(c.newly_failing(), 0);
  // A tolerance wider than the shift lets it through; the row says so.
  base::InputError error;
  const Comparison tolerated = MustCompare(base, next, {.tolerances = {*ParseTolerance("leaderless_ms=+200%", error)}});
  EXPECT_EQ(Row(tolerated, "leaderless_ms").verdict, FigureVerdict::kWithinTolerance);
  EXPECT_EQ(tolerated.ExitCode(), kExitNotWorse);
  // Lower leaderless time is an improvement.
  EXPECT_EQ(Row(MustCompare(next, base), "leaderless_ms").verdict, FigureVerdict::kImproved);
}

TEST(Compare, SmallOrUnclearShiftsDoNotFail) {
  const Side base = MakeSide(20, Spread);
  // +2 ms on every seed: real, within the default 5%.
  EXPECT_EQ(Row(MustCompare(base, MakeSide(20, [](int s) { return Spread(s) + 2; }, "v")), "leaderless_ms").verdict,
            FigureVerdict::kWithinTolerance);
  // Up on odd seeds, down on even ones: not significant.
  const Comparison mixed = MustCompare(base, MakeSide(20, [](int s) { return Spread(s) + (s % 2 ? 30 : -30); }, "v"));
  EXPECT_EQ(Row(mixed, "leaderless_ms").verdict, FigureVerdict::kNotSignificant);
  EXPECT_EQ(mixed.ExitCode(), kExitNotWorse);
}

TEST(Compare, NeutralFiguresAreReportedNotGated) {
  const Side base = MakeSide(20, Spread);
  Side next = MakeSide(20, Spread, "v");
  for (reports::RunSummary& run : next.sweep.runs) run.figures["sim_events"] *= 3;
  const Comparison c = MustCompare(base, next);
  EXPECT_EQ(Row(c, "sim_events").verdict, FigureVerdict::kShifted);
  EXPECT_EQ(c.ExitCode(), kExitNotWorse);
}

TEST(Compare, NeverRanksAboveEveryValue) {
  const Side base = MakeSide(20, Spread);
  Side next = MakeSide(20, Spread, "v");
  for (std::size_t i = 0; i < 20; ++i) {
      next.sweep.runs[i].figures["recovery_ms"] = -1;  // never recovered
  }
  Side base_with = base;
  for (reports::RunSummary& run : base_with.sweep.runs) run.figures["recovery_ms"] = 900;
  const Comparison c = MustCompare(base_with, next);
  const FigureRow& row = Row(c, "recovery_ms");
  EXPECT_EQ(row.never_value, 901);
  EXPECT_EQ(row.next.never, 20);
  EXPECT_EQ(row.verdict, FigureVerdict::kRegressed);
  EXPECT_EQ(FormatValue(row.next.median, row.never_value), "never");
}

TEST(Compare, RefusesSidesThatAreNotTheSameExperiment) {
  const Side base = MakeSide(10, Spread);
  auto refusal = [&](const Side& next, const CompareOptions& options = {}) {
    auto result = Compare(base, next, options);
    const auto* error = std::get_if<base::InputError>(&result);
    return error != nullptr ? error->ToString() : std::string("compared");
  };
  // The refusal is the one bad-input error: the summary.json field the
  // sides disagree on, and how.
  auto fewer_seeds = Compare(base, MakeSide(9, Spread), {});
  ASSERT_TRUE(std::holds_alternative<base::InputError>(fewer_seeds));
  EXPECT_EQ(std::get<base::InputError>(fewer_seeds).path, "seeds");
  EXPECT_EQ(std::get<base::InputError>(fewer_seeds).rule, "the seeds differ: base ran 1-10, new ran 1-9");
  Side other_file = MakeSide(10, Spread);
  other_file.sweep.file_digest = std::string(64, '9');
  EXPECT_EQ(refusal(other_file).rfind("file_digest: the scenario files differ", 0), 0u) << refusal(other_file);
  Side other_scenario = MakeSide(10, Spread);
  other_scenario.sweep.scenario_digests["s"] = std::string(64, '7');
  EXPECT_NE(refusal(other_scenario).find("scenarios whose content differs (scenario_digest): s"), std::string::npos);
  // Allowed on request, and then said in the notes.
  auto allowed = Compare(base, other_scenario, {.allow_scenario_change = true});
  ASSERT_TRUE(std::holds_alternative<Comparison>(allowed));
  EXPECT_NE(std::get<Comparison>(allowed).notes.at(0).find("--allow-scenario-change"), std::string::npos);
  Side missing_run = MakeSide(10, Spread);
  missing_run.sweep.runs.pop_back();
  EXPECT_EQ(refusal(missing_run).rfind("runs: the seeds differ in scenario s", 0), 0u) << refusal(missing_run);
  Side live = MakeSide(10, Spread);
  live.live = true;
  EXPECT_NE(refusal(live).find("compare like with like"), std::string::npos);
}

// Live runs: unpaired; a new violation kind fails, figures by Mann–Whitney.
TEST(Compare, LiveRunsAreComparedUnpaired) {
  Side base = MakeSide(6, Spread);
  Side next = MakeSide(6, [](int s) { return Spread(s) + 500; }, "v");
  for (Side* side : {&base, &next}) {
    side->live = true;
    side->sweep.scenario_file = "live";
    side->sweep.seeds = "live";
    side->sweep.scenarios = {"live"};  // as LoadSide pools them
    for (reports::RunSummary& run : side->sweep.runs) run.scenario = "live";
  }
  next.sweep.runs[0].ok = false;
  next.sweep.runs[0].violations.push_back({.kind = "lease_overlap", .message = "two leaders"});
  const Comparison c = MustCompare(base, next);
  EXPECT_TRUE(c.live);
  const FigureRow& row = Row(c, "leaderless_ms");
  EXPECT_FALSE(row.paired);
  EXPECT_EQ(row.rank_sum.p.count, 2u);  // the 6 new runs rank above all 6 base runs: 2 of C(12, 6)
  EXPECT_EQ(row.rank_sum.p.total, 924u);
  EXPECT_EQ(row.verdict, FigureVerdict::kRegressed);
  EXPECT_EQ(c.newly_failing(), 1);
  EXPECT_EQ(c.ExitCode(), kExitWorse);
  EXPECT_NE(Markdown(c).find("Live runs, unpaired."), std::string::npos);
}

TEST(Compare, JsonCarriesTheVerdictAndEveryFigure) {
  const Side base = MakeSide(20, Spread);
  const Comparison c = MustCompare(base, MakeSide(20, [](int s) { return Spread(s) + 150; }, "v"));
  const nlohmann::json json = nlohmann::json::parse(Json(c));
  EXPECT_EQ(json["format"], "leasesim-compare");
  EXPECT_EQ(json["verdict"], "worse");
  EXPECT_EQ(json["exit_code"], 1);
  EXPECT_EQ(json["new"]["protocol"], "v");
  const auto& figures = json["scenarios"][0]["figures"];
  ASSERT_EQ(figures.size(), 3u);
  EXPECT_EQ(figures[0]["figure"], "leaderless_ms");
  EXPECT_EQ(figures[0]["test"], "wilcoxon-signed-rank");
  EXPECT_EQ(figures[0]["p_exact"], "2/1048576");
  EXPECT_EQ(figures[0]["direction"], "lower is better");
}

TEST(LoadSide, NamesWhatIsWrong) {
  namespace fs = std::filesystem;
  const fs::path root = base::TestTempPath("leasesim-compare-load-test");
  fs::remove_all(root);
  fs::create_directories(root / "empty");
  fs::create_directories(root / "corrupt");
  std::ofstream(root / "corrupt" / "summary.json") << "{\"format\": \"leasesim-summary\", \"version\": 2}";
  auto error_of = [](const fs::path& path) {
    auto side = LoadSide(path.string());
    return std::holds_alternative<std::string>(side) ? std::get<std::string>(side) : std::string("loaded");
  };
  EXPECT_NE(error_of(root / "nowhere").find("not a directory"), std::string::npos);
  EXPECT_NE(error_of(root / "empty").find("holds no summary.json"), std::string::npos);
  EXPECT_NE(error_of(root / "corrupt").find("summary.json: summary: missing \"scenario_file\""), std::string::npos);
  // Live runs in subdirectories are pooled in name order.
  reports::SweepSummary live{.scenario_file = "live", .seeds = "live", .scenarios = {"live-correct"}};
  live.runs.push_back({.scenario = "live-correct"});
  for (const char* run : {"b", "a"}) {
    fs::create_directories(root / "live" / run);
    std::ofstream(root / "live" / run / "summary.json") << reports::SummaryJson(live);
  }
  auto pooled = LoadSide((root / "live").string());
  ASSERT_TRUE(std::holds_alternative<Side>(pooled)) << std::get<std::string>(pooled);
  EXPECT_TRUE(std::get<Side>(pooled).live);
  EXPECT_EQ(std::get<Side>(pooled).sweep.runs.size(), 2u);
  EXPECT_NE(std::get<Side>(pooled).sources.at(0).find("/a/summary.json"), std::string::npos);
  fs::remove_all(root);
}

}  // namespace
}  // namespace leasesim::compare
