#include "checker/history_io.h"

#include <limits>
#include <ostream>
#include <sstream>
#include <vector>

#include "base/strict_json.h"
#include "checker/kv_history_io.h"
#include "checker/text_util.h"

namespace leasesim::checker {
namespace {

using base::Json;
using base::ObjectReader;

enum class RecordType { kStoreOp, kBelief, kClaim, kLedgerWrite, kFault, kCallback, kMetric, kKvOp };
constexpr base::EnumNames<RecordType, 8> kRecordTypeNames{{{RecordType::kStoreOp, "store_op"},
                                                           {RecordType::kBelief, "belief"},
                                                           {RecordType::kClaim, "claim"},
                                                           {RecordType::kLedgerWrite, "ledger_write"},
                                                           {RecordType::kFault, "fault"},
                                                           {RecordType::kCallback, "callback"},
                                                           {RecordType::kMetric, "metric"},
                                                           {RecordType::kKvOp, "kv_op"}}};

// Histories written before the assumptions named the last point before a
// write came from leasesim's core, whose last point was this one.
constexpr const char* kLastPointBeforeWriteOfOldHistories = "before_ledger_write";

constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
constexpr std::int64_t kIntMin = std::numeric_limits<int>::min();

// --- writing -----------------------------------------------------------------

Json TimeJson(TimeNs ns) { return ns == kNeverNs ? Json(nullptr) : Json(ns); }

Json ValueJson(const LeaseValue& value) {
  return Json{{"holder", value.holder}, {"term", value.term}, {"duration_ns", value.duration_ns}};
}

Json HeaderJson(const History& history) {
  const Assumptions& a = history.assumptions;
  return Json{{"format", kHistoryFormatName},
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
                {"settlement_epoch_wall_ns", a.settlement_epoch_wall_ns},
                {"recovery_bound_ns", a.recovery_bound_ns},
                {"callback_bound_ns", a.callback_bound_ns},
                {"last_point_before_write", a.last_point_before_write}}}};
}

Json StoreOpJson(const StoreOp& op) {
  Json line{{"type", "store_op"},        {"id", op.id},
            {"node", op.node},           {"process", op.process},
            {"key", op.key},             {"kind", kStoreOpKindNames.CName(op.kind)},
            {"outcome", kOutcomeNames.CName(op.outcome)},
            {"invoke_ns", op.invoke_ns}, {"complete_ns", TimeJson(op.complete_ns)},
            {"applied_seq", op.applied_seq}};
  if (op.applied_ns != kNeverNs) line["applied_ns"] = op.applied_ns;
  if (op.kind == StoreOpKind::kCas) line["expected_version"] = op.expected_version;
  if (op.kind != StoreOpKind::kRead) line["value"] = ValueJson(op.value);
  line["found"] = op.found;
  line["version"] = op.version;
  if (op.found) line["read_value"] = ValueJson(op.read_value);
  return line;
}

Json BeliefJson(const LeadershipBelief& belief) {
  return Json{{"type", "belief"},    {"node", belief.node},       {"holder", belief.holder},
              {"term", belief.term}, {"from_ns", belief.from_ns}, {"until_ns", TimeJson(belief.until_ns)},
              {"end_reason", belief.end_reason}};
}

Json ClaimJson(const ValidityClaim& claim) {
  return Json{{"type", "claim"},      {"node", claim.node},       {"holder", claim.holder},
              {"term", claim.term},   {"at_ns", claim.at_ns},     {"boot_ns", claim.boot_ns},
              {"until_boot_ns", claim.until_boot_ns}};
}

Json LedgerWriteJson(const LedgerWrite& write) {
  Json line{{"type", "ledger_write"},
              {"id", write.id},
              {"node", write.node},
              {"holder", write.holder},
              {"token", write.token},
              {"idempotency_key", write.idempotency_key},
              {"window", write.window},
              {"sent_ns", write.sent_ns},
              {"arrived_ns", TimeJson(write.arrived_ns)},
              {"result", kLedgerResultNames.CName(write.result)},
              {"lease_valid_at_send", write.lease_valid_at_send},
              {"late_ns", write.late_ns},
              {"stalled_ns", write.stalled_ns}};
  if (write.wall_seen_ns != kNeverNs) line["wall_seen_ns"] = write.wall_seen_ns;
  return line;
}

