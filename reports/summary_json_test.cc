#include "reports/summary_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace leasesim::reports {
namespace {

TEST(SummaryJson, CarriesEveryRunWithItsVerdictHashAndReplay) {
  SweepSummary sweep{.scenario_file = "s.json", .seeds = "1-2"};
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
  ASSERT_EQ(json["runs"].size(), 2u);
  EXPECT_EQ(json["runs"][0]["trace_hash"], "0000000000000abc");
  EXPECT_EQ(json["runs"][1]["violations"][0]["kind"], "dual_writer");
  EXPECT_EQ(json["runs"][1]["replay"], "leasesim replay s.json --scenario a --seed 2");
  EXPECT_EQ(json["runs"][1]["figures"]["leaderless_ms"], 12);
}

}  // namespace
}  // namespace leasesim::reports
