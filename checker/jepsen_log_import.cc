#include "checker/jepsen_log_import.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/edn.h"
#include "checker/register_values.h"
#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

// A log line's level, logger and message.
struct LogLine {
  std::string_view level;
  std::string_view logger;
  std::string_view message;
};

// The fields of one operation line.
struct OpFields {
  bool nemesis = false;  // a keyword process (:nemesis): not a client's operation
  std::int64_t process = 0;
  std::string_view type;
  std::string_view f;
  EdnValue value;
};

InputError Error(std::int64_t line, std::string field, std::string message) {
  return InputError{.path = std::move(field), .rule = std::move(message), .line = line};
}

bool IsLevel(std::string_view word) {
  return word == "INFO" || word == "WARN" || word == "DEBUG" || word == "ERROR" || word == "TRACE" ||
         word == "FATAL";
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The field at the front of `rest`, up to a run of spaces or tabs; `rest`
// keeps what follows that run.
std::string_view NextField(std::string_view& rest) {
  const std::size_t end = rest.find_first_of(" \t");
  const std::string_view field = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  const std::size_t next = rest.find_first_not_of(" \t");
  rest = next == std::string_view::npos ? std::string_view() : rest.substr(next);
  return field;
}

// "LEVEL  logger - message" (log4j) or "LEVEL [time] thread - logger message"
// (Jepsen's console pattern; thread names hold spaces).
bool SplitLeveled(std::string_view line, LogLine& out) {
  std::string_view rest = line;
  out.level = NextField(rest);
  if (!IsLevel(out.level)) return false;
  if (!rest.empty() && rest.front() == '[') {
    const std::size_t close = rest.find(']');
    const std::size_t dash = close == std::string_view::npos ? close : rest.find(" - ", close);
    if (dash == std::string_view::npos) return false;
    rest = TrimView(rest.substr(dash + 3));
    out.logger = NextField(rest);
    out.message = rest;
    return !out.logger.empty();
  }
  const std::size_t dash = rest.find(" - ");
  if (dash == std::string_view::npos) return false;
  out.logger = TrimView(rest.substr(0, dash));
  out.message = rest.substr(dash + 3);
  return !out.logger.empty() && out.logger.find_first_of(" \t") == std::string_view::npos;
}

// "2021-06-14 18:43:22,415{GMT}<tab>INFO<tab>[thread] logger: message"
// (jepsen.log; the date and time may also be one ISO 8601 word).
bool SplitTimestamped(std::string_view line, LogLine& out) {
  const bool dated = line.size() > 10 && IsDigit(line[0]) && IsDigit(line[1]) && IsDigit(line[2]) &&
                     IsDigit(line[3]) && line[4] == '-' && IsDigit(line[5]) && IsDigit(line[6]) &&
                     line[7] == '-' && IsDigit(line[8]) && IsDigit(line[9]);
  if (!dated) return false;
  std::string_view rest = line;
  if (NextField(rest).size() == 10) NextField(rest);  // the time, when apart from the date
  out.level = NextField(rest);
  if (!IsLevel(out.level)) return false;
  if (!rest.empty() && rest.front() == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) return false;
    rest = TrimView(rest.substr(close + 1));
  }
  out.logger = NextField(rest);
  if (out.logger.size() < 2 || out.logger.back() != ':') return false;
  out.logger.remove_suffix(1);
  out.message = rest;
  return true;
}

bool IsType(std::string_view type) {
  return type == ":invoke" || type == ":ok" || type == ":fail" || type == ":info";
}

// Whether a jepsen.util message reads "<process> :<type> ...": an operation
// line (checked field by field after).
bool LooksLikeOp(std::string_view message) {
  const std::string_view process = NextField(message);
  const std::string_view type = NextField(message);
  std::int64_t number = 0;
  const bool process_ok = ParseInt64(process, number) || (process.size() > 1 && process.front() == ':');
  return process_ok && type.size() > 1 && type.front() == ':';
}