Json FaultJson(const FaultRecord& fault) {
  return Json{{"type", "fault"},        {"kind", fault.kind},
              {"nodes", fault.nodes},   {"start_ns", fault.start_ns},
              {"end_ns", fault.end_ns}, {"within_assumptions", fault.within_assumptions},
              {"description", fault.description},
              {"at_point", fault.at_point}};
}

Json CallbackJson(const CallbackRecord& c) {
  Json line{{"type", "callback"}, {"node", c.node},  {"process", c.process}, {"kind", kCallbackKindNames.CName(c.kind)},
            {"term", c.term},     {"at_ns", c.at_ns}};
  if (!c.leader.empty()) line["leader"] = c.leader;
  if (!c.reason.empty()) line["reason"] = c.reason;
  if (c.kind == CallbackKind::kJobStep) line["valid"] = c.lease_valid;
  return line;
}

Json MetricJson(const MetricSample& m) {
  return Json{{"type", "metric"}, {"node", m.node},   {"process", m.process},
              {"name", m.name},   {"value", m.value}, {"at_ns", m.at_ns}};
}

// --- reading -----------------------------------------------------------------
// Each reader throws base::InputError naming the field; ReadHistory adds the
// line number. Fields this version does not know are ignored (a later minor
// addition must not break older readers), so no reader calls Finish().

// A time in ns; null means "never".
TimeNs Time(ObjectReader& r, std::string_view key) {
  const Json& value = r.Field(key);
  return value.is_null() ? kNeverNs : base::IntegerValue(value, r.PathOf(key));
}

TimeNs TimeOr(ObjectReader& r, std::string_view key, TimeNs fallback) {
  return r.Has(key) ? Time(r, key) : fallback;
}

int SmallInt(ObjectReader& r, std::string_view key) { return static_cast<int>(r.Integer(key, 0, kIntMax)); }

LeaseValue Value(ObjectReader& parent, std::string_view key) {
  ObjectReader r = parent.Object(key);
  LeaseValue value;
  value.holder = r.String("holder");
  value.term = r.Integer("term");
  value.duration_ns = r.IntegerOr("duration_ns", base::kInt64Min, base::kInt64Max, 0);
  return value;
}

void ReadAssumptions(ObjectReader& r, Assumptions& a) {
  a.drift_bound_ppm = r.IntegerOr("drift_bound_ppm", 0, base::kInt64Max, a.drift_bound_ppm);
  a.pause_budget_ns = r.IntegerOr("pause_budget_ns", 0, base::kInt64Max, a.pause_budget_ns);
  a.lease_duration_ns = r.IntegerOr("lease_duration_ns", 0, base::kInt64Max, a.lease_duration_ns);
  a.renew_interval_ns = r.IntegerOr("renew_interval_ns", 0, base::kInt64Max, a.renew_interval_ns);
  a.retry_ns = r.IntegerOr("retry_ns", 0, base::kInt64Max, a.retry_ns);
  a.settlement_period_ns = r.IntegerOr("settlement_period_ns", 0, base::kInt64Max, a.settlement_period_ns);
  a.settlement_epoch_wall_ns =
      r.IntegerOr("settlement_epoch_wall_ns", base::kInt64Min, base::kInt64Max, a.settlement_epoch_wall_ns);
  a.recovery_bound_ns = r.IntegerOr("recovery_bound_ns", 0, base::kInt64Max, a.recovery_bound_ns);
  a.callback_bound_ns = r.IntegerOr("callback_bound_ns", 0, base::kInt64Max, a.callback_bound_ns);
  a.last_point_before_write = r.StringOr("last_point_before_write", a.last_point_before_write);
}

void ReadHeader(ObjectReader& r, History& history) {
  const std::string format = r.String("format");
  if (format != kHistoryFormatName) {
    throw InputError{"format", "expected \"" + std::string(kHistoryFormatName) +
                                  "\" (the header must come first), got \"" + format + "\""};
  }
  const std::int64_t version = r.Integer("version");
  if (version != History::kFormatVersion) {
    throw InputError{"version", "this reader understands version " + std::to_string(History::kFormatVersion) +
                                   ", got " + std::to_string(version)};
  }
  history.node_count = SmallInt(r, "node_count");
  history.end_ns = r.Integer("end_ns");
  if (r.Has("due_windows")) history.due_windows = r.IntegerArray("due_windows");
  if (r.Has("due_window_ns")) history.due_window_ns = r.IntegerArray("due_window_ns");
  if (!history.due_window_ns.empty() && history.due_window_ns.size() != history.due_windows.size()) {
    throw InputError{"due_window_ns", "must have one time per entry of due_windows"};
  }
  history.assumptions.last_point_before_write = kLastPointBeforeWriteOfOldHistories;
  if (r.Has("assumptions")) {
    ObjectReader assumptions = r.Object("assumptions");
    ReadAssumptions(assumptions, history.assumptions);
  }
}

