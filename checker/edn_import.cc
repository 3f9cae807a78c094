#include "checker/edn_import.h"

#include <algorithm>
#include <map>
#include <vector>

#include "checker/edn.h"
#include "checker/register_values.h"
#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

using Type = EdnValue::Type;

// One operation event (an EDN map) of a client process.
struct EdnEvent {
  std::int64_t line = 0;
  std::int64_t position = 0;  // 1-based place among all operations: the time
  std::int64_t process = 0;
  std::string type;  // invoke, ok, fail, info
  std::string f;
  const EdnValue* map = nullptr;
  const EdnValue* key() const { return map->Get("key"); }
  const EdnValue* value() const { return map->Get("value"); }
};

InputError Error(std::int64_t line, std::string field, std::string message) {
  return InputError{.path = std::move(field), .rule = std::move(message), .line = line};
}

// Line numbers (1-based) of byte offsets.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) {
    starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') starts_.push_back(i + 1);
    }
  }
  std::int64_t LineOf(std::size_t offset) const {
    return std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin();
  }
  std::size_t ColumnOf(std::size_t offset) const {
    return offset - starts_[static_cast<std::size_t>(LineOf(offset) - 1)] + 1;
  }

 private:
  std::vector<std::size_t> starts_;
};

// Whether the first value (at pos) ends on the line it starts on: then the
// history is one operation a line, read line by line so that an error
// (a missing brace) is named by its own line.
bool OneValueALine(std::string_view text, std::size_t pos) {
  const std::size_t end = text.find('\n', pos);
  EdnValue first;
  InputError ignored;
  return ReadEdnValue(text.substr(0, end == std::string_view::npos ? text.size() : end), pos, first, ignored);
}

// Every top-level value of the text, in order (as far as they read); a
// history written as one vector of operation maps is unwrapped.
bool ReadForms(std::string_view text, const LineIndex& lines, std::vector<EdnValue>& ops, InputError& error) {
  std::size_t pos = 0;
  const bool per_line = !SkipEdnSpace(text, pos) && OneValueALine(text, pos);
  // The record's line, as every other error of this reader; the column in the rule.
  auto fail = [&](std::int64_t line, std::int64_t column, const std::string& message) {
    error = Error(line, "", "not an EDN value: column " + std::to_string(column) + ": " + message);
    return false;
  };
  while (!SkipEdnSpace(text, pos)) {  // each value read moves pos on
    const std::size_t end = per_line ? text.find('\n', pos) : std::string_view::npos;
    const std::string_view scope = text.substr(0, end == std::string_view::npos ? text.size() : end);
    EdnValue value;
    InputError failure;
    if (!ReadEdnValue(scope, pos, value, failure)) return fail(failure.line, failure.column, failure.rule);
    std::size_t after = pos;
    if (per_line && !SkipEdnSpace(scope, after)) {
      return fail(lines.LineOf(after), static_cast<std::int64_t>(lines.ColumnOf(after)),
                  "unexpected text after the value");
    }
    ops.push_back(std::move(value));
  }
  if (ops.size() == 1 && ops[0].type == Type::kVector && ops[0].tag.empty() &&
      (ops[0].items.empty() || ops[0].items[0].type == Type::kMap)) {
    std::vector<EdnValue> items = std::move(ops[0].items);
    ops = std::move(items);
  }
  return true;
}

// :index and :time, when present: non-negative integers, :index growing.
bool CheckClock(const EdnValue& map, std::int64_t line, std::int64_t& last_index, InputError& error) {
  if (const EdnValue* index = map.Get("index")) {
    if (index->type != Type::kInt || index->integer < 0 || index->integer <= last_index) {
      error = Error(line, "index", "expected an integer above the previous operation's (" +
                                       std::to_string(last_index) + "), got " + index->ToString());
      return false;
    }
    last_index = index->integer;
  }
  const EdnValue* time = map.Get("time");
  if (time != nullptr && (time->type != Type::kInt || time->integer < 0)) {
    error = Error(line, "time", "expected a non-negative integer (nanoseconds), got " + time->ToString());
    return false;
  }
  return true;
}