// Whether a line without a log prefix is an operation of history.txt:
// stricter, as continuation lines of other messages (a results map printed
// over several lines: ":valid? :unknown,") must not pass for one.
bool LooksLikeBareOp(std::string_view line) {
  std::string_view rest = line;
  const bool shaped = LooksLikeOp(line);
  NextField(rest);
  return shaped && IsType(NextField(rest)) && !NextField(rest).empty() && !rest.empty();
}

// Parses "<process> :<type> :<f> <value> [<error>]".
bool ParseOpLine(std::string_view rest, std::int64_t line_no, OpFields& out, InputError& error) {
  rest = TrimView(rest);
  const std::string_view process = NextField(rest);
  out.type = NextField(rest);
  out.f = NextField(rest);
  const int fields = !process.empty() + !out.type.empty() + !out.f.empty() + !rest.empty();
  if (fields != 4) {
    error = Error(line_no, "", "expected 4 fields separated by tabs or spaces (process, type, f, value), got " +
                                   std::to_string(fields));
    return false;
  }
  if (process.size() > 1 && process.front() == ':') {
    out.nemesis = true;
    return true;
  }
  if (!ParseInt64(process, out.process) || out.process < 0 || out.process > 1'000'000'000) {
    error = Error(line_no, "process", "expected a process number or keyword, got \"" + std::string(process) + "\"");
    return false;
  }
  if (!IsType(out.type)) {
    error = Error(line_no, "type", "expected :invoke, :ok, :fail or :info, got \"" + std::string(out.type) + "\"");
    return false;
  }
  if (out.f != ":read" && out.f != ":write" && out.f != ":cas") {
    error = Error(line_no, "f", "expected :read, :write or :cas, got \"" + std::string(out.f) + "\"");
    return false;
  }
  std::size_t pos = 0;
  InputError edn_error;
  if (!ReadEdnValue(rest, pos, out.value, edn_error)) {
    error = Error(line_no, "value", "expected an EDN value, got \"" + std::string(rest) + "\" (" +
                                        edn_error.rule + ")");
    return false;
  }
  return true;  // what follows the value is the operation's error, if any
}

CasRegisterOp::Kind KindOf(std::string_view f) {
  if (f == ":read") return CasRegisterOp::Kind::kRead;
  if (f == ":write") return CasRegisterOp::Kind::kWrite;
  return CasRegisterOp::Kind::kCas;
}

// What one line is.
enum class LineKind {
  kOperation,     // message holds "<process> :<type> ..."
  kMalformedOp,   // an INFO jepsen.util line that is no operation
  kOtherLog,      // another logger's line, or jepsen.util's other messages
  kUnrecognised,  // none of the shapes: a continuation line, or garbage
};

LineKind Classify(std::string_view line, std::string_view& message) {
  LogLine log;
  if (SplitLeveled(line, log) || SplitTimestamped(line, log)) {
    if (log.logger != "jepsen.util") return LineKind::kOtherLog;
    message = log.message;
    if (LooksLikeOp(log.message)) return LineKind::kOperation;
    return log.level == "INFO" ? LineKind::kMalformedOp : LineKind::kOtherLog;
  }
  if (LooksLikeBareOp(line)) {  // history.txt: the operation alone
    message = line;
    return LineKind::kOperation;
  }
  return LineKind::kUnrecognised;
}

// Pairs invocations with their completions, line by line. Each step gives
// the line's error, if any; the first one ends the import.
class LogImporter {
 public:
  std::optional<InputError> Line(std::int64_t line_no, std::string_view line) {
    std::string_view message;
    const LineKind kind = Classify(line, message);
    if (kind == LineKind::kOtherLog) {
      after_op_ = false;
      return std::nullopt;
    }
    if (kind == LineKind::kUnrecognised) {
      // A continuation of the message before it (a stack trace, a map
      // printed over several lines); never of an operation line, which is one line.
      if (!after_op_) return std::nullopt;
      return Error(line_no, "", "not a Jepsen log line (expected \"INFO  jepsen.util - <process>\\t:<type>\\t:<f>\\t<value>\" or another shape Jepsen writes)");
    }
    after_op_ = true;
    OpFields fields;
    InputError error;
    if (!ParseOpLine(message, line_no, fields, error)) return error;
    if (fields.nemesis) return std::nullopt;
    return fields.type == ":invoke" ? Invoke(line_no, fields) : Complete(line_no, fields);
  }

