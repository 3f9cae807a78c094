#include "checker/register_values.h"

namespace leasesim::checker {
namespace {

using Kind = CasRegisterOp::Kind;
using Type = EdnValue::Type;

bool IsPair(const EdnValue& value) { return value.type == Type::kVector && value.items.size() == 2; }

bool IsIntPair(const EdnValue& value) {
  return IsPair(value) && value.items[0].type == Type::kInt && value.items[1].type == Type::kInt;
}

// Whether an invocation value is an independent tuple [k v] for this kind:
// a write of a vector, a cas whose second element is the [old new] pair, a
// read of [k nil] (of any pair when the read's own value is ignored: a
// register value is an integer, never a pair).
bool IsKeyed(const EdnValue& value, Kind kind, ReadInvocation read) {
  if (!IsPair(value)) return false;
  switch (kind) {
    case Kind::kWrite: return true;
    case Kind::kCas: return IsIntPair(value.items[1]);
    case Kind::kRead: return read == ReadInvocation::kIgnored || value.items[1].type == Type::kNil;
  }
  return false;
}

const char* Expected(Kind kind) {
  switch (kind) {
    case Kind::kWrite: return "an integer to write";
    case Kind::kCas: return "[expected new]";
    case Kind::kRead: return "nil";
  }
  return "";
}

// An invocation's own value (the tuple's second element when keyed).
bool DecodeArgument(const EdnValue& value, CasRegisterOp& op, ReadInvocation read) {
  switch (op.kind) {
    case Kind::kWrite:
      if (value.type != Type::kInt) return false;
      op.value = value.integer;
      return true;
    case Kind::kCas:
      if (!IsIntPair(value)) return false;
      op.expected = value.items[0].integer;
      op.value = value.items[1].integer;
      return true;
    case Kind::kRead:
      return read == ReadInvocation::kIgnored || value.type == Type::kNil;
  }
  return false;
}

// Whether a definite completion's own value echoes the invocation.
bool Echoes(const EdnValue& value, const CasRegisterOp& op) {
  if (op.kind == Kind::kWrite) return value.type == Type::kInt && value.integer == op.value;
  return IsIntPair(value) && value.items[0].integer == op.expected && value.items[1].integer == op.value;
}

bool IsErrorForm(const EdnValue& value) {
  return value.type == Type::kKeyword || value.type == Type::kString;
}

}  // namespace

std::string RegisterKeyText(const EdnValue& key) {
  if (key.tag.empty() && key.type == Type::kInt) return std::to_string(key.integer);
  if (key.tag.empty() && key.type == Type::kString) return key.text;
  return key.ToString();
}

bool DecodeRegisterInvoke(const EdnValue& value, CasRegisterOp& op, std::string& error, ReadInvocation read) {
  const bool keyed = IsKeyed(value, op.kind, read);
  if (keyed) op.key = RegisterKeyText(value.items[0]);
  if (!DecodeArgument(keyed ? value.items[1] : value, op, read)) {
    error = std::string("expected ") + Expected(op.kind) + " (or an independent [key " + Expected(op.kind) +
            "]), got " + value.ToString();
    return false;
  }
  return true;
}

bool DecodeRegisterCompletion(const EdnValue& value, CasRegisterOp& op, std::string& error) {
  if (op.outcome != Outcome::kOk && IsErrorForm(value)) return true;  // :timed-out in place of the value
  const EdnValue* own = &value;
  if (!op.key.empty()) {
    if (!IsPair(value) || RegisterKeyText(value.items[0]) != op.key) {
      error = "expected the independent tuple [" + op.key + " ...] of the invocation on line " +
              std::to_string(op.invoke_line) + ", got " + value.ToString();
      return false;
    }
    own = &value.items[1];
  }
  if (op.kind != Kind::kRead) {
    if (op.outcome == Outcome::kUnknown || Echoes(*own, op)) return true;
    error = "completion value " + value.ToString() + " does not match the invocation on line " +
            std::to_string(op.invoke_line);
    return false;
  }
  if (op.outcome != Outcome::kOk) return true;  // a read that failed or may not have run read nothing
  if (own->type == Type::kNil) {
    op.read_found = false;
    return true;
  }
  if (own->type == Type::kInt) {
    op.read_found = true;
    op.read_value = own->integer;
    return true;
  }
  error = "expected the value read (an integer or nil), got " + value.ToString();
  return false;
}

}  // namespace leasesim::checker
