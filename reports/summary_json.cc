#include "reports/summary_json.h"

#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

namespace leasesim::reports {

int SweepSummary::failed() const {
  int count = 0;
  for (const RunSummary& run : runs) count += run.ok ? 0 : 1;
  return count;
}

std::string SummaryJson(const SweepSummary& sweep) {
  nlohmann::ordered_json json;
  json["format"] = "leasesim-summary";
  json["version"] = kSummaryVersion;
  json["scenario_file"] = sweep.scenario_file;
  json["seeds"] = sweep.seeds;
  nlohmann::ordered_json totals;
  totals["runs"] = sweep.runs.size();
  totals["ok"] = static_cast<int>(sweep.runs.size()) - sweep.failed();
  totals["failed"] = sweep.failed();
  json["totals"] = totals;
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const RunSummary& run : sweep.runs) {
    nlohmann::ordered_json entry;
    entry["scenario"] = run.scenario;
    entry["seed"] = run.seed;
    entry["ok"] = run.ok;
    char hash[20];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(run.trace_hash));
    entry["trace_hash"] = hash;
    nlohmann::ordered_json violations = nlohmann::ordered_json::array();
    for (const ViolationSummary& violation : run.violations) {
      nlohmann::ordered_json v;
      v["kind"] = violation.kind;
      v["message"] = violation.message;
      v["at_ns"] = violation.at_ns;
      v["expected"] = violation.expected;
      violations.push_back(std::move(v));
    }
    entry["violations"] = std::move(violations);
    if (!run.notes.empty()) entry["notes"] = run.notes;
    nlohmann::ordered_json figures = nlohmann::ordered_json::object();
    for (const auto& [name, value] : run.figures) figures[name] = value;
    entry["figures"] = std::move(figures);
    if (!run.ok) entry["replay"] = run.replay_command;
    runs.push_back(std::move(entry));
  }
  json["runs"] = std::move(runs);
  return json.dump(2) + "\n";
}

std::string WriteFileAtomically(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return "cannot write " + temporary;
    out << content;
    out.flush();
    if (!out) return "cannot write " + temporary;
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return "cannot rename " + temporary + " to " + path;
  return "";
}

}  // namespace leasesim::reports