  // Operations still pending at the end: outcome unknown.
  ReadResult<CasRegisterOp> Finish() {
    for (const auto& [process, index] : pending_) {
      ops_[index].outcome = Outcome::kUnknown;
      ops_[index].return_ns = kNeverNs;
    }
    return ReadResult<CasRegisterOp>{std::move(ops_), std::nullopt};
  }

  // The operations read before `error` (pending ones as they stood), and the error.
  ReadResult<CasRegisterOp> Failed(InputError error) {
    return ReadResult<CasRegisterOp>{std::move(ops_), std::move(error)};
  }

 private:
  std::optional<InputError> Invoke(std::int64_t line_no, const OpFields& in) {
    if (auto it = pending_.find(in.process); it != pending_.end()) {
      return Error(line_no, "process",
                   "process " + std::to_string(in.process) + " invokes again while its operation from line " +
                       std::to_string(ops_[it->second].invoke_line) + " is pending");
    }
    CasRegisterOp op;
    op.kind = KindOf(in.f);
    op.process = static_cast<int>(in.process);
    op.call_ns = line_no;
    op.invoke_line = line_no;
    std::string message;
    if (!DecodeRegisterInvoke(in.value, op, message)) return Error(line_no, "value", message);
    pending_.emplace(in.process, ops_.size());
    ops_.push_back(op);
    return std::nullopt;
  }

  std::optional<InputError> Complete(std::int64_t line_no, const OpFields& in) {
    auto it = pending_.find(in.process);
    if (it == pending_.end()) {
      return Error(line_no, "process",
                   "process " + std::to_string(in.process) + " completes an operation it never invoked");
    }
    CasRegisterOp& op = ops_[it->second];
    pending_.erase(it);
    if (op.kind != KindOf(in.f)) {
      return Error(line_no, "f",
                   "completion " + std::string(in.f) + " does not match the invocation on line " +
                       std::to_string(op.invoke_line));
    }
    op.return_line = line_no;
    if (in.type == ":info") {
      op.outcome = Outcome::kUnknown;  // may take effect at any point, or never
      op.return_ns = kNeverNs;
    } else {
      op.return_ns = line_no;
      op.outcome = in.type == ":ok" ? Outcome::kOk : Outcome::kFail;
    }
    std::string message;
    if (!DecodeRegisterCompletion(in.value, op, message)) return Error(line_no, "value", message);
    return std::nullopt;
  }

  std::vector<CasRegisterOp> ops_;
  std::map<std::int64_t, std::size_t> pending_;  // process -> op index (lookups only)
  // Whether the last log line was an operation (so an unrecognised line
  // cannot be its continuation). True at the start: a file must open with
  // a line of a known shape.
  bool after_op_ = true;
};

}  // namespace

ReadResult<CasRegisterOp> ImportJepsenLog(std::string_view text) {
  LogImporter importer;
  const std::vector<std::string_view> lines = SplitLines(text);
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const std::string_view line = TrimView(lines[index]);
    if (line.empty()) continue;
    std::optional<InputError> error = importer.Line(static_cast<std::int64_t>(index + 1), line);
    if (error) return importer.Failed(std::move(*error));
  }
  return importer.Finish();
}

bool LooksLikeJepsenLog(std::string_view text) {
  for (std::string_view line : SplitLines(text)) {
    line = TrimView(line);
    if (line.empty()) continue;
    std::string_view message;
    return Classify(line, message) != LineKind::kUnrecognised;
  }
  return false;
}

}  // namespace leasesim::checker
