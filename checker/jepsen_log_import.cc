#include "checker/jepsen_log_import.h"

#include <map>
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

// Parses "<process>\t:<type>\t:<f>\t<value>".
bool ParseOpLine(std::string_view rest, std::int64_t line_no, LogLine& out, InputError& error) {
  std::vector<std::string_view> fields;
  while (true) {
    const std::size_t tab = rest.find('\t');
    fields.push_back(TrimView(rest.substr(0, tab)));
    if (tab == std::string_view::npos) break;
    rest.remove_prefix(tab + 1);
  }
  if (fields.size() != 4) {
    error = Error(line_no, "", "expected 4 tab-separated fields (process, type, f, value), got " +
                                   std::to_string(fields.size()));
    return false;
  }
  if (!ParseInt64(fields[0], out.process) || out.process < 0) {
    error = Error(line_no, "process", "expected a process number, got \"" + std::string(fields[0]) + "\"");
    return false;
  }
  out.type = fields[1];
  out.f = fields[2];
  out.value = fields[3];
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

}  // namespace

ReadResult<CasRegisterOp> ImportJepsenLog(std::string_view text) {
  ReadResult<CasRegisterOp> result;
  std::map<std::int64_t, std::size_t> pending;  // process -> op index (lookups only)
  const std::vector<std::string_view> lines = SplitLines(text);
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const auto line_no = static_cast<std::int64_t>(index + 1);
    const std::string_view line = TrimView(lines[index]);
    if (line.empty()) continue;
    std::string_view logger, rest;
    if (!SplitLogPrefix(line, logger, rest)) {
      result.error = Error(line_no, "", "not a Jepsen log line (expected \"INFO  jepsen.util - <process>\\t:<type>\\t:<f>\\t<value>\")");
      return result;
    }
    if (logger != "jepsen.util") continue;  // other loggers: not operations
    LogLine op_line;
    InputError error;
    if (!ParseOpLine(rest, line_no, op_line, error)) {
      result.error = error;
      return result;
    }
    const CasRegisterOp::Kind kind = KindOf(op_line.f);
    if (op_line.type == ":invoke") {
      if (auto it = pending.find(op_line.process); it != pending.end()) {
        result.error = Error(line_no, "process",
                             "process " + std::to_string(op_line.process) +
                                 " invokes again while its operation from line " +
                                 std::to_string(result.records[it->second].invoke_line) +
                                 " is pending");
        return result;
      }
      CasRegisterOp op;
      op.kind = kind;
      op.process = static_cast<int>(op_line.process);
      op.call_ns = line_no;
      op.invoke_line = line_no;
      if (kind == CasRegisterOp::Kind::kRead) {
        if (op_line.value != "nil") {
          result.error = Error(line_no, "value", "a read is invoked with nil");
          return result;
        }
      } else if (kind == CasRegisterOp::Kind::kWrite) {
        if (!ParseInt64(op_line.value, op.value)) {
          result.error = Error(line_no, "value", "expected an integer to write, got \"" + std::string(op_line.value) + "\"");
          return result;
        }
      } else if (!ParsePair(op_line.value, op.expected, op.value)) {
        result.error = Error(line_no, "value", "expected [expected new], got \"" + std::string(op_line.value) + "\"");
        return result;
      }
      pending.emplace(op_line.process, result.records.size());
      result.records.push_back(op);
      continue;
    }
    // A completion.
    auto it = pending.find(op_line.process);
    if (it == pending.end()) {
      result.error = Error(line_no, "process",
                           "process " + std::to_string(op_line.process) +
                               " completes an operation it never invoked");
      return result;
    }
    CasRegisterOp& op = result.records[it->second];
    pending.erase(it);
    if (op.kind != kind) {
      result.error = Error(line_no, "f",
                           "completion " + std::string(op_line.f) + " does not match the invocation on line " +
                               std::to_string(op.invoke_line));
      return result;
    }
    op.return_line = line_no;
    if (op_line.type == ":info") {
      op.outcome = Outcome::kUnknown;  // may take effect at any point, or never
      op.return_ns = kNeverNs;
      continue;
    }
    op.return_ns = line_no;
    op.outcome = op_line.type == ":ok" ? Outcome::kOk : Outcome::kFail;
    if (kind == CasRegisterOp::Kind::kRead) {
      if (op.outcome == Outcome::kFail) {
        continue;  // e.g. :timed-out: a read that changed nothing
      }
      if (op_line.value == "nil") {
        op.read_found = false;
      } else if (ParseInt64(op_line.value, op.read_value)) {
        op.read_found = true;
      } else {
        result.error = Error(line_no, "value", "expected the value read (an integer or nil), got \"" + std::string(op_line.value) + "\"");
        return result;
      }
      continue;
    }
    if (kind == CasRegisterOp::Kind::kWrite) {
      std::int64_t value = 0;
      if (!ParseInt64(op_line.value, value) || value != op.value) {
        result.error = Error(line_no, "value", "completion value \"" + std::string(op_line.value) +
                                                   "\" does not match the write of " + std::to_string(op.value) +
                                                   " on line " + std::to_string(op.invoke_line));
        return result;
      }
      continue;
    }
    std::int64_t expected = 0, value = 0;
    if (!ParsePair(op_line.value, expected, value) || expected != op.expected || value != op.value) {
      result.error = Error(line_no, "value", "completion value \"" + std::string(op_line.value) +
                                                 "\" does not match the cas on line " + std::to_string(op.invoke_line));
      return result;
    }
  }
  // Operations still pending at the end: outcome unknown.
  for (const auto& [process, index] : pending) {
    result.records[index].outcome = Outcome::kUnknown;
    result.records[index].return_ns = kNeverNs;
  }
  return result;
}

}  // namespace leasesim::checker
