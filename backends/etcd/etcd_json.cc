#include "backends/etcd/etcd_json.h"

#include <charconv>

#include <absl/strings/escaping.h>
#include <absl/strings/str_format.h>
#include <nlohmann/json.hpp>

#include "backends/etcd/gateway_json.h"
#include "core/kv_store.h"

namespace leasesim::etcd {
namespace {

using Json = nlohmann::json;

}  // namespace

// The gateway writes int64 fields as JSON strings; accept numbers too.
std::optional<std::int64_t> Int64Field(const Json& object, const char* name) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return 0;  // proto3 omits zero values
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (!it->is_string()) return std::nullopt;
  const std::string& text = it->get_ref<const std::string&>();
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<KeyValue> ParseKv(const Json& kv) {
  if (!kv.is_object()) return std::nullopt;
  KeyValue parsed;
  for (const char* field : {"key", "value"}) {
    auto f = kv.find(field);
    std::string decoded;
    if (f != kv.end() && !f->is_null()) {
      if (!f->is_string()) return std::nullopt;
      std::optional<std::string> bytes = Base64Decode(f->get_ref<const std::string&>());
      if (!bytes) return std::nullopt;
      decoded = std::move(*bytes);
    }
    (field[0] == 'k' ? parsed.key : parsed.value) = std::move(decoded);
  }
  auto create = Int64Field(kv, "create_revision");
  auto mod = Int64Field(kv, "mod_revision");
  auto version = Int64Field(kv, "version");
  auto lease = Int64Field(kv, "lease");
  if (!create || !mod || !version || !lease) return std::nullopt;
  parsed.create_revision = *create;
  parsed.mod_revision = *mod;
  parsed.version = *version;
  parsed.lease = *lease;
  return parsed;
}

std::optional<std::vector<KeyValue>> ParseKvs(const Json& range, const char* field) {
  std::vector<KeyValue> out;
  auto it = range.find(field);
  if (it == range.end() || it->is_null()) return out;
  if (!it->is_array()) return std::nullopt;
  for (const Json& kv : *it) {
    std::optional<KeyValue> parsed = ParseKv(kv);
    if (!parsed) return std::nullopt;
    out.push_back(std::move(*parsed));
  }
  return out;
}

std::string PrefixEnd(std::string prefix) { return core::KvPrefixEnd(prefix); }

Json CompareJson(const Compare& compare) {
  Json json;
  json["target"] = Compare::kTargetNames.CName(compare.target);
  json["result"] = Compare::kResultNames.CName(compare.result);
  json["key"] = Base64Encode(compare.key);
  const std::string number = std::to_string(compare.number);
  switch (compare.target) {
    case Compare::Target::kCreate: json["create_revision"] = number; break;
    case Compare::Target::kVersion: json["version"] = number; break;
    case Compare::Target::kMod: json["mod_revision"] = number; break;
    case Compare::Target::kValue: json["value"] = Base64Encode(compare.value); break;
  }
  return json;
}

namespace {

Json OpJson(const Op& op) {
  Json json;
  switch (op.kind) {
    case Op::Kind::kPut:
      json["request_put"] = {{"key", Base64Encode(op.key)}, {"value", Base64Encode(op.value)}};
      break;
    case Op::Kind::kRange:
      json["request_range"] = {{"key", Base64Encode(op.key)}};
      break;
    case Op::Kind::kPrefixLast:
      json["request_range"] = {{"key", Base64Encode(op.key)},
                               {"range_end", Base64Encode(PrefixEnd(op.key))},
                               {"sort_order", "DESCEND"},
                               {"sort_target", "KEY"},
                               {"limit", "1"}};
      break;
    case Op::Kind::kTxn: {
      Json nested;
      nested["compare"] = Json::array();
      for (const Compare& c : op.compares) nested["compare"].push_back(CompareJson(c));
      nested["success"] = Json::array();
      for (const Op& o : op.success) nested["success"].push_back(OpJson(o));
      json["request_txn"] = std::move(nested);
      break;
    }
  }
  return json;
}

}  // namespace

// The gateway writes proto `bytes` fields in standard base64 with padding
// (the proto3 JSON mapping: "JSON value will be the data encoded as a
// string using standard base64 encoding with paddings";
// developers.google.com/protocol-buffers/docs/proto3#json), so Abseil's
// RFC 4648 codec is exactly it.
// (Debian's Abseil has its own string_view, not std::string_view's alias.)
std::string Base64Encode(std::string_view bytes) {
  return absl::Base64Escape(absl::string_view(bytes.data(), bytes.size()));
}

std::optional<std::string> Base64Decode(std::string_view text) {
  std::string out;
  if (!absl::Base64Unescape(absl::string_view(text.data(), text.size()), &out)) return std::nullopt;
  return out;
}

std::string EncodeRecord(const core::LeaseRecord& record) {
  nlohmann::ordered_json json;
  json["holder"] = record.holder;
  json["term"] = record.term;
  json["duration_ns"] = record.duration_ns;
  json["acquired_wall_ns"] = record.acquired_wall_ns;
  json["renewed_wall_ns"] = record.renewed_wall_ns;
  json["preferred_successor"] = record.preferred_successor;
  return json.dump();
}

std::optional<core::LeaseRecord> DecodeRecord(std::string_view value) {
  Json json = Json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  core::LeaseRecord record;
  auto holder = json.find("holder");
  auto term = json.find("term");
  auto duration = json.find("duration_ns");
  if (holder == json.end() || !holder->is_string()) return std::nullopt;
  if (term == json.end() || !term->is_number_integer()) return std::nullopt;
  if (duration == json.end() || !duration->is_number_integer()) return std::nullopt;
  record.holder = holder->get<std::string>();
  record.term = term->get<std::int64_t>();
  record.duration_ns = duration->get<std::int64_t>();
  for (auto [name, field] : {std::pair{"acquired_wall_ns", &record.acquired_wall_ns},
                             std::pair{"renewed_wall_ns", &record.renewed_wall_ns}}) {
    auto it = json.find(name);
    if (it == json.end()) continue;
    if (!it->is_number_integer()) return std::nullopt;
    *field = it->get<std::int64_t>();
  }
  auto successor = json.find("preferred_successor");
  if (successor != json.end()) {
    if (!successor->is_string()) return std::nullopt;
    record.preferred_successor = successor->get<std::string>();
  }
  return record;
}

std::optional<Response> ParseResponse(std::string_view body, bool is_txn) {
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return std::nullopt;
  auto header = json.find("header");
  if (header == json.end() || !header->is_object()) return std::nullopt;
  Response response;
  auto revision = Int64Field(*header, "revision");
  if (!revision) return std::nullopt;
  response.revision = *revision;
  if (!is_txn) {
    auto kvs = ParseKvs(json, "kvs");
    if (!kvs) return std::nullopt;
    response.ranges.push_back(std::move(*kvs));
    return response;
  }
  auto succeeded = json.find("succeeded");
  if (succeeded != json.end() && !succeeded->is_null()) {
    if (!succeeded->is_boolean()) return std::nullopt;
    response.succeeded = succeeded->get<bool>();
  }
  auto responses = json.find("responses");
  if (responses == json.end() || responses->is_null()) return response;
  if (!responses->is_array()) return std::nullopt;
  for (const Json& op : *responses) {
    if (!op.is_object()) return std::nullopt;
    auto range = op.find("response_range");
    if (range == op.end()) {
      response.ranges.emplace_back();
      continue;
    }
    auto kvs = ParseKvs(*range, "kvs");
    if (!kvs) return std::nullopt;
    response.ranges.push_back(std::move(*kvs));
  }
  return response;
}

std::string RangeBody(std::string_view key) {
  Json json;
  json["key"] = Base64Encode(key);
  json["serializable"] = false;  // linearizable: goes through the leader's read index
  return json.dump();
}

std::string PrefixRangeBody(std::string_view prefix) {
  Json json;
  json["key"] = Base64Encode(prefix);
  json["range_end"] = Base64Encode(PrefixEnd(std::string(prefix)));
  json["serializable"] = false;
  return json.dump();
}

std::string TxnBody(const std::vector<Compare>& compares, const std::vector<Op>& success,
                    const std::vector<Op>& failure) {
  Json json;
  json["compare"] = Json::array();
  for (const Compare& c : compares) json["compare"].push_back(CompareJson(c));
  json["success"] = Json::array();
  for (const Op& o : success) json["success"].push_back(OpJson(o));
  json["failure"] = Json::array();
  for (const Op& o : failure) json["failure"].push_back(OpJson(o));
  return json.dump();
}

std::string CreateBody(std::string_view key, const core::LeaseRecord& record) {
  const std::string k(key);
  return TxnBody({Compare{.target = Compare::Target::kCreate, .key = k, .number = 0}},
                 {Op{.kind = Op::Kind::kPut, .key = k, .value = EncodeRecord(record)},
                  Op{.kind = Op::Kind::kRange, .key = k}},
                 {Op{.kind = Op::Kind::kRange, .key = k}});
}

std::string CasBody(std::string_view key, std::int64_t expected_version, const core::LeaseRecord& record) {
  const std::string k(key);
  // version == expected, and the key exists: an absent key has version 0 in
  // etcd, and a CAS must never act as a create.
  return TxnBody({Compare{.target = Compare::Target::kVersion, .key = k, .number = expected_version},
                  Compare{.target = Compare::Target::kCreate, .result = Compare::Result::kGreater, .key = k,
                          .number = 0}},
                 {Op{.kind = Op::Kind::kPut, .key = k, .value = EncodeRecord(record)},
                  Op{.kind = Op::Kind::kRange, .key = k}},
                 {Op{.kind = Op::Kind::kRange, .key = k}});
}

std::optional<core::VersionedRecord> ToVersionedRecord(const std::vector<KeyValue>& kvs) {
  core::VersionedRecord out;
  if (kvs.empty()) return out;
  std::optional<core::LeaseRecord> record = DecodeRecord(kvs.front().value);
  if (!record) return std::nullopt;
  out.found = true;
  out.version = kvs.front().version;
  out.record = std::move(*record);
  return out;
}

std::string Padded(std::int64_t number) {
  return absl::StrFormat("%020d", number);
}

std::optional<std::int64_t> ParsePadded(std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace leasesim::etcd
