#include "reports/summary_json.h"

#include <cassert>
#include <charconv>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "base/hash_text.h"
#include "base/input_error.h"

namespace leasesim::reports {
namespace {

using base::HashText;
using base::InputError;
using Json = nlohmann::ordered_json;

// Per-scenario totals, in the order of the sweep's scenarios.
Json ScenarioTotalsJson(const SweepSummary& header, const SweepTotals& sweep) {
  Json list = Json::array();
  for (std::size_t i = 0; i < sweep.scenarios().size(); ++i) {
    const std::string& name = sweep.scenarios()[i];
    const ScenarioTotals& totals = sweep.by_scenario()[i];
    Json entry;
    entry["name"] = name;
    if (const auto digest = header.scenario_digests.find(name); digest != header.scenario_digests.end()) {
      entry["scenario_digest"] = digest->second;
    }
    if (const auto protocol = header.scenario_protocols.find(name); protocol != header.scenario_protocols.end()) {
      entry["protocol"] = protocol->second;
    }
    entry["runs"] = totals.runs;
    entry["ok"] = totals.runs - totals.failed;
    entry["failed"] = totals.failed;
    entry["failed_seeds"] = totals.failed_seeds;
    Json figure_totals = Json::object();
    for (const auto& [figure, range] : totals.figures) {
      Json figure_json;
      figure_json["runs"] = range.runs;
      figure_json["min"] = range.min;
      figure_json["max"] = range.max;
      figure_json["sum"] = range.sum;
      figure_totals[figure] = std::move(figure_json);
    }
    entry["figures"] = std::move(figure_totals);
    list.push_back(std::move(entry));
  }
  return list;
}

// Throws the bad-input error naming the problem.
const Json& Need(const Json& object, const char* key, const std::string& where) {
  if (!object.is_object() || !object.contains(key)) throw InputError{where, "missing \"" + std::string(key) + "\""};
  return object.at(key);
}

template <typename T>
T Get(const Json& object, const char* key, const std::string& where) {
  const Json& value = Need(object, key, where);
  try {
    return value.get<T>();
  } catch (const nlohmann::json::exception&) {
    throw InputError{where + "." + key, "wrong type"};
  }
}

// "suite": the file's suite-wide requirements and, when judged, what no run met.
Json SuiteJson(const SuiteRequirements& suite) {
  Json json;
  json["require_fault_points"] = suite.fault_points;
  json["require_probes"] = suite.probes;
  json["verdict"] = !suite.judged ? "pending" : suite.failed() ? "failed" : "ok";
  if (suite.judged) {
    json["fault_points_never_fired"] = suite.fault_points_unmet;
    json["probes_never_reached"] = suite.probes_unmet;
  }
  return json;
}

SuiteRequirements ParseSuite(const Json& json) {
  SuiteRequirements suite;
  const std::string where = "suite";
  suite.fault_points = Get<std::vector<std::string>>(json, "require_fault_points", where);
  suite.probes = Get<std::vector<std::string>>(json, "require_probes", where);
  const std::string verdict = Get<std::string>(json, "verdict", where);
  if (verdict != "pending" && verdict != "ok" && verdict != "failed") {
    throw InputError{where + ".verdict", "must be \"pending\", \"ok\" or \"failed\" (got \"" + verdict + "\")"};
  }
  suite.judged = verdict != "pending";
  if (suite.judged) {
    suite.fault_points_unmet = Get<std::vector<std::string>>(json, "fault_points_never_fired", where);
    suite.probes_unmet = Get<std::vector<std::string>>(json, "probes_never_reached", where);
    if (suite.failed() != (verdict == "failed")) throw InputError{where + ".verdict", "disagrees with the unmet lists"};
  }
  return suite;
}

}  // namespace

int SweepSummary::failed() const {
  int count = 0;
  for (const RunSummary& run : runs) count += run.ok ? 0 : 1;
  return count;
}

SummaryFrame SummaryJsonFrame(const SweepSummary& header, const SweepTotals& sweep) {
  Json json;
  json["format"] = "leasesim-summary";
  json["version"] = kSummaryVersion;
  json["leasesim_version"] = header.leasesim_version;
  json["scenario_file"] = header.scenario_file;
  if (!header.file_digest.empty()) json["file_digest"] = header.file_digest;
  json["seeds"] = header.seeds;
  if (!header.shard.whole()) json["shard"] = FormatShard(header.shard);
  if (!header.protocol.empty()) json["protocol"] = header.protocol;
  Json totals;
  totals["runs"] = sweep.runs();
  totals["ok"] = static_cast<int>(sweep.runs()) - sweep.failed();
  totals["failed"] = sweep.failed();
  json["totals"] = totals;
  if (!header.stopped.empty()) json["stopped"] = header.stopped;
  if (header.suite.any()) json["suite"] = SuiteJson(header.suite);
  json["scenarios"] = ScenarioTotalsJson(header, sweep);
  json["runs"] = Json::array();
  // "runs" is the last key: the entries go between its brackets.
  const std::string text = json.dump(2) + "\n";
  const std::string marker = "\"runs\": []";
  const std::size_t at = text.rfind(marker);
  assert(at != std::string::npos);
  const std::size_t split = at + marker.size() - 1;  // just before the "]"
  return SummaryFrame{text.substr(0, split), text.substr(split)};
}

std::string SummaryRunEntry(const RunSummary& run) {
  Json entry;
  entry["scenario"] = run.scenario;
  entry["seed"] = run.seed;
  entry["ok"] = run.ok;
  entry["trace_hash"] = HashText(run.trace_hash);
  Json violations = Json::array();
  for (const ViolationSummary& violation : run.violations) {
    Json v;
    v["kind"] = violation.kind;
    v["message"] = violation.message;
    v["at_ns"] = violation.at_ns;
    v["expected"] = violation.expected;
    violations.push_back(std::move(v));
  }
  entry["violations"] = std::move(violations);
  if (!run.notes.empty()) entry["notes"] = run.notes;
  Json figures = Json::object();
  for (const auto& [name, value] : run.figures) figures[name] = value;
  entry["figures"] = std::move(figures);
  if (!run.replay_command.empty()) entry["replay"] = run.replay_command;
  // As dumped inside the document: every line two levels (4 spaces) in.
  const std::string text = entry.dump(2);
  std::string indented = "    ";
  indented.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    indented += c;
    if (c == '\n') indented += "    ";
  }
  return indented;
}

