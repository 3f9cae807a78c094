#include "checker/edn_import.h"

#include <map>
#include <vector>

#include "checker/edn.h"
#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

// One operation event (an EDN map) of a client process.
struct EdnEvent {
  std::int64_t line = 0;
  std::int64_t process = 0;
  std::string type;  // invoke, ok, fail, info
  std::string f;
  EdnValue map;
  const EdnValue* key() const { return map.Get("key"); }
  const EdnValue* value() const { return map.Get("value"); }
};

InputError Error(std::int64_t line, std::string field, std::string message) {
  return InputError{line, std::move(field), std::move(message)};
}

// Parses every line into events; nemesis (non-integer process) lines skipped.
bool ReadEvents(std::string_view text, std::vector<EdnEvent>& events, InputError& error) {
  const std::vector<std::string_view> lines = SplitLines(text);
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const auto line_no = static_cast<std::int64_t>(index + 1);
    const std::string_view line = TrimView(lines[index]);
    if (line.empty() || line.front() == ';') continue;
    EdnEvent event;
    event.line = line_no;
    std::string parse_error;
    if (!ParseEdn(line, event.map, parse_error)) {
      error = Error(line_no, "", "not an EDN value: " + parse_error);
      return false;
    }
    if (event.map.type != EdnValue::Type::kMap) {
      error = Error(line_no, "", "expected an EDN map {:process ..., :type ..., :f ...}");
      return false;
    }
    const EdnValue* process = event.map.Get("process");
    if (process == nullptr) {
      error = Error(line_no, "process", "missing");
      return false;
    }
    if (process->type != EdnValue::Type::kInt) {
      if (process->type == EdnValue::Type::kKeyword) continue;  // :nemesis and friends
      error = Error(line_no, "process", "expected an integer or a keyword, got " + process->ToString());
      return false;
    }
    event.process = process->integer;
    const EdnValue* type = event.map.Get("type");
    if (type == nullptr || type->type != EdnValue::Type::kKeyword ||
        (type->text != "invoke" && type->text != "ok" && type->text != "fail" && type->text != "info")) {
      error = Error(line_no, "type", "expected :invoke, :ok, :fail or :info" +
                                         (type ? ", got " + type->ToString() : std::string(", missing")));
      return false;
    }
    event.type = type->text;
    const EdnValue* f = event.map.Get("f");
    if (f == nullptr || f->type != EdnValue::Type::kKeyword) {
      error = Error(line_no, "f", f ? "expected a keyword, got " + f->ToString() : "missing");
      return false;
    }
    event.f = f->text;
    events.push_back(std::move(event));
  }
  return true;
}

// Pairs invocations with completions. `on_invoke(event)` makes the op (or
// fails); `on_complete(op, event)` fills the result (or fails).
template <class Op, class Invoke, class Complete>
ReadResult<Op> Pair(std::string_view text, Invoke on_invoke, Complete on_complete) {
  ReadResult<Op> result;
  std::vector<EdnEvent> events;
  InputError error;
  if (!ReadEvents(text, events, error)) {
    result.error = error;
    return result;
  }
  std::map<std::int64_t, std::size_t> pending;  // lookups only
  for (const EdnEvent& event : events) {
    if (event.type == "invoke") {
      if (auto it = pending.find(event.process); it != pending.end()) {
        result.error = Error(event.line, "process",
                             "process " + std::to_string(event.process) +
                                 " invokes again while its operation from line " +
                                 std::to_string(result.records[it->second].invoke_line) + " is pending");
        return result;
      }
      Op op;
      if (!on_invoke(event, op, error)) {
        result.error = error;
        return result;
      }
      op.process = static_cast<int>(event.process);
      op.call_ns = event.line;
      op.invoke_line = event.line;
      pending.emplace(event.process, result.records.size());
      result.records.push_back(std::move(op));
      continue;
    }
    auto it = pending.find(event.process);
    if (it == pending.end()) {
      result.error = Error(event.line, "process",
                           "process " + std::to_string(event.process) +
                               " completes an operation it never invoked");
      return result;
    }
    Op& op = result.records[it->second];
    pending.erase(it);
    op.return_line = event.line;
    if (event.type == "info") {
      op.outcome = Outcome::kUnknown;
      op.return_ns = kNeverNs;
    } else {
      op.outcome = event.type == "ok" ? Outcome::kOk : Outcome::kFail;
      op.return_ns = event.line;
    }
    if (!on_complete(event, op, error)) {
      result.error = error;
      return result;
    }
  }
  for (const auto& [process, index] : pending) {
    result.records[index].outcome = Outcome::kUnknown;
    result.records[index].return_ns = kNeverNs;
  }
  return result;
}

// A string value; integers and keywords are accepted and spelled out.
bool AsText(const EdnValue* value, std::string& out) {
  if (value == nullptr || value->type == EdnValue::Type::kNil) {
    out.clear();
    return true;
  }
  switch (value->type) {
    case EdnValue::Type::kString:
    case EdnValue::Type::kKeyword:
    case EdnValue::Type::kSymbol:
      out = value->text;
      return true;
    case EdnValue::Type::kInt:
      out = std::to_string(value->integer);
      return true;
    default:
      return false;
  }
}

