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

std::string JunitXml(const SweepSummary& sweep) {
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  std::string suites_name = "leasesim " + sweep.scenario_file + " seeds " + sweep.seeds;
  if (!sweep.shard.whole()) suites_name += " shard " + FormatShard(sweep.shard);
  xml += "<testsuites name=\"" + Attr(suites_name) + "\" tests=\"" + std::to_string(sweep.runs.size()) +
         "\" failures=\"" + std::to_string(sweep.failed()) + "\" errors=\"0\">\n";
  for (std::size_t s = 0; s < sweep.scenarios.size(); ++s) {
    const std::string& scenario = sweep.scenarios[s];
    int tests = 0;
    int failures = 0;
    for (const RunSummary& run : sweep.runs) {
      if (run.scenario != scenario) continue;
      ++tests;
      failures += run.ok ? 0 : 1;
    }
    xml += "  <testsuite name=\"" + Attr(scenario) + "\" tests=\"" + std::to_string(tests) + "\" failures=\"" +
           std::to_string(failures) + "\" errors=\"0\" skipped=\"0\" id=\"" + std::to_string(s) + "\" package=\"" +
           Attr("leasesim." + scenario) + "\">\n";
    xml += "    <properties>\n";
    xml += "      <property name=\"scenario_file\" value=\"" + Attr(sweep.scenario_file) + "\"/>\n";
    xml += "      <property name=\"seeds\" value=\"" + Attr(sweep.seeds) + "\"/>\n";
    xml += "    </properties>\n";
    for (const RunSummary& run : sweep.runs) {
      if (run.scenario != scenario) continue;
      const std::string head = "    <testcase name=\"seed " + std::to_string(run.seed) + "\" classname=\"" +
                               Attr("leasesim." + scenario) + "\"";
      if (run.ok) {
        xml += head + "/>\n";
        continue;
      }
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
      xml += head + ">\n";
      xml += "      <failure type=\"" + Attr(first ? first->kind : "failed") + "\" message=\"" +
             Attr(first ? first->message : "the run failed") + "\">" + EscapeXml(body) + "</failure>\n";
      xml += "    </testcase>\n";
    }
    xml += "  </testsuite>\n";
  }
  xml += "</testsuites>\n";
  return xml;
}

}  // namespace leasesim::reports
