#include "checker/history_io.h"

#include <limits>
#include <ostream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

using Json = nlohmann::json;

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk: return "ok";
    case Outcome::kFail: return "fail";
    case Outcome::kUnknown: return "unknown";
  }
  return "unknown";
}

const char* KindName(StoreOpKind kind) {
  switch (kind) {
    case StoreOpKind::kRead: return "read";
    case StoreOpKind::kCreate: return "create";
    case StoreOpKind::kCas: return "cas";
  }
  return "read";
}

const char* ResultName(LedgerResult result) {
  switch (result) {
    case LedgerResult::kApplied: return "applied";
    case LedgerResult::kRejectedStale: return "rejected_stale";
    case LedgerResult::kDuplicate: return "duplicate";
    case LedgerResult::kLost: return "lost";
  }
  return "lost";
}

Json TimeJson(TimeNs ns) { return ns == kNeverNs ? Json(nullptr) : Json(ns); }

Json ValueJson(const LeaseValue& value) {
  return Json{{"holder", value.holder}, {"term", value.term}, {"duration_ns", value.duration_ns}};
}

// Typed access to one record's fields; the first problem is kept with the
// line number and field name.
class Fields {
 public:
  Fields(const Json& object, std::int64_t line, std::string prefix, std::optional<InputError>& error)
      : object_(object), line_(line), prefix_(std::move(prefix)), error_(error) {}

  bool Has(const char* name) const { return object_.contains(name); }

