#include "reports/junit_xml.h"

#include "base/hash_text.h"
#include "reports/markup.h"
#include "reports/report_files.h"
#include "reports/summary_json.h"
#include "reports/timeline.h"

namespace leasesim::reports {
namespace {

using base::HashText;

std::string Attr(const std::string& text) { return EscapeXml(text, /*attribute=*/true); }

std::string Property(const std::string& name, const std::string& value, const char* indent) {
  return std::string(indent) + "<property name=\"" + Attr(name) + "\" value=\"" + Attr(value) + "\"/>\n";
}

// Where report.html shows this run: its timeline for the first
// kTimelinesMax failing runs in sweep order (the ones the page draws), the
// scenario's row otherwise. `failing_index` counts failing runs before it.
std::string ReportLink(const RunSummary& run, std::size_t failing_index) {
  const std::string anchor = !run.ok && failing_index < kTimelinesMax
                                 ? "run-" + IdFragment(run.scenario) + "-" + std::to_string(run.seed)
                                 : "scenario-" + IdFragment(run.scenario);
  return std::string(kReportFile) + "#" + anchor;
}

// A failing run's <failure>: the first unexpected violation names it; the
// text lists every violation, the notes, the trace hash and the replay.
std::string Failure(const RunSummary& run) {
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
  return "      <failure type=\"" + Attr(first ? first->kind : "failed") + "\" message=\"" +
         Attr(first ? first->message : "the run failed") + "\">" + EscapeXml(body) + "</failure>\n";
}

}  // namespace

std::string JunitTestcase(const std::string& scenario_file, const RunSummary& run, std::size_t failing_index) {
  std::string xml = "    <testcase name=\"seed " + std::to_string(run.seed) + "\" classname=\"" +
                    Attr("leasesim." + run.scenario) + "\" file=\"" + Attr(scenario_file) + "\">\n";
  xml += "      <properties>\n";
  xml += Property("seed", std::to_string(run.seed), "        ");
  xml += Property("trace_hash", HashText(run.trace_hash), "        ");
  xml += Property("replay", run.replay_command, "        ");
  xml += "      </properties>\n";
  if (!run.ok) xml += Failure(run);
  xml += "      <system-out>" + EscapeXml("details: " + ReportLink(run, failing_index) + "\n") + "</system-out>\n";
  xml += "    </testcase>\n";
  return xml;
}

namespace {

// One suite-level requirement as a testcase: skipped in a shard (merge
// judges it), failing when some required name was never reached.
std::string RequirementCase(const SweepSummary& sweep, const char* requirement, const std::vector<std::string>& names,
                            const std::vector<std::string>& unmet, const char* never) {
  std::string xml = "    <testcase name=\"" + std::string(requirement) + "\" classname=\"leasesim.suite\" file=\"" +
                    Attr(sweep.scenario_file) + "\">\n";
  if (!sweep.suite.judged) {
    xml += "      <skipped message=\"" +
           Attr("a shard cannot judge the suite; leasesim merge judges it over all shards") + "\"/>\n";
  } else if (!unmet.empty()) {
    std::string list;
    for (const std::string& name : unmet) list += (list.empty() ? "" : ", ") + name;
    const std::string message =
        std::to_string(unmet.size()) + " of " + std::to_string(names.size()) + " " + never + ": " + list;
    xml += "      <failure type=\"" + std::string(requirement) + "\" message=\"" + Attr(message) + "\">" +
           EscapeXml(sweep.scenario_file + " requires each of them (" + requirement + "); " + message + "\n") +
           "</failure>\n";
  }
  xml += "      <system-out>" + EscapeXml("details: " + std::string(kReportFile) + "#suite\n") + "</system-out>\n";
  xml += "    </testcase>\n";
  return xml;
}

// The testsuite of the suite-level requirements (named so no scenario can
// be: scenario names have no spaces); empty when the file requires nothing.
std::string SuiteRequirementsSuite(const SweepSummary& sweep, std::size_t id) {
  const SuiteRequirements& suite = sweep.suite;
  if (!suite.any()) return "";
  const int tests = (suite.fault_points.empty() ? 0 : 1) + (suite.probes.empty() ? 0 : 1);
  std::string xml = "  <testsuite name=\"suite requirements\" tests=\"" + std::to_string(tests) + "\" failures=\"" +
                    std::to_string(SuiteFailures(suite)) + "\" errors=\"0\" skipped=\"" +
                    std::to_string(suite.judged ? 0 : tests) + "\" id=\"" + std::to_string(id) +
                    "\" package=\"leasesim.suite\">\n";
  if (!suite.fault_points.empty()) {
    xml += RequirementCase(sweep, "require_fault_points", suite.fault_points, suite.fault_points_unmet,
                           "required fault points never fired in any run");
  }
  if (!suite.probes.empty()) {
    xml += RequirementCase(sweep, "require_probes", suite.probes, suite.probes_unmet,
                           "required probes were reached in no run");
  }
  xml += "  </testsuite>\n";
  return xml;
}

}  // namespace

int SuiteFailures(const SuiteRequirements& suite) {
  if (!suite.judged) return 0;
  return (suite.fault_points_unmet.empty() ? 0 : 1) + (suite.probes_unmet.empty() ? 0 : 1);
}

std::string JunitOpen(const SweepSummary& header, const SweepTotals& sweep) {
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  std::string suites_name = "leasesim " + header.scenario_file + " seeds " + header.seeds;
  if (!header.shard.whole()) suites_name += " shard " + FormatShard(header.shard);
  const int suite_tests = (header.suite.fault_points.empty() ? 0 : 1) + (header.suite.probes.empty() ? 0 : 1);
  xml += "<testsuites name=\"" + Attr(suites_name) + "\" tests=\"" + std::to_string(sweep.runs() + suite_tests) +
         "\" failures=\"" + std::to_string(sweep.failed() + SuiteFailures(header.suite)) + "\" errors=\"0\">\n";
  return xml;
}

std::string JunitSuiteOpen(const SweepSummary& header, const SweepTotals& sweep, std::size_t s) {
  const std::string& scenario = sweep.scenarios()[s];
  const ScenarioTotals& totals = sweep.by_scenario()[s];
  std::string xml = "  <testsuite name=\"" + Attr(scenario) + "\" tests=\"" + std::to_string(totals.runs) +
                    "\" failures=\"" + std::to_string(totals.failed) + "\" errors=\"0\" skipped=\"0\" id=\"" +
                    std::to_string(s) + "\" package=\"" + Attr("leasesim." + scenario) + "\">\n";
  xml += "    <properties>\n";
  xml += Property("scenario_file", header.scenario_file, "      ");
  xml += Property("file_digest", header.file_digest, "      ");
  xml += Property("leasesim_version", header.leasesim_version, "      ");
  xml += Property("seeds", header.seeds, "      ");
  if (const auto protocol = header.scenario_protocols.find(scenario); protocol != header.scenario_protocols.end()) {
    xml += Property("protocol", protocol->second, "      ");
  }
  xml += "    </properties>\n";
  return xml;
}

std::string JunitClose(const SweepSummary& header, const SweepTotals& sweep) {
  return SuiteRequirementsSuite(header, sweep.scenarios().size()) + "</testsuites>\n";
}

std::string JunitXml(const SweepSummary& sweep) {
  const SweepTotals totals = SweepTotals::Of(sweep);
  std::string xml = JunitOpen(sweep, totals);
  std::size_t failing_index = 0;
  for (std::size_t s = 0; s < sweep.scenarios.size(); ++s) {
    xml += JunitSuiteOpen(sweep, totals, s);
    for (const RunSummary& run : sweep.runs) {
      if (run.scenario != sweep.scenarios[s]) continue;
      xml += JunitTestcase(sweep.scenario_file, run, failing_index);
      failing_index += run.ok ? 0 : 1;
    }
    xml += kJunitSuiteClose;
  }
  xml += JunitClose(sweep, totals);
  return xml;
}

}  // namespace leasesim::reports
