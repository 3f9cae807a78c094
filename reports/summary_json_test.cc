#include "reports/summary_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "reports/sample_report.h"

namespace leasesim::reports {
namespace {

TEST(SummaryJson, CarriesEveryRunWithItsVerdictHashAndReplay) {
  SweepSummary sweep{.scenario_file = "s.json", .seeds = "1-2", .scenarios = {"a"}};
  sweep.runs.push_back(RunSummary{.scenario = "a", .seed = 1, .ok = true, .trace_hash = 0xabc});
  RunSummary failing{.scenario = "a", .seed = 2, .ok = false, .trace_hash = 0xdef};
  failing.violations.push_back({.kind = "dual_writer", .message = "n1 and n2", .at_ns = 5});
  failing.replay_command = "leasesim replay s.json --scenario a --seed 2";
  failing.figures["leaderless_ms"] = 12;
  sweep.runs.push_back(failing);
  const nlohmann::json json = nlohmann::json::parse(SummaryJson(sweep));
  EXPECT_EQ(json["format"], "leasesim-summary");
  EXPECT_EQ(json["version"], kSummaryVersion);
  EXPECT_EQ(json["totals"]["failed"], 1);
  EXPECT_FALSE(json.contains("shard"));
  ASSERT_EQ(json["runs"].size(), 2u);
  EXPECT_EQ(json["runs"][0]["trace_hash"], "0000000000000abc");
  EXPECT_EQ(json["runs"][1]["violations"][0]["kind"], "dual_writer");
  EXPECT_EQ(json["runs"][1]["replay"], "leasesim replay s.json --scenario a --seed 2");
  EXPECT_EQ(json["runs"][1]["figures"]["leaderless_ms"], 12);
}

TEST(SummaryJson, TotalsPerScenarioWithFigureRanges) {
  const SweepSummary sweep = testing::SampleFailingSweep();
  const nlohmann::json json = nlohmann::json::parse(SummaryJson(sweep));
  ASSERT_EQ(json["scenarios"].size(), 2u);
  const auto& steady = json["scenarios"][0];
  EXPECT_EQ(steady["name"], "steady");
  EXPECT_EQ(steady["runs"], 3);
  EXPECT_EQ(steady["failed"], 0);
  EXPECT_EQ(steady["figures"]["leaderless_ms"]["min"], 16);
  EXPECT_EQ(steady["figures"]["leaderless_ms"]["max"], 18);
  EXPECT_EQ(steady["figures"]["leaderless_ms"]["sum"], 51);
  const auto& failing = json["scenarios"][1];
  EXPECT_EQ(failing["failed"], 1);
  EXPECT_EQ(failing["failed_seeds"], nlohmann::json::array({17}));
}

TEST(SummaryJson, ParsesBackToTheSameBytes) {
  SweepSummary sweep = testing::SampleFailingSweep();
  sweep.shard = Shard{2, 3};
  const std::string text = SummaryJson(sweep);
  auto parsed = ParseSummaryJson(text);
  ASSERT_TRUE(std::holds_alternative<SweepSummary>(parsed)) << std::get<base::InputError>(parsed).ToString();
  const SweepSummary& back = std::get<SweepSummary>(parsed);
  EXPECT_EQ(back.shard, (Shard{2, 3}));
  EXPECT_EQ(back.scenarios, sweep.scenarios);
  EXPECT_EQ(SummaryJson(back), text);
}

// The build, the file's digest and the suite's requirements come back, in
// a shard (pending) and judged (with what no run met).
TEST(SummaryJson, RecordsVersionDigestAndSuiteRequirements) {
  SweepSummary sweep = testing::SampleFailingSweep();
  sweep.file_digest = std::string(64, 'a');
  sweep.suite.fault_points = {"before_renew", "during_release"};
  sweep.suite.probes = {"lease_created"};
  for (const bool judged : {false, true}) {
    sweep.suite.judged = judged;
    sweep.suite.fault_points_unmet = judged ? std::vector<std::string>{"during_release"} : std::vector<std::string>{};
    const std::string text = SummaryJson(sweep);
    const nlohmann::json json = nlohmann::json::parse(text);
    EXPECT_EQ(json["leasesim_version"], std::string(base::Version()));
    EXPECT_EQ(json["file_digest"], std::string(64, 'a'));
    EXPECT_EQ(json["suite"]["require_fault_points"], nlohmann::json::array({"before_renew", "during_release"}));
    EXPECT_EQ(json["suite"]["verdict"], judged ? "failed" : "pending");
    EXPECT_EQ(json["suite"].contains("fault_points_never_fired"), judged);
    auto parsed = ParseSummaryJson(text);
    ASSERT_TRUE(std::holds_alternative<SweepSummary>(parsed)) << std::get<base::InputError>(parsed).ToString();
    const SweepSummary& back = std::get<SweepSummary>(parsed);
    EXPECT_EQ(back.suite.judged, judged);
    EXPECT_EQ(back.suite.failed(), judged);
    EXPECT_EQ(SummaryJson(back), text);
  }
  // Every run keeps its replay command, passing ones too (merge restores them).
  const nlohmann::json json = nlohmann::json::parse(SummaryJson(sweep));
  for (const auto& run : json["runs"]) EXPECT_TRUE(run.contains("replay")) << run.dump();
}

// What leasesim compare checks two sweeps by: the protocol and the digests.
TEST(SummaryJson, CarriesTheVariantAndDigestsBothWays) {
  SweepSummary sweep = testing::SampleFailingSweep();
  sweep.protocol = "no-fencing,no-idempotency-key";
  sweep.file_digest = std::string(64, 'b');
  sweep.scenario_digests["steady"] = std::string(64, 'c');
  const std::string text = SummaryJson(sweep);
  const nlohmann::json json = nlohmann::json::parse(text);
  EXPECT_EQ(json["protocol"], "no-fencing,no-idempotency-key");
  EXPECT_EQ(json["file_digest"], std::string(64, 'b'));
  EXPECT_EQ(json["scenarios"][0]["scenario_digest"], std::string(64, 'c'));
  EXPECT_FALSE(json["scenarios"][1].contains("scenario_digest"));
  auto parsed = ParseSummaryJson(text);
  ASSERT_TRUE(std::holds_alternative<SweepSummary>(parsed)) << std::get<base::InputError>(parsed).ToString();
  const SweepSummary& back = std::get<SweepSummary>(parsed);
  EXPECT_EQ(back.protocol, sweep.protocol);
  EXPECT_EQ(back.file_digest, sweep.file_digest);
  EXPECT_EQ(back.scenario_digests, sweep.scenario_digests);
  EXPECT_EQ(SummaryJson(back), text);
  // Without them (a summary of an older leasesim, or of `live`) none appear.
  EXPECT_FALSE(nlohmann::json::parse(SummaryJson(testing::SampleFailingSweep())).contains("protocol"));
}

TEST(SummaryJson, RejectsWhatItDidNotWrite) {
  EXPECT_TRUE(std::holds_alternative<base::InputError>(ParseSummaryJson("not json")));
  EXPECT_TRUE(std::holds_alternative<base::InputError>(ParseSummaryJson(R"({"format": "other"})")));
  auto old = ParseSummaryJson(R"({"format": "leasesim-summary", "version": 1})");
  ASSERT_TRUE(std::holds_alternative<base::InputError>(old));
  EXPECT_NE(std::get<base::InputError>(old).rule.find("version 1"), std::string::npos);
  auto broken = ParseSummaryJson(
      R"({"format": "leasesim-summary", "version": 2, "scenario_file": "f", "seeds": "1", "scenarios": [],
          "runs": [{"scenario": "a", "seed": 1, "ok": true, "trace_hash": "xyz", "violations": [], "figures": {}}]})");
  ASSERT_TRUE(std::holds_alternative<base::InputError>(broken));
  EXPECT_EQ(std::get<base::InputError>(broken).path, "runs[0].trace_hash");
  EXPECT_EQ(std::get<base::InputError>(broken).ToString(), "runs[0].trace_hash: not 16 hex digits");
}

TEST(Shard, ParsesKOverN) {
  auto shard = ParseShard("2/5");
  ASSERT_TRUE(std::holds_alternative<Shard>(shard));
  EXPECT_EQ(std::get<Shard>(shard), (Shard{2, 5}));
  EXPECT_EQ(FormatShard(Shard{2, 5}), "2/5");
  for (const char* bad : {"", "1", "0/2", "3/2", "1/0", "a/b", "1/2/3", "/2", "1/", "-1/2", "1 /2"}) {
    EXPECT_TRUE(std::holds_alternative<base::InputError>(ParseShard(bad))) << bad;
  }
}

}  // namespace
}  // namespace leasesim::reports
