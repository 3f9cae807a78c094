#include "checker/check_command.h"

#include <fstream>
#include <limits>
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
  if (LooksLikeEdnHistory(text)) return "edn";
  if (LooksLikeJepsenLog(text)) return "jepsen-log";
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
  std::size_t operations = 0;          // searched
  std::size_t client_operations = 0;   // read from the file (imported formats)
  std::int64_t steps = -1;  // -1: no search ran
  // The register convention judged under (cas-register model only).
  std::optional<std::string> convention;
  std::optional<std::int64_t> initial;  // nullopt = nil
};

std::string InitialText(const std::optional<std::int64_t>& initial) {
  return initial ? std::to_string(*initial) : "nil";
}

Json ReportJson(const CheckRequest& args, const std::string& format, const std::string& model, const Report& report) {
  Json json{{"file", args.file},         {"format", format},
            {"model", model},            {"verdict", report.verdict},
            {"operations", report.operations}, {"violations", Json::array()},
            {"notes", report.notes}};
  if (format != "leasesim") json["client_operations"] = report.client_operations;
  if (report.convention) {
    json["convention"] = {{"name", *report.convention},
                          {"initial_value", report.initial ? Json(*report.initial) : Json(nullptr)}};
  }
  if (report.steps >= 0) json["steps"] = report.steps;
  for (const Violation& v : report.violations) json["violations"].push_back(ViolationJson(v));
  return json;
}

int Emit(const CheckRequest& args, const std::string& format, const std::string& model, const Report& report,
         std::ostream& out) {
  if (args.json) {
    out << ReportJson(args, format, model, report).dump() << '\n';
  } else {
    out << args.file << ": ";
    if (report.verdict == "ok") out << "OK";
    if (report.verdict == "violation") out << report.violations.size() << " violation(s)";
    if (report.verdict == "unknown") out << "UNKNOWN (step budget exhausted)";
    out << " [" << format << ", model " << model;
    if (report.convention) {
      out << " (" << *report.convention << "'s convention, initial value " << InitialText(report.initial) << ")";
    }
    out << ", " << report.operations << " operations";
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
  err << error.In(args.file) << '\n';
  if (args.json) {
    Json where = {{"line", error.line}, {"field", error.path}, {"message", error.rule}};
    if (error.column > 0) where["column"] = error.column;  // a syntax error's place in its line
    out << Json{{"file", args.file}, {"verdict", "bad_input"}, {"error", where}}.dump() << '\n';
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

// The flags' values, checked: the bad-input error naming the bad one.
std::optional<InputError> FlagError(const CheckRequest& args) {
  if (!args.format.empty() && args.format != "leasesim" && args.format != "jepsen-log" && args.format != "edn") {
    return InputError{"--format", "unknown \"" + args.format + "\" (expected leasesim, jepsen-log or edn)"};
  }
  if (!args.model.empty() && args.model != "lease" && args.model != "cas-register" && args.model != "kv") {
    return InputError{"--model", "unknown \"" + args.model + "\" (expected lease, cas-register or kv)"};
  }
  if (args.budget <= 0) return InputError{"--budget", "must be a positive integer number of search steps"};
  return std::nullopt;
}

// --initial-value: an integer or nil (nullopt). The smallest 64-bit integer
// is the model's stand-in for nil, so it cannot be a value.
std::optional<InputError> ParseInitialValue(const std::optional<std::string>& text,
                                            std::optional<std::int64_t>& initial) {
  std::int64_t value = 0;
  if (!text || *text == "nil") {
    initial = std::nullopt;
    return std::nullopt;
  }
  if (!ParseInt64(*text, value) || value == std::numeric_limits<std::int64_t>::min()) {
    return InputError{"--initial-value", "must be an integer (above " +
                                             std::to_string(std::numeric_limits<std::int64_t>::min()) +
                                             ") or nil (got \"" + *text + "\")"};
  }
  initial = value;
  return std::nullopt;
}

// A bad flag as every command prints one: the flag, then the rule.
int BadFlag(const InputError& error, std::ostream& err) {
  err << "leasesim check: " << error.ToString() << '\n';
  return kCheckExitBadInput;
}

// The model to judge with: --model, else the format's own. An EDN history
// with no client operation to tell (only the nemesis's) is a register one
// when --initial-value says so, else key-value.
std::string ModelFor(const CheckRequest& args, const std::string& format, std::string_view text) {
  if (!args.model.empty()) return args.model;
  if (format == "leasesim") return "lease";
  if (format == "jepsen-log") return "cas-register";
  const std::string sniffed = SniffEdnModel(text);
  if (!sniffed.empty()) return sniffed;
  return args.initial_value ? "cas-register" : "kv";
}

int CheckLeasesim(const CheckRequest& args, const std::string& text, const LinOptions& lin, std::ostream& out,
                  std::ostream& err) {
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
  return Emit(args, "leasesim", "lease", report, out);
}

// A register history is judged as the checker its format's files are judged
// by reads them: EDN as Knossos, Jepsen logs as Porcupine (docs/CHECKER.md,
// "Whose convention").
int CheckRegister(const CheckRequest& args, const std::string& format, const std::string& text,
                  std::optional<std::int64_t> initial, const LinOptions& lin, std::ostream& out, std::ostream& err) {
  const bool edn = format == "edn";
  ReadResult<CasRegisterOp> read = edn ? ImportEdnRegister(text) : ImportJepsenLog(text);
  if (!read.ok()) return BadInput(args, *read.error, out, err);
  CasRegisterConvention convention = edn ? KnossosConvention() : PorcupineConvention();
  convention.initial = initial;
  Report report = FromLin(CheckCasRegister(read.records, lin, convention));
  report.client_operations = read.records.size();
  report.convention = edn ? "Knossos" : "Porcupine";
  report.initial = initial;
  return Emit(args, format, "cas-register", report, out);
}

}  // namespace

int RunCheck(const CheckRequest& args, std::ostream& out, std::ostream& err) {
  std::optional<std::int64_t> initial;
  if (const std::optional<InputError> error = FlagError(args)) return BadFlag(*error, err);
  if (const std::optional<InputError> error = ParseInitialValue(args.initial_value, initial)) {
    return BadFlag(*error, err);
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
  const std::string model = ModelFor(args, format, text);
  const bool compatible = (format == "leasesim" && model == "lease") ||
                          (format == "jepsen-log" && model == "cas-register") ||
                          (format == "edn" && (model == "kv" || model == "cas-register"));
  if (!compatible) {
    return BadFlag({"--model", model + " cannot judge a " + format +
                                   " history (leasesim: lease; jepsen-log: cas-register; edn: kv or cas-register)"},
                   err);
  }
  if (args.initial_value && model != "cas-register") {
    return BadFlag({"--initial-value", "applies to the cas-register model only (this " + format +
                                           " history is judged with the " + model + " model)"},
                   err);
  }
  LinOptions lin;
  lin.budget = args.budget;
  if (format == "leasesim") return CheckLeasesim(args, text, lin, out, err);
  if (model == "cas-register") return CheckRegister(args, format, text, initial, lin, out, err);
  ReadResult<KvOp> read = ImportEdnKv(text);
  if (!read.ok()) return BadInput(args, *read.error, out, err);
  Report report = FromLin(CheckKv(read.records, lin));
  report.client_operations = read.records.size();
  return Emit(args, format, model, report, out);
}

}  // namespace leasesim::checker
