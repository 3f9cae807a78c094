#include "backends/etcd/etcd_kv_json.h"

#include <cassert>
#include <nlohmann/json.hpp>

#include "backends/etcd/gateway_json.h"
#include "base/units.h"

namespace leasesim::etcd {
namespace {

using Json = nlohmann::json;
using core::KvRequestOp;

Compare::Target TargetOf(core::KvCompareTarget target) {
  switch (target) {
    case core::KvCompareTarget::kValue: return Compare::Target::kValue;
    case core::KvCompareTarget::kVersion: return Compare::Target::kVersion;
    case core::KvCompareTarget::kCreateRevision: return Compare::Target::kCreate;
    case core::KvCompareTarget::kModRevision: return Compare::Target::kMod;
  }
  return Compare::Target::kVersion;
}

Compare::Result ResultOf(core::KvCompareResult result) {
  switch (result) {
    case core::KvCompareResult::kEqual: return Compare::Result::kEqual;
    case core::KvCompareResult::kNotEqual: return Compare::Result::kNotEqual;
    case core::KvCompareResult::kLess: return Compare::Result::kLess;
    case core::KvCompareResult::kGreater: return Compare::Result::kGreater;
  }
  return Compare::Result::kEqual;
}

// key and, for a span, range_end (etcd's "\0" = every key from key on is
// the single byte 0, base64 "AA==").
void PutKeys(Json& json, const core::KvKeys& keys) {
  json["key"] = Base64Encode(keys.key);
  if (!keys.end.empty()) json["range_end"] = Base64Encode(keys.end);
}

Json RangeJson(const KvRequestOp& op) {
  Json range;
  PutKeys(range, op.keys);
  if (op.limit > 0) range["limit"] = std::to_string(op.limit);
  if (op.sort_by == core::KvSortBy::kCreateRevision) {
    // etcd sorts before it applies the limit when a sort is asked for
    // (server/etcdserver/apply.go Range: "fetch everything; sort and
    // truncate afterwards"), so limit 1 is the lowest create revision.
    range["sort_order"] = "ASCEND";
    range["sort_target"] = "CREATE";
  }
  // Without sort_order (NONE) etcd answers in key order, the seam's kKey.
  // RangeRequest.serializable: served by the member asked, without consensus.
  if (op.serializable) range["serializable"] = true;
  return range;
}

Json RequestOpJson(const KvRequestOp& op) {
  Json json;
  switch (op.kind) {
    case KvRequestOp::Kind::kRange:
      json["request_range"] = RangeJson(op);
      break;
    case KvRequestOp::Kind::kPut: {
      Json put{{"key", Base64Encode(op.keys.key)}, {"value", Base64Encode(op.value)}};
      if (op.lease != core::kNoLease) put["lease"] = std::to_string(op.lease);
      if (op.prev_kv) put["prev_kv"] = true;
      json["request_put"] = std::move(put);
      break;
    }
    case KvRequestOp::Kind::kDelete: {
      Json del;
      PutKeys(del, op.keys);
      if (op.prev_kv) del["prev_kv"] = true;
      json["request_delete_range"] = std::move(del);
      break;
    }
  }
  return json;
}

core::KvEntry ToEntry(KeyValue kv) {
  return core::KvEntry{.key = std::move(kv.key),
                       .value = std::move(kv.value),
                       .create_revision = kv.create_revision,
                       .mod_revision = kv.mod_revision,
                       .version = kv.version,
                       .lease = kv.lease};
}

std::optional<std::vector<core::KvEntry>> EntriesOf(const Json& object, const char* field) {
  std::optional<std::vector<KeyValue>> kvs = ParseKvs(object, field);
  if (!kvs) return std::nullopt;
  std::vector<core::KvEntry> out;
  out.reserve(kvs->size());
  for (KeyValue& kv : *kvs) out.push_back(ToEntry(std::move(kv)));
  return out;
}

std::optional<bool> BoolField(const Json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return false;
  if (!it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

// The ResponseOp answering `op`: response_range {kvs, count, more},
// response_put {prev_kv}, response_delete_range {deleted, prev_kvs}.
std::optional<core::KvResponseOp> ParseResponseOp(const Json& json, const KvRequestOp& op) {
  static constexpr const char* kField[] = {"response_range", "response_put", "response_delete_range"};
  auto it = json.is_object() ? json.find(kField[static_cast<int>(op.kind)]) : json.end();
  if (it == json.end() || !it->is_object()) return std::nullopt;
  core::KvResponseOp out;
  out.kind = op.kind;
  std::optional<std::vector<core::KvEntry>> kvs;
  std::optional<std::int64_t> count = 0;
  std::optional<bool> more = false;
  switch (op.kind) {
    case KvRequestOp::Kind::kRange:
      kvs = EntriesOf(*it, "kvs");
      count = Int64Field(*it, "count");
      more = BoolField(*it, "more");
      break;
    case KvRequestOp::Kind::kPut: {
      kvs = std::vector<core::KvEntry>{};
      auto prev = it->find("prev_kv");
      if (prev != it->end() && !prev->is_null()) {
        std::optional<KeyValue> kv = ParseKv(*prev);
        if (!kv) return std::nullopt;
        kvs->push_back(ToEntry(std::move(*kv)));
      }
      break;
    }
    case KvRequestOp::Kind::kDelete:
      kvs = EntriesOf(*it, "prev_kvs");
      count = Int64Field(*it, "deleted");
      break;
  }
  if (!kvs || !count || !more) return std::nullopt;
  out.kvs = std::move(*kvs);
  out.count = *count;
  out.more = *more;
  return out;
}

std::optional<std::int64_t> HeaderRevision(const Json& json) {
  auto header = json.find("header");
  if (header == json.end() || !header->is_object()) return std::nullopt;
  return Int64Field(*header, "revision");
}

std::optional<core::KvWatchEvent> ParseEvent(const Json& json) {
  if (!json.is_object()) return std::nullopt;
  core::KvWatchEvent event;
  // mvccpb.Event.EventType: PUT = 0 (omitted as the zero value), DELETE = 1.
  auto type = json.find("type");
  if (type != json.end() && !type->is_null()) {
    const bool is_delete = (type->is_string() && type->get_ref<const std::string&>() == "DELETE") ||
                           (type->is_number_integer() && type->get<int>() == 1);
    const bool is_put = (type->is_string() && type->get_ref<const std::string&>() == "PUT") ||
                        (type->is_number_integer() && type->get<int>() == 0);
    if (!is_delete && !is_put) return std::nullopt;
    if (is_delete) event.type = core::KvWatchEvent::Type::kDelete;
  }
  auto kv = json.find("kv");
  if (kv == json.end()) return std::nullopt;
  std::optional<KeyValue> parsed = ParseKv(*kv);
  if (!parsed) return std::nullopt;
  event.kv = ToEntry(std::move(*parsed));
  return event;
}

// A stream error as grpc-gateway writes it: {"error": {"grpc_code",
// "http_code", "message", ...}} (older gateways: "code").
void ReadStreamError(const Json& error, int& code, std::string& message) {
  code = static_cast<int>(GrpcCode::kUnknown);
  if (!error.is_object()) return;
  for (const char* field : {"grpc_code", "code"}) {
    auto it = error.find(field);
    if (it != error.end() && it->is_number_integer()) {
      code = it->get<int>();
      break;
    }
  }
  auto text = error.find("message");
  if (text != error.end() && text->is_string()) message = text->get<std::string>();
}

// One line of a gateway stream: {"error": {...}} (read into `code` and
// `message`) or {"result": {...}}. The result object; nullptr for an error
// line; nullopt for a line that is neither.
std::optional<const Json*> StreamLine(const Json& json, int& code, std::string& message) {
  if (!json.is_object()) return std::nullopt;
  if (auto error = json.find("error"); error != json.end()) {
    ReadStreamError(*error, code, message);
    return nullptr;
  }
  auto result = json.find("result");
  if (result == json.end() || !result->is_object()) return std::nullopt;
  return &*result;
}

}  // namespace

std::string KvTxnBody(const core::KvTxn& txn) {
  Json json;
  json["compare"] = Json::array();
  for (const core::KvCompare& c : txn.compares) {
    json["compare"].push_back(CompareJson(
        Compare{.target = TargetOf(c.target), .result = ResultOf(c.result), .key = c.key, .number = c.number,
                .value = c.value}));
  }
  for (const auto& [name, branch] : {std::pair{"success", &txn.success}, std::pair{"failure", &txn.failure}}) {
    json[name] = Json::array();
    for (const KvRequestOp& op : *branch) json[name].push_back(RequestOpJson(op));
  }
  return json.dump();
}

std::optional<core::KvTxnResult> ParseKvTxn(std::string_view body, const core::KvTxn& txn) {
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  core::KvTxnResult result;
  std::optional<std::int64_t> revision = HeaderRevision(json);
  std::optional<bool> succeeded = BoolField(json, "succeeded");
  if (!revision || !succeeded) return std::nullopt;
  result.status = core::KvStatus::kOk;
  result.revision = *revision;
  result.succeeded = *succeeded;
  const std::vector<KvRequestOp>& branch = result.succeeded ? txn.success : txn.failure;
  auto responses = json.find("responses");
  const Json none = Json::array();
  const Json& list = responses == json.end() || responses->is_null() ? none : *responses;
  if (!list.is_array() || list.size() != branch.size()) return std::nullopt;
  for (std::size_t i = 0; i < branch.size(); ++i) {
    std::optional<core::KvResponseOp> response = ParseResponseOp(list[i], branch[i]);
    if (!response) return std::nullopt;
    result.responses.push_back(std::move(*response));
  }
  return result;
}

std::string WatchCreateBody(const core::KvKeys& keys, std::int64_t start_revision) {
  Json create;
  PutKeys(create, keys);
  if (start_revision > 0) create["start_revision"] = std::to_string(start_revision);
  return Json{{"create_request", std::move(create)}}.dump();
}

std::optional<WatchMessage> ParseWatchMessage(std::string_view line) {
  const Json json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  WatchMessage message;
  const std::optional<const Json*> streamed = StreamLine(json, message.error_code, message.error);
  if (!streamed) return std::nullopt;
  if (*streamed == nullptr) return message;
  const Json& result = **streamed;
  std::optional<std::int64_t> revision = HeaderRevision(result);
  std::optional<bool> created = BoolField(result, "created");
  std::optional<bool> canceled = BoolField(result, "canceled");
  std::optional<std::int64_t> compact = Int64Field(result, "compact_revision");
  if (!revision || !created || !canceled || !compact) return std::nullopt;
  message.revision = *revision;
  message.created = *created;
  message.canceled = *canceled;
  message.compact_revision = *compact;
  if (auto reason = result.find("cancel_reason"); reason != result.end() && reason->is_string()) {
    message.cancel_reason = reason->get<std::string>();
  }
  if (auto events = result.find("events"); events != result.end() && !events->is_null()) {
    if (!events->is_array()) return std::nullopt;
    for (const Json& e : *events) {
      std::optional<core::KvWatchEvent> event = ParseEvent(e);
      if (!event) return std::nullopt;
      message.events.push_back(std::move(*event));
    }
  }
  return message;
}

std::int64_t TtlSeconds(core::Nanos ttl) {
  const std::int64_t seconds = (ttl + base::kNanosPerSecond - 1) / base::kNanosPerSecond;
  return std::max<std::int64_t>(1, seconds);
}

std::string LeaseGrantBody(core::Nanos ttl) { return Json{{"TTL", std::to_string(TtlSeconds(ttl))}}.dump(); }

std::string LeaseIdBody(core::KvLeaseId lease) { return Json{{"ID", std::to_string(lease)}}.dump(); }

std::string CompactionBody(std::int64_t revision) {
  return Json{{"revision", std::to_string(revision)}, {"physical", true}}.dump();
}

std::optional<core::KvLeaseResult> ParseLeaseGrant(std::string_view body) {
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  std::optional<std::int64_t> revision = HeaderRevision(json);
  std::optional<std::int64_t> id = Int64Field(json, "ID");
  std::optional<std::int64_t> ttl = Int64Field(json, "TTL");
  if (!revision || !id || !ttl || *id == core::kNoLease || *ttl <= 0) return std::nullopt;
  // LeaseGrantResponse.error: a legacy text field; a grant that carries one
  // did not grant.
  auto error = json.find("error");
  if (error != json.end() && error->is_string() && !error->get_ref<const std::string&>().empty()) return std::nullopt;
  return core::KvLeaseResult{
      .status = core::KvStatus::kOk, .id = *id, .ttl = *ttl * base::kNanosPerSecond, .revision = *revision};
}

std::optional<core::KvLeaseResult> ParseLeaseRevoke(std::string_view body, core::KvLeaseId lease) {
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  std::optional<std::int64_t> revision = HeaderRevision(json);
  if (!revision) return std::nullopt;
  return core::KvLeaseResult{.status = core::KvStatus::kOk, .id = lease, .ttl = 0, .revision = *revision};
}

std::optional<KeepAliveAnswer> ParseLeaseKeepAlive(std::string_view body, core::KvLeaseId lease) {
  const std::size_t end = body.find('\n');
  const Json json = Json::parse(body.substr(0, end), nullptr, /*allow_exceptions=*/false);
  KeepAliveAnswer answer;
  const std::optional<const Json*> streamed = StreamLine(json, answer.error_code, answer.error);
  if (!streamed) return std::nullopt;
  if (*streamed == nullptr) return answer;
  const Json& result = **streamed;
  std::optional<std::int64_t> revision = HeaderRevision(result);
  std::optional<std::int64_t> ttl = Int64Field(result, "TTL");
  if (!revision || !ttl) return std::nullopt;
  const bool found = *ttl > 0;
  answer.result = core::KvLeaseResult{.status = found ? core::KvStatus::kOk : core::KvStatus::kLeaseNotFound,
                                      .id = lease,
                                      .ttl = found ? *ttl * base::kNanosPerSecond : 0,
                                      .revision = *revision};
  return answer;
}

}  // namespace leasesim::etcd