  void Int(const char* name, std::int64_t& out, bool required,
           std::int64_t min = std::numeric_limits<std::int64_t>::min()) {
    const Json* value = Find(name, required);
    if (value == nullptr) return;
    if (!value->is_number_integer() ||
        (value->is_number_unsigned() &&
         value->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
      Fail(name, "expected an integer (64-bit), got " + value->dump());
      return;
    }
    const auto number = value->get<std::int64_t>();
    if (number < min) {
      Fail(name, "must be at least " + std::to_string(min) + ", got " + std::to_string(number));
      return;
    }
    out = number;
  }

  void SmallInt(const char* name, int& out, bool required, int min = 0) {
    std::int64_t wide = out;
    Int(name, wide, required, min);
    if (wide > std::numeric_limits<int>::max()) {
      Fail(name, "out of range: " + std::to_string(wide));
      return;
    }
    out = static_cast<int>(wide);
  }

  // A time in ns; null means "never".
  void Time(const char* name, TimeNs& out, bool required) {
    const Json* value = Find(name, required);
    if (value == nullptr) return;
    if (value->is_null()) {
      out = kNeverNs;
      return;
    }
    Int(name, out, required);
  }

  void String(const char* name, std::string& out, bool required) {
    const Json* value = Find(name, required);
    if (value == nullptr) return;
    if (!value->is_string()) {
      Fail(name, "expected a string, got " + value->dump());
      return;
    }
    out = value->get<std::string>();
  }

  void Bool(const char* name, bool& out, bool required) {
    const Json* value = Find(name, required);
    if (value == nullptr) return;
    if (!value->is_boolean()) {
      Fail(name, "expected true or false, got " + value->dump());
      return;
    }
    out = value->get<bool>();
  }

  template <class T>
  void IntList(const char* name, std::vector<T>& out, bool required) {
    const Json* value = Find(name, required);
    if (value == nullptr) return;
    if (!value->is_array()) {
      Fail(name, "expected an array of integers, got " + value->dump());
      return;
    }
    out.clear();
    for (const Json& item : *value) {
      if (!item.is_number_integer() || (item.is_number_unsigned() && item.get<std::uint64_t>() >
                                            static_cast<std::uint64_t>(std::numeric_limits<T>::max())) ||
          (!item.is_number_unsigned() && (item.get<std::int64_t>() < std::numeric_limits<T>::min() ||
                                          item.get<std::int64_t>() > std::numeric_limits<T>::max()))) {
        Fail(name, "expected an array of integers, found " + item.dump());
        return;
      }
      out.push_back(static_cast<T>(item.get<std::int64_t>()));
    }
  }

  // An enumerated string: the index of the name in `names`.
  template <std::size_t N>
  int Enum(const char* name, const char* const (&names)[N], bool required, int fallback) {
    const Json* value = Find(name, required);
    if (value == nullptr) return fallback;
    if (value->is_string()) {
      const std::string text = value->get<std::string>();
      for (std::size_t i = 0; i < N; ++i) {
        if (text == names[i]) return static_cast<int>(i);
      }
    }
    std::string allowed;
    for (std::size_t i = 0; i < N; ++i) allowed += (i ? ", " : "") + std::string("\"") + names[i] + "\"";
    Fail(name, "expected one of " + allowed + ", got " + value->dump());
    return fallback;
  }

  void Value(const char* name, LeaseValue& out, bool required) {
    const Json* value = Find(name, required);
    if (value == nullptr) return;
    if (!value->is_object()) {
      Fail(name, "expected an object {holder, term, duration_ns}, got " + value->dump());
      return;
    }
    Fields inner(*value, line_, prefix_ + name + ".", error_);
    inner.String("holder", out.holder, true);
    inner.Int("term", out.term, true);
    inner.Int("duration_ns", out.duration_ns, false);
  }

  const Json* Object(const char* name, bool required) {
    const Json* value = Find(name, required);
    if (value != nullptr && !value->is_object()) {
      Fail(name, "expected an object, got " + value->dump());
      return nullptr;
    }
    return value;
  }

  bool failed() const { return error_.has_value(); }

 private:
  const Json* Find(const char* name, bool required) {
    if (error_) return nullptr;
    auto it = object_.find(name);
    if (it == object_.end()) {
      if (required) Fail(name, "missing");
      return nullptr;
    }
    return &*it;
  }

  void Fail(const char* name, std::string message) {
    if (!error_) error_ = InputError{line_, prefix_ + name, std::move(message)};
  }

  const Json& object_;
  std::int64_t line_;
  std::string prefix_;
  std::optional<InputError>& error_;
};

constexpr const char* kOutcomes[] = {"ok", "fail", "unknown"};
constexpr const char* kKinds[] = {"read", "create", "cas"};
constexpr const char* kResults[] = {"applied", "rejected_stale", "duplicate", "lost"};
constexpr const char* kTypes[] = {"store_op", "belief", "ledger_write", "fault"};

void ReadHeader(Fields& fields, History& history) {
  fields.SmallInt("node_count", history.node_count, true);
  fields.Int("end_ns", history.end_ns, true);
  fields.IntList("due_windows", history.due_windows, false);
  fields.IntList("due_window_ns", history.due_window_ns, false);
}

void ReadAssumptions(Fields& fields, Assumptions& a) {
  fields.Int("drift_bound_ppm", a.drift_bound_ppm, false, 0);
  fields.Int("pause_budget_ns", a.pause_budget_ns, false, 0);
  fields.Int("lease_duration_ns", a.lease_duration_ns, false, 0);
  fields.Int("renew_interval_ns", a.renew_interval_ns, false, 0);
  fields.Int("retry_ns", a.retry_ns, false, 0);
  fields.Int("settlement_period_ns", a.settlement_period_ns, false, 0);
  fields.Int("recovery_bound_ns", a.recovery_bound_ns, false, 0);
}

}  // namespace

