#include "reports/junit_xml.h"

#include <unistd.h>

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
  EXPECT_TRUE(cases[0]->Children("failure").empty());  // a passing run has no failure
  const auto failures = cases[1]->Children("failure");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0]->attributes.at("type"), "stale_token_write");
  EXPECT_EQ(failures[0]->attributes.at("message"), sweep.runs[4].violations[0].message);
  EXPECT_NE(failures[0]->text.find("replay: leasesim replay 'sc&n.json' --scenario x --seed 17"), std::string::npos)
      << failures[0]->text;
  EXPECT_NE(failures[0]->text.find("lease_overlap (expected)"), std::string::npos);
  EXPECT_NE(failures[0]->text.find("trace 5f0c1234abcd9876"), std::string::npos);
}

// What a CI reporter shows per testcase: the seed, the trace hash and the
// replay command as properties, the scenario file, a pointer into report.html.
TEST(JunitXml, TestcasesCarrySeedTraceReplayFileAndReportLink) {
  SweepSummary sweep = testing::SampleFailingSweep();
  sweep.file_digest = std::string(64, 'f');
  std::unique_ptr<XmlElement> root = XmlReader::Parse(JunitXml(sweep));
  const auto suites = root->Children("testsuite");
  ASSERT_EQ(suites.size(), 2u);  // no requirements: no suite-level testsuite
  std::map<std::string, std::string> suite_properties;
  for (const XmlElement* p : suites[0]->Children("properties")[0]->Children("property")) {
    suite_properties[p->attributes.at("name")] = p->attributes.at("value");
  }
  EXPECT_EQ(suite_properties["file_digest"], std::string(64, 'f'));
  EXPECT_EQ(suite_properties["leasesim_version"], std::string(base::Version()));
  const auto cases = suites[1]->Children("testcase");
  ASSERT_EQ(cases.size(), 3u);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const RunSummary& run = sweep.runs[3 + i];
    EXPECT_EQ(cases[i]->attributes.at("file"), "sc&n.json");
    std::map<std::string, std::string> properties;
    for (const XmlElement* p : cases[i]->Children("properties")[0]->Children("property")) {
      properties[p->attributes.at("name")] = p->attributes.at("value");
    }
    EXPECT_EQ(properties["seed"], std::to_string(run.seed));
    EXPECT_EQ(properties["trace_hash"].size(), 16u);
    EXPECT_EQ(properties["replay"], run.replay_command);
    const std::string out = cases[i]->Children("system-out")[0]->text;
    // The failing run links its timeline; the others their scenario's row.
    const std::string anchor = run.ok ? "scenario-" + IdFragment(run.scenario) : "run-" + IdFragment(run.scenario) + "-17";
    EXPECT_NE(out.find("report.html#" + anchor), std::string::npos) << out;
  }
}

// The suite-level requirements are one more testsuite: skipped in a shard,
// failing (and counted in <testsuites failures>) when judged unmet.
TEST(JunitXml, SuiteRequirementsAreTheirOwnTestcases) {
  SweepSummary sweep = testing::SampleFailingSweep();
  sweep.suite.fault_points = {"before_renew", "during_release"};
  sweep.suite.probes = {"lease_created"};
  sweep.shard = {1, 2};
  std::unique_ptr<XmlElement> shard = XmlReader::Parse(JunitXml(sweep));
  EXPECT_EQ(shard->attributes.at("failures"), "1");
  const XmlElement* requirements = shard->Children("testsuite").back();
  EXPECT_EQ(requirements->attributes.at("name"), "suite requirements");
  EXPECT_EQ(requirements->attributes.at("skipped"), "2");
  for (const XmlElement* test : requirements->Children("testcase")) EXPECT_EQ(test->Children("skipped").size(), 1u);
  sweep.shard = {1, 1};
  sweep.suite.judged = true;
  sweep.suite.fault_points_unmet = {"during_release"};
  std::unique_ptr<XmlElement> whole = XmlReader::Parse(JunitXml(sweep));
  EXPECT_EQ(whole->attributes.at("tests"), "8");
  EXPECT_EQ(whole->attributes.at("failures"), "2");
  requirements = whole->Children("testsuite").back();
  EXPECT_EQ(requirements->attributes.at("failures"), "1");
  const auto cases = requirements->Children("testcase");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0]->attributes.at("name"), "require_fault_points");
  ASSERT_EQ(cases[0]->Children("failure").size(), 1u);
  EXPECT_NE(cases[0]->Children("failure")[0]->attributes.at("message").find("1 of 2 required fault points never fired"),
            std::string::npos);
  EXPECT_TRUE(cases[1]->Children("failure").empty());
}

TEST(JunitXml, ValidatesAgainstTheJunitSchema) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) GTEST_SKIP() << "xmllint (libxml2-utils) not installed";
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  const std::filesystem::path schema = std::filesystem::path(root ? root : ".") / "reports/testdata/junit.xsd";
  ASSERT_TRUE(std::filesystem::exists(schema)) << schema;
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("leasesim_junit_test." + std::to_string(::getpid()) + ".xml");
  SweepSummary sweep = testing::SampleFailingSweep();
  sweep.suite = {.fault_points = {"before_renew"}, .probes = {"lease_created"}, .judged = true, .probes_unmet = {"x"}};
  std::ofstream(file) << JunitXml(sweep);
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
