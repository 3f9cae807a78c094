#include "checker/kv_history_io.h"

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "base/enum_names.h"

namespace leasesim::checker {
namespace {

using base::Json;
using base::ObjectReader;

constexpr base::EnumNames<KvStoreOp::Kind, 5> kKvOpKindNames{{{KvStoreOp::Kind::kTxn, "txn"},
                                                              {KvStoreOp::Kind::kLeaseGrant, "lease_grant"},
                                                              {KvStoreOp::Kind::kLeaseKeepAlive, "lease_keep_alive"},
                                                              {KvStoreOp::Kind::kLeaseRevoke, "lease_revoke"},
                                                              {KvStoreOp::Kind::kLeaseExpire, "lease_expire"}}};
constexpr base::EnumNames<KvStoreRequest::Kind, 3> kRequestKindNames{
    {{KvStoreRequest::Kind::kRange, "range"}, {KvStoreRequest::Kind::kPut, "put"}, {KvStoreRequest::Kind::kDelete, "delete"}}};
constexpr base::EnumNames<KvStoreCompareTarget, 4> kTargetNames{{{KvStoreCompareTarget::kValue, "value"},
                                                                 {KvStoreCompareTarget::kVersion, "version"},
                                                                 {KvStoreCompareTarget::kCreateRevision, "create_revision"},
                                                                 {KvStoreCompareTarget::kModRevision, "mod_revision"}}};
constexpr base::EnumNames<KvStoreCompareResult, 4> kResultNames{{{KvStoreCompareResult::kEqual, "equal"},
                                                                 {KvStoreCompareResult::kNotEqual, "not_equal"},
                                                                 {KvStoreCompareResult::kLess, "less"},
                                                                 {KvStoreCompareResult::kGreater, "greater"}}};

constexpr std::int64_t kMin = base::kInt64Min;
constexpr std::int64_t kMax = base::kInt64Max;

Json EntryJson(const KvStoreEntry& entry) {
  return Json{{"key", entry.key},         {"value", entry.value},
              {"create_revision", entry.create_revision}, {"mod_revision", entry.mod_revision},
              {"version", entry.version}, {"lease", entry.lease}};
}

Json RequestJson(const KvStoreRequest& request) {
  Json json{{"kind", kRequestKindNames.CName(request.kind)}, {"key", request.key}};
  if (!request.end.empty()) json["end"] = request.end;
  if (request.kind == KvStoreRequest::Kind::kPut) {
    json["value"] = request.value;
    json["lease"] = request.lease;
  }
  if (request.prev_kv) json["prev_kv"] = true;
  if (request.sort_by_create) json["sort_by_create"] = true;
  if (request.limit != 0) json["limit"] = request.limit;
  Json kvs = Json::array();
  for (const KvStoreEntry& entry : request.kvs) kvs.push_back(EntryJson(entry));
  json["kvs"] = std::move(kvs);
  json["count"] = request.count;
  if (request.more) json["more"] = true;
  return json;
}

Json RequestsJson(const std::vector<KvStoreRequest>& requests) {
  Json list = Json::array();
  for (const KvStoreRequest& request : requests) list.push_back(RequestJson(request));
  return list;
}

KvStoreEntry ReadEntry(const Json& json, const std::string& path) {
  ObjectReader r(json, path);
  return KvStoreEntry{r.String("key"),       r.String("value"),   r.Integer("create_revision", 0, kMax),
                      r.Integer("mod_revision", 0, kMax), r.Integer("version", 0, kMax), r.IntegerOr("lease", kMin, kMax, 0)};
}

KvStoreRequest ReadRequest(const Json& json, const std::string& path) {
  ObjectReader r(json, path);
  KvStoreRequest request;
  request.kind = r.Enum("kind", kRequestKindNames);
  request.key = r.String("key");
  request.end = r.StringOr("end", "");
  request.value = r.StringOr("value", "");
  request.lease = r.IntegerOr("lease", kMin, kMax, 0);
  request.prev_kv = r.BoolOr("prev_kv", false);
  request.sort_by_create = r.BoolOr("sort_by_create", false);
  request.limit = r.IntegerOr("limit", 0, kMax, 0);
  if (r.Has("kvs")) {
    const Json& kvs = r.Array("kvs");
    for (std::size_t i = 0; i < kvs.size(); ++i) request.kvs.push_back(ReadEntry(kvs[i], r.PathOf("kvs") + "[" + std::to_string(i) + "]"));
  }
  request.count = r.IntegerOr("count", 0, kMax, 0);
  request.more = r.BoolOr("more", false);
  return request;
}

std::vector<KvStoreRequest> ReadRequests(ObjectReader& r, std::string_view key) {
  std::vector<KvStoreRequest> requests;
  if (!r.Has(key)) return requests;
  const Json& list = r.Array(key);
  for (std::size_t i = 0; i < list.size(); ++i) {
    requests.push_back(ReadRequest(list[i], r.PathOf(key) + "[" + std::to_string(i) + "]"));
  }
  return requests;
}

std::vector<KvStoreCompare> ReadCompares(ObjectReader& r) {
  std::vector<KvStoreCompare> compares;
  if (!r.Has("compares")) return compares;
  const Json& list = r.Array("compares");
  for (std::size_t i = 0; i < list.size(); ++i) {
    ObjectReader c(list[i], r.PathOf("compares") + "[" + std::to_string(i) + "]");
    compares.push_back(KvStoreCompare{c.String("key"), c.Enum("target", kTargetNames), c.Enum("result", kResultNames),
                                      c.IntegerOr("number", kMin, kMax, 0), c.StringOr("value", "")});
  }
  return compares;
}

}  // namespace

Json KvOpJson(const KvStoreOp& op) {
  Json line{{"type", "kv_op"},
            {"store", op.store},
            {"kind", kKvOpKindNames.CName(op.kind)},
            {"process", op.process},
            {"outcome", kOutcomeNames.CName(op.outcome)},
            {"call_ns", op.call_ns},
            {"return_ns", op.return_ns == kNeverNs ? Json(nullptr) : Json(op.return_ns)},
            {"revision", op.revision},
            {"revisions", op.revisions},
            {"lease", op.lease}};
  if (op.ttl_ns != 0) line["ttl_ns"] = op.ttl_ns;
  if (op.lease_not_found) line["lease_not_found"] = true;
  if (op.applied_seq >= 0) line["applied_seq"] = op.applied_seq;
  if (op.kind != KvStoreOp::Kind::kTxn) return line;
  Json compares = Json::array();
  for (const KvStoreCompare& c : op.compares) {
    compares.push_back(Json{{"key", c.key},
                            {"target", kTargetNames.CName(c.target)},
                            {"result", kResultNames.CName(c.result)},
                            {"number", c.number},
                            {"value", c.value}});
  }
  line["compares"] = std::move(compares);
  line["success"] = RequestsJson(op.success);
  line["failure"] = RequestsJson(op.failure);
  line["succeeded"] = op.succeeded;
  return line;
}

KvStoreOp ReadKvOp(ObjectReader& r) {
  KvStoreOp op;
  op.store = r.String("store");
  op.kind = r.Enum("kind", kKvOpKindNames);
  op.process = static_cast<int>(r.IntegerOr("process", std::numeric_limits<int>::min(), std::numeric_limits<int>::max(), 0));
  op.outcome = r.Enum("outcome", kOutcomeNames);
  op.call_ns = r.Integer("call_ns");
  const Json* returned = r.Find("return_ns");
  op.return_ns = returned == nullptr || returned->is_null() ? kNeverNs : base::IntegerValue(*returned, r.PathOf("return_ns"));
  if (op.outcome != Outcome::kUnknown && op.return_ns == kNeverNs) {
    throw base::InputError{r.PathOf("return_ns"), "an op with a known outcome returns at a time"};
  }
  if (op.return_ns != kNeverNs && op.return_ns < op.call_ns) {
    throw base::InputError{r.PathOf("return_ns"), "returns before it was called"};
  }
  op.revision = r.IntegerOr("revision", 0, kMax, 0);
  op.revisions = r.BoolOr("revisions", true);
  op.lease = r.IntegerOr("lease", kMin, kMax, 0);
  op.ttl_ns = r.IntegerOr("ttl_ns", 0, kMax, 0);
  op.lease_not_found = r.BoolOr("lease_not_found", false);
  op.applied_seq = r.IntegerOr("applied_seq", -1, kMax, -1);
  op.compares = ReadCompares(r);
  op.success = ReadRequests(r, "success");
  op.failure = ReadRequests(r, "failure");
  op.succeeded = r.BoolOr("succeeded", false);
  return op;
}

}  // namespace leasesim::checker
