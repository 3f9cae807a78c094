#include "reports/timeline_json.h"

#include <gtest/gtest.h>

#include "reports/sample_report.h"

namespace leasesim::reports {
namespace {

TEST(TimelinesJson, RoundTripsEveryField) {
  std::vector<Timeline> timelines = {testing::SampleFailingTimeline(), Timeline{.scenario = "empty", .seed = 3}};
  const std::string text = TimelinesJson(timelines);
  auto parsed = ParseTimelinesJson(text);
  ASSERT_TRUE(std::holds_alternative<std::vector<Timeline>>(parsed)) << std::get<std::string>(parsed);
  EXPECT_EQ(std::get<std::vector<Timeline>>(parsed), timelines);
  EXPECT_EQ(TimelinesJson(std::get<std::vector<Timeline>>(parsed)), text);
}

TEST(TimelinesJson, RejectsOtherFiles) {
  EXPECT_TRUE(std::holds_alternative<std::string>(ParseTimelinesJson("{")));
  EXPECT_TRUE(std::holds_alternative<std::string>(ParseTimelinesJson(R"({"format": "leasesim-summary"})")));
  EXPECT_TRUE(std::holds_alternative<std::string>(
      ParseTimelinesJson(R"({"format": "leasesim-timelines", "version": 1, "timelines": [{"seed": 1}]})")));
}

}  // namespace
}  // namespace leasesim::reports
