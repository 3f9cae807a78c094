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

constexpr const char* kUsage =
    "usage: leasesim check FILE [--format leasesim|jepsen-log|edn] "
    "[--model lease|cas-register|kv] [--budget N] [--json]\n"
    "  exit 0: fine; 1: violation; 2: bad input or usage; 4: step budget exhausted\n";

struct Args {
  std::string file;
  std::string format;  // "" = sniff
  std::string model;   // "" = the format's default
  std::int64_t budget = kDefaultLinBudget;
  bool json = false;
  bool help = false;
};

// Parses the words; returns an error message, or "" when fine.
std::string ParseArgs(const std::vector<std::string>& words, Args& args) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string word = words[i];
    std::string value;
    bool has_value = false;
    if (word.starts_with("--") && word.find('=') != std::string::npos) {
      value = word.substr(word.find('=') + 1);
      word = word.substr(0, word.find('='));
      has_value = true;
    }
    auto take = [&]() -> std::optional<std::string> {
      if (has_value) return value;
      if (i + 1 >= words.size()) return std::nullopt;
      return words[++i];
    };
    if (word == "--help" || word == "-h") {
      args.help = true;
    } else if (word == "--json") {
      args.json = true;
    } else if (word == "--format" || word == "--model" || word == "--budget") {
      std::optional<std::string> v = take();
      if (!v) return word + " needs a value";
      if (word == "--format") {
        if (*v != "leasesim" && *v != "jepsen-log" && *v != "edn") {
          return "unknown --format \"" + *v + "\" (expected leasesim, jepsen-log or edn)";
        }
        args.format = *v;
      } else if (word == "--model") {
        if (*v != "lease" && *v != "cas-register" && *v != "kv") {
          return "unknown --model \"" + *v + "\" (expected lease, cas-register or kv)";
        }
        args.model = *v;
      } else if (!ParseInt64(*v, args.budget) || args.budget <= 0) {
        return "--budget needs a positive integer number of search steps, got \"" + *v + "\"";
      }
    } else if (word.starts_with("-") && word != "-") {
      return "unknown option " + word;
    } else if (args.file.empty()) {
      args.file = word;
    } else {
      return "more than one FILE given (\"" + args.file + "\" and \"" + word + "\")";
    }
  }
  if (!args.help && args.file.empty()) return "missing FILE";
  return "";
}

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
  std::size_t operations = 0;
  std::int64_t steps = -1;  // -1: no search ran
};

int Emit(const Args& args, const std::string& format, const std::string& model, const Report& report,
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

int BadInput(const Args& args, const InputError& error, std::ostream& out, std::ostream& err) {
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

int RunCheckCommand(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  Args args;
  if (const std::string problem = ParseArgs(words, args); !problem.empty()) {
    err << "leasesim check: " << problem << '\n' << kUsage;
    return kCheckExitBadInput;
  }
  if (args.help) {
    out << kUsage;
    return kCheckExitOk;
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
