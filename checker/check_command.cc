#include "checker/check_command.h"

#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "checker/cas_register_model.h"
#include "checker/checker.h"
#include "checker/edn_import.h"
#include "checker/history_io.h"
#include "checker/jepsen_log_import.h"
#include "checker/kv_model.h"
#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

using Json = nlohmann::json;


std::string SniffFormat(const std::string& path, std::string_view text) {
  if (LooksLikeLeasesimHistory(text)) return "leasesim";
  for (std::string_view line : SplitLines(text)) {
    line = TrimView(line);
    if (line.empty()) continue;
    if (line.front() == '{') return "edn";
    if (line.find(" - ") != std::string_view::npos) return "jepsen-log";
    break;
  }
  if (path.ends_with(".jsonl") || path.ends_with(".json")) return "leasesim";
  if (path.ends_with(".log")) return "jepsen-log";
  if (path.ends_with(".edn") || path.ends_with(".txt")) return "edn";
  return "leasesim";
}

Json ViolationJson(const Violation& v) {
  return Json{{"kind", v.kind}, {"message", v.message}, {"at_ns", v.at_ns}, {"nodes", v.nodes}};
}

// The report both paths end in.
struct Report {
  std::string verdict;  // "ok", "violation", "unknown"
  std::vector<Violation> violations;
  std::vector<std::string> notes;
  std::size_t operations = 0;
  std::int64_t steps = -1;  // -1: no search ran
};

int Emit(const CheckRequest& args, const std::string& format, const std::string& model, const Report& report,
         std::ostream& out) {
  if (args.json) {
    Json json{{"file", args.file},         {"format", format},
              {"model", model},            {"verdict", report.verdict},
              {"operations", report.operations}, {"violations", Json::array()},
              {"notes", report.notes}};
    if (report.steps >= 0) json["steps"] = report.steps;
    for (const Violation& v : report.violations) json["violations"].push_back(ViolationJson(v));
    out << json.dump() << '\n';
  } else {
    out << args.file << ": ";
    if (report.verdict == "ok") out << "OK";
    if (report.verdict == "violation") out << report.violations.size() << " violation(s)";
    if (report.verdict == "unknown") out << "UNKNOWN (step budget exhausted)";
    out << " [" << format << ", model " << model << ", " << report.operations << " operations";
    if (report.steps >= 0) out << ", " << report.steps << " search steps";
    out << "]\n";
    for (const Violation& v : report.violations) out << "  " << v.kind << ": " << v.message << '\n';
    for (const std::string& note : report.notes) out << "  note: " << note << '\n';
  }
  if (report.verdict == "violation") return kCheckExitViolation;
  if (report.verdict == "unknown") return kCheckExitUnknown;
  return kCheckExitOk;
}

int BadInput(const CheckRequest& args, const InputError& error, std::ostream& out, std::ostream& err) {
  err << args.file << ": " << error.ToString() << '\n';
  if (args.json) {
    out << Json{{"file", args.file},
                {"verdict", "bad_input"},
                {"error", {{"line", error.line}, {"field", error.field}, {"message", error.message}}}}
               .dump()
        << '\n';
  }
  return kCheckExitBadInput;
}

Report FromLin(const LinResult& result) {
  Report report;
  report.operations = result.operations;
  report.steps = result.steps;
  switch (result.verdict) {
    case LinVerdict::kLinearizable:
      report.verdict = "ok";
      break;
    case LinVerdict::kUnknown:
      report.verdict = "unknown";
      report.notes.push_back(result.explanation);
      break;
    case LinVerdict::kNotLinearizable:
      report.verdict = "violation";
      report.violations.push_back(Violation{
          .kind = KindName(ViolationKind::kNotLinearizable),
          .message = "The history" +
                     (result.partition.empty() || result.partition == "register"
                          ? std::string()
                          : " of key \"" + result.partition + "\"") +
                     " is not linearizable. " + result.explanation,
          .at_ns = 0,
          .nodes = {},
      });
      break;
  }
  return report;
}

}  // namespace

int RunCheck(const CheckRequest& args, std::ostream& out, std::ostream& err) {
  if (!args.format.empty() && args.format != "leasesim" && args.format != "jepsen-log" && args.format != "edn") {
    err << "leasesim check: unknown --format \"" << args.format << "\" (expected leasesim, jepsen-log or edn)\n";
    return kCheckExitBadInput;
  }
  if (!args.model.empty() && args.model != "lease" && args.model != "cas-register" && args.model != "kv") {
    err << "leasesim check: unknown --model \"" << args.model << "\" (expected lease, cas-register or kv)\n";
    return kCheckExitBadInput;
  }
  if (args.budget <= 0) {
    err << "leasesim check: --budget needs a positive integer number of search steps\n";
    return kCheckExitBadInput;
  }
  std::ifstream in(args.file, std::ios::binary);
  if (!in) {
    err << "leasesim check: cannot read " << args.file << '\n';
    return kCheckExitBadInput;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();

  const std::string format = args.format.empty() ? SniffFormat(args.file, text) : args.format;
  std::string model = args.model;
  if (model.empty()) {
    if (format == "leasesim") model = "lease";
    if (format == "jepsen-log") model = "cas-register";
    if (format == "edn") {
      model = SniffEdnModel(text);
      if (model.empty()) model = "kv";
    }
  }
  const bool compatible = (format == "leasesim" && model == "lease") ||
                          (format == "jepsen-log" && model == "cas-register") ||
                          (format == "edn" && (model == "kv" || model == "cas-register"));
  if (!compatible) {
    err << "leasesim check: --model " << model << " cannot judge a " << format
        << " history (leasesim: lease; jepsen-log: cas-register; edn: kv or cas-register)\n";
    return kCheckExitBadInput;
  }
  LinOptions lin;
  lin.budget = args.budget;

  if (format == "leasesim") {
    HistoryReadResult read = ReadHistory(text);
    if (!read.ok()) return BadInput(args, *read.error, out, err);
    CheckOptions options;
    options.store.lin = lin;
    const Verdict verdict = CheckHistory(read.history, options);
    Report report;
    report.violations = verdict.violations;
    report.notes = verdict.notes;
    report.operations = read.history.store_ops.size();
    report.verdict = !verdict.ok() ? "violation" : verdict.linearizability_unknown ? "unknown" : "ok";
    return Emit(args, format, model, report, out);
  }
  if (model == "cas-register") {
    ReadResult<CasRegisterOp> read = format == "edn" ? ImportEdnRegister(text) : ImportJepsenLog(text);
    if (!read.ok()) return BadInput(args, *read.error, out, err);
    const LinResult result = CheckCasRegister(read.records, lin);
    return Emit(args, format, model, FromLin(result), out);
  }
  ReadResult<KvOp> read = ImportEdnKv(text);
  if (!read.ok()) return BadInput(args, *read.error, out, err);
  const LinResult result = CheckKv(read.records, lin);
  return Emit(args, format, model, FromLin(result), out);
}

}  // namespace leasesim::checker