StoreOp ReadStoreOp(ObjectReader& r) {
  StoreOp op;
  op.id = r.IntegerOr("id", base::kInt64Min, base::kInt64Max, 0);
  op.node = SmallInt(r, "node");
  op.process = r.StringOr("process", "");
  op.key = r.String("key");
  op.kind = r.Enum("kind", kStoreOpKindNames);
  op.outcome = r.Enum("outcome", kOutcomeNames);
  if (op.kind == StoreOpKind::kCas || r.Has("expected_version")) op.expected_version = r.Integer("expected_version");
  if (op.kind != StoreOpKind::kRead) op.value = Value(r, "value");
  op.found = r.BoolOr("found", false);
  op.version = r.IntegerOr("version", base::kInt64Min, base::kInt64Max, 0);
  if (op.found && (op.outcome != Outcome::kUnknown || r.Has("read_value"))) op.read_value = Value(r, "read_value");
  op.invoke_ns = Time(r, "invoke_ns");
  op.complete_ns = op.outcome != Outcome::kUnknown ? Time(r, "complete_ns") : TimeOr(r, "complete_ns", kNeverNs);
  op.applied_seq = r.IntegerOr("applied_seq", -1, base::kInt64Max, -1);
  op.applied_ns = TimeOr(r, "applied_ns", kNeverNs);
  if (op.applied_ns != kNeverNs && op.applied_ns < op.invoke_ns) {
    throw InputError{"applied_ns", "applied before it was invoked"};
  }
  if (op.applied_ns != kNeverNs && op.complete_ns != kNeverNs && op.applied_ns > op.complete_ns) {
    throw InputError{"applied_ns", "applied after it completed"};
  }
  if (op.outcome != Outcome::kUnknown && op.complete_ns < op.invoke_ns) {
    throw InputError{"complete_ns", "completes before it was invoked"};
  }
  return op;
}

ValidityClaim ReadClaim(ObjectReader& r) {
  ValidityClaim claim;
  claim.node = SmallInt(r, "node");
  claim.holder = r.String("holder");
  claim.term = r.Integer("term");
  claim.at_ns = Time(r, "at_ns");
  claim.boot_ns = Time(r, "boot_ns");
  claim.until_boot_ns = Time(r, "until_boot_ns");
  return claim;
}

LeadershipBelief ReadBelief(ObjectReader& r) {
  LeadershipBelief belief;
  belief.node = SmallInt(r, "node");
  belief.holder = r.String("holder");
  belief.term = r.Integer("term");
  belief.from_ns = Time(r, "from_ns");
  belief.until_ns = Time(r, "until_ns");
  belief.end_reason = r.StringOr("end_reason", "");
  if (belief.until_ns < belief.from_ns) throw InputError{"until_ns", "ends before it starts"};
  return belief;
}

LedgerWrite ReadLedgerWrite(ObjectReader& r) {
  LedgerWrite write;
  write.id = r.IntegerOr("id", base::kInt64Min, base::kInt64Max, 0);
  write.node = SmallInt(r, "node");
  write.holder = r.String("holder");
  write.token = r.Integer("token");
  write.idempotency_key = r.StringOr("idempotency_key", "");
  write.window = r.Integer("window");
  write.sent_ns = Time(r, "sent_ns");
  write.arrived_ns = TimeOr(r, "arrived_ns", write.arrived_ns);
  write.result = r.Enum("result", kLedgerResultNames);
  write.lease_valid_at_send = r.BoolOr("lease_valid_at_send", write.lease_valid_at_send);
  write.late_ns = r.IntegerOr("late_ns", base::kInt64Min, base::kInt64Max, 0);
  write.stalled_ns = r.IntegerOr("stalled_ns", 0, base::kInt64Max, 0);
  write.wall_seen_ns = r.IntegerOr("wall_seen_ns", base::kInt64Min, base::kInt64Max, kNeverNs);
  return write;
}

