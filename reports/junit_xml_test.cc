#include "reports/junit_xml.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "reports/markup.h"
#include "reports/sample_report.h"
#include "reports/xml_test_util.h"

namespace leasesim::reports {
namespace {

using testing::XmlElement;
using testing::XmlReader;

TEST(JunitXml, HasTheTestsuitesSuiteCaseShapeWithFailures) {
  const SweepSummary sweep = testing::SampleFailingSweep();
  const std::string xml = JunitXml(sweep);
  std::unique_ptr<XmlElement> root;
  ASSERT_NO_THROW(root = XmlReader::Parse(xml)) << xml;
  EXPECT_EQ(root->name, "testsuites");
  EXPECT_EQ(root->attributes["tests"], "6");
  EXPECT_EQ(root->attributes["failures"], "1");
  const auto suites = root->Children("testsuite");
  ASSERT_EQ(suites.size(), 2u);
  EXPECT_EQ(suites[0]->attributes.at("name"), "steady");
  EXPECT_EQ(suites[0]->attributes.at("failures"), "0");
  EXPECT_EQ(suites[1]->attributes.at("name"), sweep.scenarios[1]);  // escaped and read back
  EXPECT_EQ(suites[1]->attributes.at("tests"), "3");
  EXPECT_EQ(suites[1]->attributes.at("failures"), "1");
  const auto cases = suites[1]->Children("testcase");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0]->attributes.at("name"), "seed 16");
  EXPECT_TRUE(cases[0]->children.empty());
  const auto failures = cases[1]->Children("failure");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0]->attributes.at("type"), "stale_token_write");
  EXPECT_EQ(failures[0]->attributes.at("message"), sweep.runs[4].violations[0].message);
  EXPECT_NE(failures[0]->text.find("replay: leasesim replay 'sc&n.json' --scenario x --seed 17"), std::string::npos)
      << failures[0]->text;
  EXPECT_NE(failures[0]->text.find("lease_overlap (expected)"), std::string::npos);
  EXPECT_NE(failures[0]->text.find("trace 5f0c1234abcd9876"), std::string::npos);
}

TEST(JunitXml, ValidatesAgainstTheJunitSchema) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) GTEST_SKIP() << "xmllint (libxml2-utils) not installed";
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  const std::filesystem::path schema = std::filesystem::path(root ? root : ".") / "reports/testdata/junit.xsd";
  ASSERT_TRUE(std::filesystem::exists(schema)) << schema;
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "leasesim_junit_test.xml";
  std::ofstream(file) << JunitXml(testing::SampleFailingSweep());
  const std::string command =
      "xmllint --noout --schema '" + schema.string() + "' '" + file.string() + "' >/dev/null 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  // And the schema is not vacuous: a testcase without a name is refused.
  std::ofstream(file) << "<testsuites><testsuite name=\"a\" tests=\"1\"><testcase/></testsuite></testsuites>";
  EXPECT_NE(std::system(command.c_str()), 0);
}

TEST(JunitXml, EmptySweepIsStillValid) {
  SweepSummary sweep{.scenario_file = "f.json", .seeds = "1"};
  EXPECT_NO_THROW(XmlReader::Parse(JunitXml(sweep)));
}

TEST(Markup, EscapesMarkupControlCharactersAndBadUtf8) {
  EXPECT_EQ(EscapeXml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(EscapeXml("x\ny", /*attribute=*/true), "x&#10;y");
  EXPECT_EQ(EscapeXml("x\ny"), "x\ny");
  EXPECT_EQ(EscapeXml(std::string("a\x01z", 3)), "a\xEF\xBF\xBDz");
  EXPECT_EQ(EscapeXml("\xC3\xA9"), "\xC3\xA9");          // é kept
  EXPECT_EQ(EscapeXml("\xC3"), "\xEF\xBF\xBD");          // truncated sequence
  EXPECT_EQ(EscapeXml("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(EscapeXml("\xE2\x80\x93"), "\xE2\x80\x93");  // en dash kept
  EXPECT_NO_THROW(XmlReader::Parse("<a b=\"" + EscapeXml(std::string("\x02<&>\"\x7f", 6), true) + "\">" +
                                   EscapeXml("</a>&amp;") + "</a>"));
}

TEST(Markup, FormatsSecondsWithMilliseconds) {
  EXPECT_EQ(FormatSeconds(0), "0.000 s");
  EXPECT_EQ(FormatSeconds(40'200'000'000), "40.200 s");
  EXPECT_EQ(FormatSeconds(1'234'567), "0.001 s");
  EXPECT_EQ(FormatSeconds(-2'500'000'000), "-2.500 s");
  EXPECT_EQ(IdFragment("a.b c-d_e"), "a_b_c-d_e");
}

}  // namespace
}  // namespace leasesim::reports
