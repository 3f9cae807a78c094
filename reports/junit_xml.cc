#include "reports/junit_xml.h"

#include <cstdio>

#include "reports/markup.h"
#include "reports/summary_json.h"

namespace leasesim::reports {
namespace {

std::string Attr(const std::string& text) { return EscapeXml(text, /*attribute=*/true); }

std::string HashText(std::uint64_t hash) {
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace

std::string JunitOpen(const SweepTotals& sweep) {
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  std::string suites_name = "leasesim " + sweep.scenario_file() + " seeds " + sweep.seeds();
  if (!sweep.shard().whole()) suites_name += " shard " + FormatShard(sweep.shard());
  xml += "<testsuites name=\"" + Attr(suites_name) + "\" tests=\"" + std::to_string(sweep.runs()) +
         "\" failures=\"" + std::to_string(sweep.failed()) + "\" errors=\"0\">\n";
  return xml;
}

std::string JunitSuiteOpen(const SweepTotals& sweep, std::size_t s) {
  const std::string& scenario = sweep.scenarios()[s];
  const ScenarioTotals& totals = sweep.by_scenario()[s];
  std::string xml = "  <testsuite name=\"" + Attr(scenario) + "\" tests=\"" + std::to_string(totals.runs) +
                    "\" failures=\"" + std::to_string(totals.failed) + "\" errors=\"0\" skipped=\"0\" id=\"" +
                    std::to_string(s) + "\" package=\"" + Attr("leasesim." + scenario) + "\">\n";
  xml += "    <properties>\n";
  xml += "      <property name=\"scenario_file\" value=\"" + Attr(sweep.scenario_file()) + "\"/>\n";
  xml += "      <property name=\"seeds\" value=\"" + Attr(sweep.seeds()) + "\"/>\n";
  xml += "    </properties>\n";
  return xml;
}

std::string JunitTestcase(const RunSummary& run) {
  const std::string head = "    <testcase name=\"seed " + std::to_string(run.seed) + "\" classname=\"" +
                           Attr("leasesim." + run.scenario) + "\"";
  if (run.ok) return head + "/>\n";
  // The first violation that fails the run names the failure.
  const ViolationSummary* first = nullptr;
  for (const ViolationSummary& violation : run.violations) {
    if (!violation.expected) {
      first = &violation;
      break;
    }
  }
  std::string body;
  for (const ViolationSummary& violation : run.violations) {
    body += violation.kind + (violation.expected ? " (expected)" : "") + " at " + FormatSeconds(violation.at_ns) +
            ": " + violation.message + "\n";
  }
  for (const std::string& note : run.notes) body += "note: " + note + "\n";
  body += "trace " + HashText(run.trace_hash) + "\n";
  body += "replay: " + run.replay_command + "\n";
  return head + ">\n" + "      <failure type=\"" + Attr(first ? first->kind : "failed") + "\" message=\"" +
         Attr(first ? first->message : "the run failed") + "\">" + EscapeXml(body) + "</failure>\n" +
         "    </testcase>\n";
}

std::string JunitXml(const SweepSummary& sweep) {
  const SweepTotals totals = SweepTotals::Of(sweep);
  std::string xml = JunitOpen(totals);
  for (std::size_t s = 0; s < sweep.scenarios.size(); ++s) {
    xml += JunitSuiteOpen(totals, s);
    for (const RunSummary& run : sweep.runs) {
      if (run.scenario == sweep.scenarios[s]) xml += JunitTestcase(run);
    }
    xml += kJunitSuiteClose;
  }
  xml += kJunitClose;
  return xml;
}

}  // namespace leasesim::reports