FaultRecord ReadFault(ObjectReader& r) {
  FaultRecord fault;
  fault.kind = r.String("kind");
  if (r.Has("nodes")) {
    for (const std::int64_t node : r.IntegerArray("nodes", kIntMin, kIntMax)) fault.nodes.push_back(static_cast<int>(node));
  }
  fault.start_ns = Time(r, "start_ns");
  fault.end_ns = Time(r, "end_ns");
  fault.within_assumptions = r.BoolOr("within_assumptions", fault.within_assumptions);
  fault.description = r.StringOr("description", "");
  fault.at_point = r.StringOr("at_point", "");
  if (fault.end_ns < fault.start_ns) throw InputError{"end_ns", "ends before it starts"};
  return fault;
}

CallbackRecord ReadCallback(ObjectReader& r) {
  CallbackRecord c;
  c.node = SmallInt(r, "node");
  c.process = r.String("process");
  c.kind = r.Enum("kind", kCallbackKindNames);
  c.term = r.Integer("term");
  c.leader = r.StringOr("leader", "");
  c.reason = r.StringOr("reason", "");
  c.lease_valid = r.BoolOr("valid", true);
  c.at_ns = r.Integer("at_ns");
  return c;
}

MetricSample ReadMetric(ObjectReader& r) {
  MetricSample m;
  m.node = SmallInt(r, "node");
  m.process = r.String("process");
  m.name = r.String("name");
  m.value = r.Integer("value");
  m.at_ns = r.Integer("at_ns");
  return m;
}

void ReadRecord(ObjectReader& r, History& history) {
  switch (r.Enum("type", kRecordTypeNames)) {
    case RecordType::kStoreOp: history.store_ops.push_back(ReadStoreOp(r)); break;
    case RecordType::kBelief: history.beliefs.push_back(ReadBelief(r)); break;
    case RecordType::kClaim: history.claims.push_back(ReadClaim(r)); break;
    case RecordType::kLedgerWrite: history.ledger_writes.push_back(ReadLedgerWrite(r)); break;
    case RecordType::kFault: history.faults.push_back(ReadFault(r)); break;
    case RecordType::kCallback: history.callbacks.push_back(ReadCallback(r)); break;
    case RecordType::kMetric: history.metrics.push_back(ReadMetric(r)); break;
    case RecordType::kKvOp: history.kv_ops.push_back(ReadKvOp(r)); break;
  }
}

// One line: the header when none was read yet, else a record.
void ReadLine(std::string_view line, bool header, History& history) {
  std::variant<Json, InputError> parsed = base::ParseStrictJson(line);
  if (InputError* error = std::get_if<InputError>(&parsed)) throw std::move(*error);
  ObjectReader reader(std::get<Json>(parsed), "");
  if (header) {
    ReadHeader(reader, history);
  } else {
    ReadRecord(reader, history);
  }
}

}  // namespace

void WriteHistory(const History& history, std::ostream& out) {
  out << HeaderJson(history).dump() << '\n';
  for (const StoreOp& op : history.store_ops) out << StoreOpJson(op).dump() << '\n';
  for (const LeadershipBelief& belief : history.beliefs) out << BeliefJson(belief).dump() << '\n';
  for (const ValidityClaim& claim : history.claims) out << ClaimJson(claim).dump() << '\n';
  for (const LedgerWrite& write : history.ledger_writes) out << LedgerWriteJson(write).dump() << '\n';
  for (const FaultRecord& fault : history.faults) out << FaultJson(fault).dump() << '\n';
  for (const CallbackRecord& c : history.callbacks) out << CallbackJson(c).dump() << '\n';
  for (const MetricSample& m : history.metrics) out << MetricJson(m).dump() << '\n';
  for (const KvStoreOp& op : history.kv_ops) out << KvOpJson(op).dump() << '\n';
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
  const std::vector<std::string_view> lines = SplitLines(text);
  bool have_header = false;
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const std::string_view line = TrimView(lines[index]);
    if (line.empty()) continue;
    try {
      ReadLine(line, !have_header, result.history);
    } catch (InputError& error) {
      error.line = static_cast<std::int64_t>(index + 1);  // the line of the file; a column stays one in it
      result.error = std::move(error);
      return result;
    }
    have_header = true;
  }
  if (!have_header) result.error = InputError{.rule = "empty history: no header line"};
  return result;
}

}  // namespace leasesim::checker