void WriteHistory(const History& history, std::ostream& out) {
  const Assumptions& a = history.assumptions;
  Json header{{"format", kHistoryFormatName},
              {"version", History::kFormatVersion},
              {"node_count", history.node_count},
              {"end_ns", history.end_ns},
              {"due_windows", history.due_windows},
              {"due_window_ns", history.due_window_ns},
              {"assumptions",
               {{"drift_bound_ppm", a.drift_bound_ppm},
                {"pause_budget_ns", a.pause_budget_ns},
                {"lease_duration_ns", a.lease_duration_ns},
                {"renew_interval_ns", a.renew_interval_ns},
                {"retry_ns", a.retry_ns},
                {"settlement_period_ns", a.settlement_period_ns},
                {"recovery_bound_ns", a.recovery_bound_ns}}}};
  out << header.dump() << '\n';
  for (const StoreOp& op : history.store_ops) {
    Json line{{"type", "store_op"},       {"id", op.id},
              {"node", op.node},          {"process", op.process},
              {"key", op.key},            {"kind", KindName(op.kind)},
              {"outcome", OutcomeName(op.outcome)},
              {"invoke_ns", op.invoke_ns}, {"complete_ns", TimeJson(op.complete_ns)},
              {"applied_seq", op.applied_seq}};
    if (op.kind == StoreOpKind::kCas) line["expected_version"] = op.expected_version;
    if (op.kind != StoreOpKind::kRead) line["value"] = ValueJson(op.value);
    line["found"] = op.found;
    line["version"] = op.version;
    if (op.found) line["read_value"] = ValueJson(op.read_value);
    out << line.dump() << '\n';
  }
  for (const LeadershipBelief& belief : history.beliefs) {
    Json line{{"type", "belief"},         {"node", belief.node},       {"holder", belief.holder},
              {"term", belief.term},      {"from_ns", belief.from_ns}, {"until_ns", TimeJson(belief.until_ns)},
              {"end_reason", belief.end_reason}};
    out << line.dump() << '\n';
  }
  for (const LedgerWrite& write : history.ledger_writes) {
    Json line{{"type", "ledger_write"},
              {"id", write.id},
              {"node", write.node},
              {"holder", write.holder},
              {"token", write.token},
              {"idempotency_key", write.idempotency_key},
              {"window", write.window},
              {"sent_ns", write.sent_ns},
              {"arrived_ns", TimeJson(write.arrived_ns)},
              {"result", ResultName(write.result)},
              {"lease_valid_at_send", write.lease_valid_at_send},
              {"late_ns", write.late_ns}};
    out << line.dump() << '\n';
  }
  for (const FaultRecord& fault : history.faults) {
    Json line{{"type", "fault"},          {"kind", fault.kind},
              {"nodes", fault.nodes},     {"start_ns", fault.start_ns},
              {"end_ns", fault.end_ns},   {"within_assumptions", fault.within_assumptions},
              {"description", fault.description},
              {"at_point", fault.at_point}};
    out << line.dump() << '\n';
  }
}

std::string HistoryToJsonLines(const History& history) {
  std::ostringstream out;
  WriteHistory(history, out);
  return out.str();
}

bool LooksLikeLeasesimHistory(std::string_view text) {
  for (std::string_view line : SplitLines(text)) {
    line = TrimView(line);
    if (line.empty()) continue;
    return line.front() == '{' && line.find(kHistoryFormatName) != std::string_view::npos;
  }
  return false;
}