void AppendRunEntry(std::string& entries, const RunSummary& run) {
  entries += entries.empty() ? "\n" : ",\n";
  entries += SummaryRunEntry(run);
}

std::string JoinSummary(const SummaryFrame& frame, const std::string& entries) {
  if (entries.empty()) return frame.head + frame.tail;
  return frame.head + entries + "\n  " + frame.tail;
}

std::string SummaryJson(const SweepSummary& sweep) {
  std::string entries;
  for (const RunSummary& run : sweep.runs) AppendRunEntry(entries, run);
  return JoinSummary(SummaryJsonFrame(sweep, SweepTotals::Of(sweep)), entries);
}

namespace {

// The per-scenario entries and the sweep's --protocol (throws a problem).
void ParseScenarioEntries(const Json& json, SweepSummary& sweep) {
  const Json& scenarios = Need(json, "scenarios", "summary");
  if (!scenarios.is_array()) throw InputError{"summary.scenarios", "must be a list"};
  // "variant": the name summaries written before protocols were plug-ins used.
  if (json.contains("variant")) sweep.protocol = Get<std::string>(json, "variant", "summary");
  if (json.contains("protocol")) sweep.protocol = Get<std::string>(json, "protocol", "summary");
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const std::string where = "scenarios[" + std::to_string(i) + "]";
    sweep.scenarios.push_back(Get<std::string>(scenarios[i], "name", where));
    if (scenarios[i].contains("scenario_digest")) {
      sweep.scenario_digests[sweep.scenarios.back()] = Get<std::string>(scenarios[i], "scenario_digest", where);
    }
    if (scenarios[i].contains("protocol")) {
      sweep.scenario_protocols[sweep.scenarios.back()] = Get<std::string>(scenarios[i], "protocol", where);
    }
  }
}

