#include "live/live_report.h"

#include <fstream>
#include <ostream>
#include <sstream>

#include "checker/history_io.h"
#include "live/live_config.h"
#include "reports/summary_json.h"

namespace leasesim::live {
namespace {

std::string WriteHistoryFile(const std::string& path, const checker::History& history) {
  std::ofstream file(path, std::ios::trunc);
  if (!file) return "cannot write " + path;
  checker::WriteHistory(history, file);
  file.close();
  return file ? std::string() : "cannot write " + path;
}

std::string SummaryOf(const LiveOptions& o, const Judgement& j) {
  reports::SweepSummary sweep;
  sweep.scenario_file = "live";
  sweep.seeds = "live";
  reports::RunSummary run;
  run.scenario = "live-" + ProtocolName(o.protocol);
  run.ok = j.verdict.ok();
  for (const checker::Violation& v : j.verdict.violations) run.violations.push_back({v.kind, v.message, v.at_ns, false});
  run.notes = j.verdict.notes;
  run.figures = j.figures;
  run.replay_command = o.command_line;  // a live run is not replayable; this reruns it
  sweep.runs.push_back(run);
  return reports::SummaryJson(sweep);
}

std::string Milliseconds(std::int64_t us) {
  std::ostringstream text;
  text << static_cast<double>(us) / 1000.0;
  return text.str();
}

}  // namespace

std::string WriteRunFiles(const LiveOptions& o, const Judgement& j) {
  std::string errors;
  if (std::string e = WriteHistoryFile(o.out_dir + "/" + kHistoryFileName, j.merged.history); !e.empty()) {
    errors += e + "\n";
  }
  const std::string summary = o.out_dir + "/" + kSummaryFileName;
  if (std::string e = reports::WriteFileAtomically(summary, SummaryOf(o, j)); !e.empty()) errors += e + "\n";
  return errors;
}

void PrintVerdict(const LiveOptions& o, const Judgement& j, std::ostream& out) {
  for (const std::string& line : j.failovers) out << "live: " << line << "\n";
  const auto figure = [&](const char* name) {
    const auto it = j.figures.find(name);
    return it == j.figures.end() ? std::int64_t{0} : it->second;
  };
  out << (j.verdict.ok() ? "PASS" : "FAIL") << " live " << ProtocolName(o.protocol) << ": "
      << j.verdict.violations.size() << " violation(s); " << figure("settlements_applied") << " batches applied, "
      << figure("leader_terms") << " terms, renewal p50 " << Milliseconds(figure("renewal_latency_p50_us"))
      << " ms p99 " << Milliseconds(figure("renewal_latency_p99_us")) << " ms";
  if (j.figures.contains("failover_ms_max")) out << ", failover max " << figure("failover_ms_max") << " ms";
  out << "\n";
  for (const checker::Violation& v : j.verdict.violations) out << "  " << v.kind << ": " << v.message << "\n";
  for (const std::string& note : j.verdict.notes) out << "  note: " << note << "\n";
  out << "  summary: " << o.out_dir << "/" << kSummaryFileName << ", history: " << o.out_dir << "/"
      << kHistoryFileName << " (check it again with: leasesim check " << o.out_dir << "/" << kHistoryFileName
      << ")\n";
}

}  // namespace leasesim::live
