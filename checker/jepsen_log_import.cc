#include "checker/jepsen_log_import.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

// The parts of one operation line.
struct LogLine {
  std::int64_t process = 0;
  std::string_view type;
  std::string_view f;
  std::string_view value;
};

InputError Error(std::int64_t line, std::string field, std::string message) {
  return InputError{line, std::move(field), std::move(message)};
}

// Splits "<level> <logger> - <rest>"; false when the line has no such shape.
bool SplitLogPrefix(std::string_view line, std::string_view& logger, std::string_view& rest) {
  static constexpr std::string_view kLevels[] = {"INFO", "WARN", "DEBUG", "ERROR", "TRACE", "FATAL"};
  std::string_view tail;
  bool leveled = false;
  for (std::string_view level : kLevels) {
    if (line.substr(0, level.size()) == level && line.size() > level.size() &&
        (line[level.size()] == ' ' || line[level.size()] == '\t')) {
      tail = TrimView(line.substr(level.size()));
      leveled = true;
      break;
    }
  }
  if (!leveled) return false;
  const std::size_t dash = tail.find(" - ");
  if (dash == std::string_view::npos) return false;
  logger = TrimView(tail.substr(0, dash));
  rest = tail.substr(dash + 3);
  return true;
}

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

// Parses "<process> :<type> :<f> <value>". Jepsen writes the separators as
// tabs or, in some versions, as runs of spaces aligning the columns; the
// value is the rest of the line and may itself hold spaces ("[2 4]").
bool ParseOpLine(std::string_view rest, std::int64_t line_no, LogLine& out, InputError& error) {
  rest = TrimView(rest);
  const std::string_view process = NextField(rest);
  out.type = NextField(rest);
  out.f = NextField(rest);
  out.value = TrimView(rest);
  const int fields = !process.empty() + !out.type.empty() + !out.f.empty() + !out.value.empty();
  if (fields != 4) {
    error = Error(line_no, "", "expected 4 fields separated by tabs or spaces (process, type, f, value), got " +
                                   std::to_string(fields));
    return false;
  }
  if (!ParseInt64(process, out.process) || out.process < 0) {
    error = Error(line_no, "process", "expected a process number, got \"" + std::string(process) + "\"");
    return false;
  }
  if (out.type != ":invoke" && out.type != ":ok" && out.type != ":fail" && out.type != ":info") {
    error = Error(line_no, "type", "expected :invoke, :ok, :fail or :info, got \"" + std::string(out.type) + "\"");
    return false;
  }
  if (out.f != ":read" && out.f != ":write" && out.f != ":cas") {
    error = Error(line_no, "f", "expected :read, :write or :cas, got \"" + std::string(out.f) + "\"");
    return false;
  }
  return true;
}

// "[a b]" -> a, b.
bool ParsePair(std::string_view text, std::int64_t& a, std::int64_t& b) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
  std::string_view inner = TrimView(text.substr(1, text.size() - 2));
  const std::size_t space = inner.find_first_of(" ,");
  if (space == std::string_view::npos) return false;
  return ParseInt64(TrimView(inner.substr(0, space)), a) &&
         ParseInt64(TrimView(inner.substr(space + 1)), b);
}

CasRegisterOp::Kind KindOf(std::string_view f) {
  if (f == ":read") return CasRegisterOp::Kind::kRead;
  if (f == ":write") return CasRegisterOp::Kind::kWrite;
  return CasRegisterOp::Kind::kCas;
}

// Pairs invocations with their completions, line by line. Each step gives
// the line's error, if any; the first one ends the import.
class LogImporter {
 public:
  std::optional<InputError> Line(std::int64_t line_no, std::string_view line) {
    std::string_view logger, rest;
    if (!SplitLogPrefix(line, logger, rest)) {
      return Error(line_no, "", "not a Jepsen log line (expected \"INFO  jepsen.util - <process>\\t:<type>\\t:<f>\\t<value>\")");
    }
    if (logger != "jepsen.util") return std::nullopt;  // other loggers: not operations
    LogLine op_line;
    InputError error;
    if (!ParseOpLine(rest, line_no, op_line, error)) return error;
    return op_line.type == ":invoke" ? Invoke(line_no, op_line) : Complete(line_no, op_line);
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
  std::optional<InputError> Invoke(std::int64_t line_no, const LogLine& in) {
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
    if (op.kind == CasRegisterOp::Kind::kRead) {
      if (in.value != "nil") return Error(line_no, "value", "a read is invoked with nil");
    } else if (op.kind == CasRegisterOp::Kind::kWrite) {
      if (!ParseInt64(in.value, op.value)) {
        return Error(line_no, "value", "expected an integer to write, got \"" + std::string(in.value) + "\"");
      }
    } else if (!ParsePair(in.value, op.expected, op.value)) {
      return Error(line_no, "value", "expected [expected new], got \"" + std::string(in.value) + "\"");
    }
    pending_.emplace(in.process, ops_.size());
    ops_.push_back(op);
    return std::nullopt;
  }

  std::optional<InputError> Complete(std::int64_t line_no, const LogLine& in) {
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
      return std::nullopt;
    }
    op.return_ns = line_no;
    op.outcome = in.type == ":ok" ? Outcome::kOk : Outcome::kFail;
    return CompletionValue(line_no, in, op);
  }

  // What a definite completion's value must be: the value read, or an echo
  // of the write or cas it completes.
  static std::optional<InputError> CompletionValue(std::int64_t line_no, const LogLine& in, CasRegisterOp& op) {
    if (op.kind == CasRegisterOp::Kind::kRead) {
      if (op.outcome == Outcome::kFail) return std::nullopt;  // e.g. :timed-out: a read that changed nothing
      if (in.value == "nil") {
        op.read_found = false;
      } else if (ParseInt64(in.value, op.read_value)) {
        op.read_found = true;
      } else {
        return Error(line_no, "value",
                     "expected the value read (an integer or nil), got \"" + std::string(in.value) + "\"");
      }
      return std::nullopt;
    }
    std::int64_t expected = 0, value = 0;
    if (op.kind == CasRegisterOp::Kind::kWrite) {
      if (!ParseInt64(in.value, value) || value != op.value) {
        return Error(line_no, "value", "completion value \"" + std::string(in.value) +
                                           "\" does not match the write of " + std::to_string(op.value) +
                                           " on line " + std::to_string(op.invoke_line));
      }
      return std::nullopt;
    }
    if (!ParsePair(in.value, expected, value) || expected != op.expected || value != op.value) {
      return Error(line_no, "value", "completion value \"" + std::string(in.value) +
                                         "\" does not match the cas on line " + std::to_string(op.invoke_line));
    }
    return std::nullopt;
  }

  std::vector<CasRegisterOp> ops_;
  std::map<std::int64_t, std::size_t> pending_;  // process -> op index (lookups only)
};

}  // namespace

ReadResult<CasRegisterOp> ImportJepsenLog(std::string_view text) {
  LogImporter importer;
  const std::vector<std::string_view> lines = SplitLines(text);
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const std::string_view line = TrimView(lines[index]);
    if (line.empty()) continue;
    if (std::optional<InputError> error = importer.Line(static_cast<std::int64_t>(index + 1), line)) {
      return importer.Failed(std::move(*error));
    }
  }
  return importer.Finish();
}

}  // namespace leasesim::checker
