#include "runner/scenario_parser.h"

#include <gtest/gtest.h>

#include "runner/test_scenarios.h"

namespace leasesim::runner {
namespace {

using testing::ScenarioJson;

std::string ErrorOf(const std::string& text) {
  auto parsed = ParseScenarioText("s.json", text);
  if (std::holds_alternative<ScenarioFile>(parsed)) return "";
  return std::get<base::InputError>(parsed).In("s.json");
}

TEST(ScenarioParser, ReadsASoundScenarioIntoIntegerUnits) {
  auto parsed = ParseScenarioText("s.json", ScenarioJson(R"("faults": [{"at_ms": 5000, "kind": "crash", "node": "leader"}])"));
  ASSERT_TRUE(std::holds_alternative<ScenarioFile>(parsed)) << std::get<base::InputError>(parsed).ToString();
  const Scenario& s = std::get<ScenarioFile>(parsed).scenarios.at(0);
  EXPECT_EQ(s.nodes, 3);
  EXPECT_EQ(s.timing.lease_duration, 10'000 * sim::kNanosPerMilli);
  EXPECT_EQ(s.network.loss_ppm, 1000u);
  ASSERT_EQ(s.faults.size(), 1u);
  EXPECT_TRUE(s.faults[0].node.leader);
}

TEST(ScenarioParser, MalformedJsonNamesLineAndColumn) {
  const std::string error = ErrorOf("{\n  \"scenarios\": [\n    {,\n");
  EXPECT_NE(error.find("s.json:3:"), std::string::npos) << error;
  EXPECT_NE(error.find("not valid JSON"), std::string::npos) << error;
}

TEST(ScenarioParser, UnknownFieldIsNamedWithItsPath) {
  const std::string error = ErrorOf(ScenarioJson(R"("nodez": 3)"));
  EXPECT_NE(error.find("scenarios[0].nodez: is not a known field"), std::string::npos) << error;
}

// The one bad-input error: the field's path and the rule apart (what
// `check --json` and the tests read), the file named only when printed.
TEST(ScenarioParser, AnErrorHoldsTheFieldAndTheRuleApart) {
  auto parsed = ParseScenarioText("s.json", ScenarioJson(R"("nodez": 3)"));
  const base::InputError* error = std::get_if<base::InputError>(&parsed);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->path, "scenarios[0].nodez");
  EXPECT_TRUE(error->rule.starts_with("is not a known field")) << error->rule;
  EXPECT_EQ(error->In("s.json"), "s.json: scenarios[0].nodez: " + error->rule);
  auto unread = LoadScenarioFile("/nonexistent/s.json");
  ASSERT_TRUE(std::holds_alternative<base::InputError>(unread));
  EXPECT_EQ(std::get<base::InputError>(unread).In("/nonexistent/s.json"), "/nonexistent/s.json: cannot be read");
}

TEST(ScenarioParser, MissingFieldIsNamed) {
  std::string text = ScenarioJson();
  text.replace(text.find("\"retry_ms\": 1000, "), std::string("\"retry_ms\": 1000, ").size(), "");
  const std::string error = ErrorOf(text);
  EXPECT_NE(error.find("scenarios[0].lease.retry_ms: is required"), std::string::npos) << error;
}

TEST(ScenarioParser, WrongTypeIsNamed) {
  std::string text = ScenarioJson();
  text.replace(text.find("\"nodes\": 3"), 10, "\"nodes\": \"3\"");
  EXPECT_NE(ErrorOf(text).find("scenarios[0].nodes: must be an integer"), std::string::npos);
}

TEST(ScenarioParser, FaultOnAMissingNodeIsRejected) {
  const std::string error = ErrorOf(ScenarioJson(R"("faults": [{"at_ms": 5000, "kind": "crash", "node": 7}])"));
  EXPECT_NE(error.find("scenarios[0].faults[0].node: names node 7, but the scenario has nodes 1..3"),
            std::string::npos) << error;
}

TEST(ScenarioParser, NegativeDurationIsRejected) {
  const std::string error = ErrorOf(ScenarioJson(R"("faults": [{"at_ms": 5000, "kind": "pause", "node": 1, "duration_ms": -5}])"));
  EXPECT_NE(error.find("scenarios[0].faults[0].duration_ms: must be in [1, "), std::string::npos) << error;
}

TEST(ScenarioParser, UnsoundTimingNamesTheRule) {
  std::string text = ScenarioJson();
  text.replace(text.find("\"renew_deadline_ms\": 7000"), 25, "\"renew_deadline_ms\": 9900");
  const std::string error = ErrorOf(text);
  EXPECT_NE(error.find("scenarios[0].lease.renew_deadline_ms: must be < lease_duration*(1 - drift_bound) - safety_margin"),
            std::string::npos) << error;
}

TEST(ScenarioParser, DuplicateKeysAreRefusedNotSilentlyDropped) {
  std::string text = ScenarioJson(R"("nodes": 5)");
  EXPECT_NE(ErrorOf(text).find("\"nodes\" appears twice"), std::string::npos);
}

TEST(ScenarioParser, UnknownFaultKindListsTheKnownOnes) {
  const std::string error = ErrorOf(ScenarioJson(R"("faults": [{"at_ms": 5000, "kind": "meteor", "node": 1}])"));
  EXPECT_NE(error.find("unknown fault kind \"meteor\""), std::string::npos) << error;
}

TEST(ScenarioParser, ShippedSuiteParses) {
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  ASSERT_NE(root, nullptr);
  auto parsed = LoadScenarioFile(std::string(root) + "/scenarios/ci.json");
  ASSERT_TRUE(std::holds_alternative<ScenarioFile>(parsed)) << std::get<base::InputError>(parsed).ToString();
  EXPECT_GE(std::get<ScenarioFile>(parsed).scenarios.size(), 3u);
}

}  // namespace
}  // namespace leasesim::runner