// Fills `event` from one operation map; `client` false for a keyword process.
bool ToEvent(const EdnValue& map, std::int64_t line, std::int64_t& last_index, EdnEvent& event, bool& client,
             InputError& error) {
  if (map.type != Type::kMap) {
    error = Error(line, "", "expected an EDN map {:process ..., :type ..., :f ...}, got " + map.ToString());
    return false;
  }
  if (!CheckClock(map, line, last_index, error)) return false;
  const EdnValue* process = map.Get("process");
  if (process == nullptr) {
    error = Error(line, "process", "missing");
    return false;
  }
  client = process->type == Type::kInt;
  if (!client) {
    if (process->type == Type::kKeyword) return true;  // :nemesis and friends
    error = Error(line, "process", "expected an integer or a keyword, got " + process->ToString());
    return false;
  }
  event.line = line;
  event.process = process->integer;
  event.map = &map;
  const EdnValue* type = map.Get("type");
  if (type == nullptr || type->type != Type::kKeyword ||
      (type->text != "invoke" && type->text != "ok" && type->text != "fail" && type->text != "info")) {
    error = Error(line, "type", "expected :invoke, :ok, :fail or :info" +
                                    (type ? ", got " + type->ToString() : std::string(", missing")));
    return false;
  }
  event.type = type->text;
  const EdnValue* f = map.Get("f");
  if (f == nullptr || f->type != Type::kKeyword) {
    error = Error(line, "f", f ? "expected a keyword, got " + f->ToString() : "missing");
    return false;
  }
  event.f = f->text;
  return true;
}

// The client events of a history; `ops` owns the maps they point into.
bool ReadEvents(std::string_view text, std::vector<EdnValue>& ops, std::vector<EdnEvent>& events,
                InputError& error) {
  const LineIndex lines(text);
  if (!ReadForms(text, lines, ops, error)) return false;
  std::int64_t last_index = -1;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    EdnEvent event;
    bool client = false;
    if (!ToEvent(ops[i], lines.LineOf(ops[i].offset), last_index, event, client, error)) return false;
    event.position = static_cast<std::int64_t>(i + 1);
    if (client) events.push_back(std::move(event));
  }
  return true;
}