HistoryReadResult ReadHistory(std::string_view text) {
  HistoryReadResult result;
  std::optional<InputError>& error = result.error;
  History& history = result.history;
  const std::vector<std::string_view> lines = SplitLines(text);
  bool have_header = false;
  for (std::size_t index = 0; index < lines.size() && !error; ++index) {
    const auto line_no = static_cast<std::int64_t>(index + 1);
    const std::string_view line = TrimView(lines[index]);
    if (line.empty()) continue;
    const Json object = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
    if (object.is_discarded()) {
      error = InputError{line_no, "", "not valid JSON"};
      break;
    }
    if (!object.is_object()) {
      error = InputError{line_no, "", "expected a JSON object"};
      break;
    }
    Fields fields(object, line_no, "", error);
    if (!have_header) {
      std::string format;
      fields.String("format", format, true);
      if (error) break;
      if (format != kHistoryFormatName) {
        error = InputError{line_no, "format", "expected \"" + std::string(kHistoryFormatName) +
                                                  "\" (the header must come first), got \"" + format + "\""};
        break;
      }
      std::int64_t version = 0;
      fields.Int("version", version, true);
      if (error) break;
      if (version != History::kFormatVersion) {
        error = InputError{line_no, "version", "this reader understands version " +
                                                   std::to_string(History::kFormatVersion) + ", got " +
                                                   std::to_string(version)};
        break;
      }
      ReadHeader(fields, history);
      if (!error && !history.due_window_ns.empty() &&
          history.due_window_ns.size() != history.due_windows.size()) {
        error = InputError{line_no, "due_window_ns", "must have one time per entry of due_windows"};
      }
      if (const Json* assumptions = fields.Object("assumptions", false)) {
        Fields inner(*assumptions, line_no, "assumptions.", error);
        ReadAssumptions(inner, history.assumptions);
      }
      have_header = true;
      continue;
    }
    const int type = fields.Enum("type", kTypes, true, -1);
    if (error) break;
    switch (type) {
      case 0: {
        StoreOp op;
        fields.Int("id", op.id, false);
        fields.SmallInt("node", op.node, true);
        fields.String("process", op.process, false);
        fields.String("key", op.key, true);
        op.kind = static_cast<StoreOpKind>(fields.Enum("kind", kKinds, true, 0));
        op.outcome = static_cast<Outcome>(fields.Enum("outcome", kOutcomes, true, 2));
        fields.Int("expected_version", op.expected_version, op.kind == StoreOpKind::kCas);
        if (op.kind != StoreOpKind::kRead) fields.Value("value", op.value, true);
        fields.Bool("found", op.found, false);
        fields.Int("version", op.version, false);
        if (op.found) fields.Value("read_value", op.read_value, op.outcome != Outcome::kUnknown);
        fields.Time("invoke_ns", op.invoke_ns, true);
        fields.Time("complete_ns", op.complete_ns, op.outcome != Outcome::kUnknown);
        fields.Int("applied_seq", op.applied_seq, false, -1);
        if (!error && op.outcome != Outcome::kUnknown && op.complete_ns < op.invoke_ns) {
          error = InputError{line_no, "complete_ns", "completes before it was invoked"};
        }
        history.store_ops.push_back(std::move(op));
        break;
      }
      case 1: {
        LeadershipBelief belief;
        fields.SmallInt("node", belief.node, true);
        fields.String("holder", belief.holder, true);
        fields.Int("term", belief.term, true);
        fields.Time("from_ns", belief.from_ns, true);
        fields.Time("until_ns", belief.until_ns, true);
        fields.String("end_reason", belief.end_reason, false);
        if (!error && belief.until_ns < belief.from_ns) {
          error = InputError{line_no, "until_ns", "ends before it starts"};
        }
        history.beliefs.push_back(std::move(belief));
        break;
      }
      case 2: {
        LedgerWrite write;
        fields.Int("id", write.id, false);
        fields.SmallInt("node", write.node, true);
        fields.String("holder", write.holder, true);
        fields.Int("token", write.token, true);
        fields.String("idempotency_key", write.idempotency_key, false);
        fields.Int("window", write.window, true);
        fields.Time("sent_ns", write.sent_ns, true);
        fields.Time("arrived_ns", write.arrived_ns, false);
        write.result = static_cast<LedgerResult>(fields.Enum("result", kResults, true, 3));
        fields.Bool("lease_valid_at_send", write.lease_valid_at_send, false);
        fields.Int("late_ns", write.late_ns, false);
        history.ledger_writes.push_back(std::move(write));
        break;
      }
      case 3: {
        FaultRecord fault;
        fields.String("kind", fault.kind, true);
        fields.IntList("nodes", fault.nodes, false);
        fields.Time("start_ns", fault.start_ns, true);
        fields.Time("end_ns", fault.end_ns, true);
        fields.Bool("within_assumptions", fault.within_assumptions, false);
        fields.String("description", fault.description, false);
        fields.String("at_point", fault.at_point, false);
        if (!error && fault.end_ns < fault.start_ns) {
          error = InputError{line_no, "end_ns", "ends before it starts"};
        }
        history.faults.push_back(std::move(fault));
        break;
      }
      default:
        break;
    }
  }
  if (!error && !have_header) error = InputError{0, "", "empty history: no header line"};
  return result;
}

}  // namespace leasesim::checker