// One entry of "runs" (throws a problem naming `where`).
RunSummary ParseRun(const Json& entry, const std::string& where) {
  RunSummary run;
  run.scenario = Get<std::string>(entry, "scenario", where);
  run.seed = Get<std::uint64_t>(entry, "seed", where);
  run.ok = Get<bool>(entry, "ok", where);
  const std::string hash = Get<std::string>(entry, "trace_hash", where);
  const auto [end, error] = std::from_chars(hash.data(), hash.data() + hash.size(), run.trace_hash, 16);
  if (error != std::errc() || end != hash.data() + hash.size() || hash.size() != 16) {
    throw InputError{where + ".trace_hash", "not 16 hex digits"};
  }
  const Json& violations = Need(entry, "violations", where);
  if (!violations.is_array()) throw InputError{where + ".violations", "must be a list"};
  for (std::size_t v = 0; v < violations.size(); ++v) {
    const std::string vwhere = where + ".violations[" + std::to_string(v) + "]";
    run.violations.push_back(ViolationSummary{Get<std::string>(violations[v], "kind", vwhere),
                                              Get<std::string>(violations[v], "message", vwhere),
                                              Get<std::int64_t>(violations[v], "at_ns", vwhere),
                                              Get<bool>(violations[v], "expected", vwhere)});
  }
  if (entry.contains("notes")) run.notes = Get<std::vector<std::string>>(entry, "notes", where);
  const Json& figures = Need(entry, "figures", where);
  if (!figures.is_object()) throw InputError{where + ".figures", "must be an object"};
  for (const auto& [name, value] : figures.items()) {
    if (!value.is_number_integer()) throw InputError{where + ".figures." + name, "must be an integer"};
    run.figures[name] = value.get<std::int64_t>();
  }
  if (entry.contains("replay")) run.replay_command = Get<std::string>(entry, "replay", where);
  return run;
}

}  // namespace

std::variant<SweepSummary, InputError> ParseSummaryJson(const std::string& text) {
  Json json;
  try {
    json = Json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    return InputError{"", std::string("not JSON: ") + error.what()};
  }
  try {
    if (!json.is_object() || json.value("format", "") != "leasesim-summary") {
      return InputError{"", "not a leasesim summary (no \"format\": \"leasesim-summary\")"};
    }
    const int version = Get<int>(json, "version", "summary");
    if (version != kSummaryVersion) {
      return InputError{"", "summary version " + std::to_string(version) + " (this leasesim reads version " +
                                std::to_string(kSummaryVersion) + ")"};
    }
    SweepSummary sweep;
    // Summaries from before these fields read as an unknown build and file.
    sweep.leasesim_version =
        json.contains("leasesim_version") ? Get<std::string>(json, "leasesim_version", "summary") : std::string();
    sweep.scenario_file = Get<std::string>(json, "scenario_file", "summary");
    if (json.contains("file_digest")) sweep.file_digest = Get<std::string>(json, "file_digest", "summary");
    if (json.contains("suite")) sweep.suite = ParseSuite(json.at("suite"));
    if (json.contains("stopped")) sweep.stopped = Get<std::string>(json, "stopped", "summary");
    sweep.seeds = Get<std::string>(json, "seeds", "summary");
    if (json.contains("shard")) {
      auto shard = ParseShard(Get<std::string>(json, "shard", "summary"));
      if (const InputError* error = std::get_if<InputError>(&shard)) return InputError{"shard", error->rule};
      sweep.shard = std::get<Shard>(shard);
    }
    ParseScenarioEntries(json, sweep);
    const Json& runs = Need(json, "runs", "summary");
    if (!runs.is_array()) return InputError{"summary.runs", "must be a list"};
    for (std::size_t i = 0; i < runs.size(); ++i) sweep.runs.push_back(ParseRun(runs[i], "runs[" + std::to_string(i) + "]"));
    return sweep;
  } catch (const InputError& problem) {
    return problem;
  }
}

std::variant<Shard, InputError> ParseShard(const std::string& text) {
  const std::size_t slash = text.find('/');
  const InputError rule{"", "\"" + text + "\" is not a shard K/N with 1 <= K <= N"};
  if (slash == std::string::npos) return rule;
  Shard shard;
  const char* begin = text.data();
  const char* middle = text.data() + slash;
  const char* end = text.data() + text.size();
  const auto first = std::from_chars(begin, middle, shard.index);
  const auto second = std::from_chars(middle + 1, end, shard.count);
  if (slash == 0 || first.ec != std::errc() || first.ptr != middle || second.ec != std::errc() ||
      second.ptr != end || middle + 1 == end) {
    return rule;
  }
  if (shard.count < 1 || shard.index < 1 || shard.index > shard.count) return rule;
  return shard;
}

std::string FormatShard(const Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
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