// Pairs invocations with completions. `on_invoke(event)` makes the op (or
// fails); `on_complete(op, event)` fills the result (or fails).
template <class Op, class Invoke, class Complete>
ReadResult<Op> Pair(std::string_view text, Invoke on_invoke, Complete on_complete) {
  ReadResult<Op> result;
  std::vector<EdnValue> ops;
  std::vector<EdnEvent> events;
  InputError error;
  if (!ReadEvents(text, ops, events, error)) {
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
      op.process = static_cast<int>(event.process);
      op.call_ns = event.position;
      op.invoke_line = event.line;
      if (!on_invoke(event, op, error)) {
        result.error = error;
        return result;
      }
      pending.emplace(event.process, result.records.size());
      result.records.push_back(std::move(op));
      continue;
    }
    auto it = pending.find(event.process);
    // An :info with no operation pending is a note of the process's, not a
    // completion: Knossos skips it ("just a random info", knossos/wgl.clj
    // with-entry-ids; knossos/history.clj pairs+ keeps it unpaired).
    if (it == pending.end() && event.type == "info") continue;
    if (it == pending.end()) {
      result.error = Error(event.line, "process",
                           "process " + std::to_string(event.process) + " completes an operation (:" + event.type +
                               ") it never invoked: an :ok or :fail needs the process's :invoke before it");
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
      op.return_ns = event.position;
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

// A key-value string: nil is "", strings, keywords and symbols their
// name, anything else its EDN text.
std::string AsText(const EdnValue* value) {
  if (value == nullptr || (value->type == Type::kNil && value->tag.empty())) return "";
  if (value->tag.empty() &&
      (value->type == Type::kString || value->type == Type::kKeyword || value->type == Type::kSymbol)) {
    return value->text;
  }
  return value->type == Type::kInt && value->tag.empty() ? std::to_string(value->integer) : value->ToString();
}

bool KvKind(const std::string& f, KvOp::Kind& kind) {
  if (f == "get" || f == "read") kind = KvOp::Kind::kGet;
  else if (f == "put" || f == "write") kind = KvOp::Kind::kPut;
  else if (f == "append") kind = KvOp::Kind::kAppend;
  else return false;
  return true;
}

// Whether a key-value value is of a form an append can concatenate.
bool IsScalar(const EdnValue* value) {
  return value == nullptr || value->type == Type::kNil || value->type == Type::kString ||
         value->type == Type::kKeyword || value->type == Type::kSymbol || value->type == Type::kInt;
}

bool KvInvoke(const EdnEvent& event, KvOp& op, InputError& error) {
  if (!KvKind(event.f, op.kind)) {
    error = Error(event.line, "f", "expected :get, :put or :append, got :" + event.f);
    return false;
  }
  if (event.key() == nullptr || !IsScalar(event.key())) {
    error = Error(event.line, "key", event.key() ? "expected a string, got " + event.key()->ToString() : "missing");
    return false;
  }
  op.key = AsText(event.key());
  if (op.kind == KvOp::Kind::kAppend && !IsScalar(event.value())) {
    error = Error(event.line, "value", "expected a string to append, got " + event.value()->ToString());
    return false;
  }
  if (op.kind != KvOp::Kind::kGet) op.value = AsText(event.value());
  return true;
}

bool KvComplete(const EdnEvent& event, KvOp& op, InputError& error) {
  KvOp::Kind kind;
  if (!KvKind(event.f, kind) || kind != op.kind) {
    error = Error(event.line, "f", "completion :" + event.f + " does not match the invocation on line " +
                                       std::to_string(op.invoke_line));
    return false;
  }
  if (event.key() != nullptr && AsText(event.key()) != op.key) {
    error = Error(event.line, "key", "completion key does not match the invocation on line " +
                                         std::to_string(op.invoke_line));
    return false;
  }
  if (op.kind == KvOp::Kind::kGet) {
    if (op.outcome == Outcome::kOk) op.value = AsText(event.value());
    return true;
  }
  if (op.outcome == Outcome::kOk && event.value() != nullptr && AsText(event.value()) != op.value) {
    error = Error(event.line, "value", "completion value does not match the invocation on line " +
                                           std::to_string(op.invoke_line));
    return false;
  }
  return true;
}

bool RegisterKind(const std::string& f, CasRegisterOp::Kind& kind) {
  if (f == "read") kind = CasRegisterOp::Kind::kRead;
  else if (f == "write") kind = CasRegisterOp::Kind::kWrite;
  else if (f == "cas") kind = CasRegisterOp::Kind::kCas;
  else return false;
  return true;
}

const EdnValue kNil{};

bool RegisterInvoke(const EdnEvent& event, CasRegisterOp& op, InputError& error) {
  if (!RegisterKind(event.f, op.kind)) {
    error = Error(event.line, "f", "expected :read, :write or :cas, got :" + event.f);
    return false;
  }
  std::string message;
  if (!DecodeRegisterInvoke(event.value() ? *event.value() : kNil, op, message, ReadInvocation::kIgnored)) {
    error = Error(event.line, "value", message);
    return false;
  }
  return true;
}

bool RegisterComplete(const EdnEvent& event, CasRegisterOp& op, InputError& error) {
  CasRegisterOp::Kind kind;
  if (!RegisterKind(event.f, kind) || kind != op.kind) {
    error = Error(event.line, "f", "completion :" + event.f + " does not match the invocation on line " +
                                       std::to_string(op.invoke_line));
    return false;
  }
  std::string message;
  if (!DecodeRegisterCompletion(event.value() ? *event.value() : kNil, op, message)) {
    error = Error(event.line, "value", message);
    return false;
  }
  return true;
}

}  // namespace

ReadResult<KvOp> ImportEdnKv(std::string_view text) { return Pair<KvOp>(text, KvInvoke, KvComplete); }

ReadResult<CasRegisterOp> ImportEdnRegister(std::string_view text) {
  return Pair<CasRegisterOp>(text, RegisterInvoke, RegisterComplete);
}

std::string SniffEdnModel(std::string_view text) {
  const LineIndex lines(text);
  std::vector<EdnValue> ops;
  InputError error;
  ReadForms(text, lines, ops, error);  // the operations before any error still tell
  for (const EdnValue& op : ops) {
    const EdnValue* process = op.Get("process");
    const EdnValue* f = op.Get("f");
    if (process == nullptr || process->type != Type::kInt || f == nullptr || f->type != Type::kKeyword) continue;
    if (f->text == "get" || f->text == "put" || f->text == "append") return "kv";
    if (f->text == "read" || f->text == "write" || f->text == "cas") return "cas-register";
  }
  return "";
}

bool LooksLikeEdnHistory(std::string_view text) {
  std::size_t pos = 0;
  if (SkipEdnSpace(text, pos)) return false;
  if (text[pos] == '[') {
    ++pos;
    if (SkipEdnSpace(text, pos)) return false;
  }
  return text[pos] == '{' || (text[pos] == '#' && pos + 1 < text.size() && text[pos + 1] != '{');
}

}  // namespace leasesim::checker
