#include "reports/timeline_json.h"

#include <gtest/gtest.h>

#include "reports/sample_report.h"

namespace leasesim::reports {
namespace {

TEST(TimelinesJson, RoundTripsEveryField) {
  std::vector<Timeline> timelines = {testing::SampleFailingTimeline(), Timeline{.scenario = "empty", .seed = 3}};
  const std::string text = TimelinesJson(timelines);
  auto parsed = ParseTimelinesJson(text);
  ASSERT_TRUE(std::holds_alternative<std::vector<Timeline>>(parsed)) << std::get<base::InputError>(parsed).ToString();
  EXPECT_EQ(std::get<std::vector<Timeline>>(parsed), timelines);
  EXPECT_EQ(TimelinesJson(std::get<std::vector<Timeline>>(parsed)), text);
}

TEST(TimelinesJson, RejectsOtherFiles) {
  EXPECT_TRUE(std::holds_alternative<base::InputError>(ParseTimelinesJson("{")));
  EXPECT_TRUE(std::holds_alternative<base::InputError>(ParseTimelinesJson(R"({"format": "leasesim-summary"})")));
  EXPECT_TRUE(std::holds_alternative<base::InputError>(
      ParseTimelinesJson(R"({"format": "leasesim-timelines", "version": 1, "timelines": [{"seed": 1}]})")));
}

TEST(TimelinesJson, AnErrorNamesTheTimelineAndTheField) {
  std::string text = TimelinesJson({Timeline{.scenario = "s", .seed = 1}});
  const std::size_t hash = text.find("0000000000000000");
  ASSERT_NE(hash, std::string::npos);
  text.replace(hash, 16, "xyz");
  auto parsed = ParseTimelinesJson(text);
  ASSERT_TRUE(std::holds_alternative<base::InputError>(parsed));
  EXPECT_EQ(std::get<base::InputError>(parsed).In("t.json"), "t.json: timelines[0].trace_hash: not hex");
}

}  // namespace
}  // namespace leasesim::reports