bool KvKind(const std::string& f, KvOp::Kind& kind) {
  if (f == "get" || f == "read") kind = KvOp::Kind::kGet;
  else if (f == "put" || f == "write") kind = KvOp::Kind::kPut;
  else if (f == "append") kind = KvOp::Kind::kAppend;
  else return false;
  return true;
}

}  // namespace

ReadResult<KvOp> ImportEdnKv(std::string_view text) {
  auto on_invoke = [](const EdnEvent& event, KvOp& op, InputError& error) {
    if (!KvKind(event.f, op.kind)) {
      error = Error(event.line, "f", "expected :get, :put or :append, got :" + event.f);
      return false;
    }
    if (!AsText(event.key(), op.key) || event.key() == nullptr) {
      error = Error(event.line, "key", event.key() ? "expected a string, got " + event.key()->ToString() : "missing");
      return false;
    }
    if (op.kind != KvOp::Kind::kGet && !AsText(event.value(), op.value)) {
      error = Error(event.line, "value", "expected a string, got " + event.value()->ToString());
      return false;
    }
    return true;
  };
  auto on_complete = [](const EdnEvent& event, KvOp& op, InputError& error) {
    KvOp::Kind kind;
    std::string key;
    if (!KvKind(event.f, kind) || kind != op.kind) {
      error = Error(event.line, "f", "completion :" + event.f + " does not match the invocation on line " +
                                         std::to_string(op.invoke_line));
      return false;
    }
    if (event.key() != nullptr && (!AsText(event.key(), key) || key != op.key)) {
      error = Error(event.line, "key", "completion key does not match the invocation on line " +
                                           std::to_string(op.invoke_line));
      return false;
    }
    if (op.kind == KvOp::Kind::kGet) {
      if (op.outcome == Outcome::kOk && !AsText(event.value(), op.value)) {
        error = Error(event.line, "value", "expected the string read, got " + event.value()->ToString());
        return false;
      }
      return true;
    }
    std::string value;
    if (op.outcome == Outcome::kOk && event.value() != nullptr &&
        (!AsText(event.value(), value) || value != op.value)) {
      error = Error(event.line, "value", "completion value does not match the invocation on line " +
                                             std::to_string(op.invoke_line));
      return false;
    }
    return true;
  };
  return Pair<KvOp>(text, on_invoke, on_complete);
}

ReadResult<CasRegisterOp> ImportEdnRegister(std::string_view text) {
  auto kind_of = [](const std::string& f, CasRegisterOp::Kind& kind) {
    if (f == "read") kind = CasRegisterOp::Kind::kRead;
    else if (f == "write") kind = CasRegisterOp::Kind::kWrite;
    else if (f == "cas") kind = CasRegisterOp::Kind::kCas;
    else return false;
    return true;
  };
  auto pair_of = [](const EdnValue* value, std::int64_t& a, std::int64_t& b) {
    if (value == nullptr || value->type != EdnValue::Type::kVector || value->items.size() != 2 ||
        value->items[0].type != EdnValue::Type::kInt || value->items[1].type != EdnValue::Type::kInt) {
      return false;
    }
    a = value->items[0].integer;
    b = value->items[1].integer;
    return true;
  };
  auto on_invoke = [&](const EdnEvent& event, CasRegisterOp& op, InputError& error) {
    if (!kind_of(event.f, op.kind)) {
      error = Error(event.line, "f", "expected :read, :write or :cas, got :" + event.f);
      return false;
    }
    if (op.kind == CasRegisterOp::Kind::kWrite &&
        (event.value() == nullptr || event.value()->type != EdnValue::Type::kInt)) {
      error = Error(event.line, "value", "expected an integer to write");
      return false;
    }
    if (op.kind == CasRegisterOp::Kind::kWrite) op.value = event.value()->integer;
    if (op.kind == CasRegisterOp::Kind::kCas && !pair_of(event.value(), op.expected, op.value)) {
      error = Error(event.line, "value", "expected [expected new]");
      return false;
    }
    return true;
  };
  auto on_complete = [&](const EdnEvent& event, CasRegisterOp& op, InputError& error) {
    CasRegisterOp::Kind kind;
    if (!kind_of(event.f, kind) || kind != op.kind) {
      error = Error(event.line, "f", "completion :" + event.f + " does not match the invocation on line " +
                                         std::to_string(op.invoke_line));
      return false;
    }
    if (op.kind == CasRegisterOp::Kind::kRead && op.outcome == Outcome::kOk) {
      if (event.value() == nullptr || event.value()->type == EdnValue::Type::kNil) {
        op.read_found = false;
      } else if (event.value()->type == EdnValue::Type::kInt) {
        op.read_found = true;
        op.read_value = event.value()->integer;
      } else {
        error = Error(event.line, "value", "expected the value read (an integer or nil), got " +
                                               event.value()->ToString());
        return false;
      }
    }
    return true;
  };
  return Pair<CasRegisterOp>(text, on_invoke, on_complete);
}

std::string SniffEdnModel(std::string_view text) {
  InputError error;
  for (std::string_view line : SplitLines(text)) {
    std::vector<EdnEvent> one;
    if (!ReadEvents(line, one, error) || one.empty()) continue;
    const std::string& f = one.front().f;
    if (f == "get" || f == "put" || f == "append") return "kv";
    if (f == "read" || f == "write" || f == "cas") return "cas-register";
  }
  return "";
}

}  // namespace leasesim::checker
