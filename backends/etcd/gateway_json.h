#pragma once
// JSON pieces of etcd's gateway encoding shared by the record store's and
// the KV seam's encoders (etcd_json.cc, etcd_kv_json.cc): one reading of a
// gateway int64, of an mvccpb.KeyValue and of a Compare. Internal to
// backends/etcd (it exposes nlohmann::json, which the library links
// privately).

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/etcd/etcd_json.h"

namespace leasesim::etcd {

// An int64 field as the gateway writes it (a JSON string: the proto3 JSON
// mapping writes int64 as a string; a number is accepted too); 0 when
// absent, as proto3 omits zero values; nullopt when malformed.
std::optional<std::int64_t> Int64Field(const nlohmann::json& object, const char* name);
// One mvccpb.KeyValue (key and value decoded from base64).
std::optional<KeyValue> ParseKv(const nlohmann::json& kv);
// The array `field` of KeyValues (absent: empty).
std::optional<std::vector<KeyValue>> ParseKvs(const nlohmann::json& object, const char* field);
// etcdserverpb.Compare.
nlohmann::json CompareJson(const Compare& compare);

}  // namespace leasesim::etcd
