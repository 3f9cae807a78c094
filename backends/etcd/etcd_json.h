#pragma once
// Pure encoding for etcd v3's JSON gateway (etcd 3.4: POST /v3/kv/range,
// /v3/kv/txn): base64 keys and values, request bodies, response parsing, the
// lease record as JSON in the value (errors: gateway_errors.h). No I/O
// here, so all of it is unit-tested without an etcd.
//
// Version mapping: the core's per-key `version` is etcd's per-key `version`
// field (1 on create, +1 on every put; the record is never deleted, so it
// only grows). CAS compares VERSION == expected in a txn; create-if-absent
// compares CREATE (create_revision) == 0. See docs/LIVE.md.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/etcd/gateway_errors.h"
#include "base/enum_names.h"
#include "core/env.h"
#include "core/lease_record.h"

namespace leasesim::etcd {

// Standard base64 (RFC 4648, with padding), as the gateway encodes `bytes`.
std::string Base64Encode(std::string_view bytes);
// nullopt on a malformed input.
std::optional<std::string> Base64Decode(std::string_view text);

// The lease record as stored in the value: one JSON object, every field named.
std::string EncodeRecord(const core::LeaseRecord& record);
// nullopt when the value is not a lease record (not JSON, a field missing or
// of the wrong type).
std::optional<core::LeaseRecord> DecodeRecord(std::string_view value);

// One key-value as the gateway returns it (key and value already decoded).
struct KeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  std::int64_t lease = 0;  // the lease the key is attached to; 0: none
};

// A parsed range or txn response.
struct Response {
  std::int64_t revision = 0;   // header.revision: the store's revision after the call
  bool succeeded = false;      // txn only: which branch ran
  // Per operation of the branch that ran (a range response's kvs are in
  // ranges[0]); put and nested-txn responses give an empty entry.
  std::vector<std::vector<KeyValue>> ranges;
};

// nullopt when the body is not a well-formed gateway response.
std::optional<Response> ParseResponse(std::string_view body, bool is_txn);

// --- Request bodies -------------------------------------------------------

// Linearizable single-key range (serializable=false).
std::string RangeBody(std::string_view key);
// A prefix's range end: the prefix with its last byte incremented (bytes of
// 0xff dropped first), as etcd's clientv3.GetPrefixRangeEnd.
std::string PrefixEnd(std::string prefix);
// Linearizable range of every key under `prefix`, in key order.
std::string PrefixRangeBody(std::string_view prefix);

// One comparison of a txn.
struct Compare {
  enum class Target { kCreate, kVersion, kMod, kValue };
  enum class Result { kEqual, kLess, kGreater, kNotEqual };
  // The gateway's spelling of each (etcdserverpb.Compare's enums).
  static constexpr base::EnumNames<Target, 4> kTargetNames{
      {{Target::kCreate, "CREATE"}, {Target::kVersion, "VERSION"}, {Target::kMod, "MOD"}, {Target::kValue, "VALUE"}}};
  static constexpr base::EnumNames<Result, 4> kResultNames{{{Result::kEqual, "EQUAL"},
                                                            {Result::kLess, "LESS"},
                                                            {Result::kGreater, "GREATER"},
                                                            {Result::kNotEqual, "NOT_EQUAL"}}};
  Target target = Target::kVersion;
  Result result = Result::kEqual;
  std::string key;
  std::int64_t number = 0;  // kCreate, kVersion, kMod
  std::string value;        // kValue (raw bytes; encoded here)
};

// One operation of a txn branch.
struct Op {
  enum class Kind { kPut, kRange, kPrefixLast, kTxn };
  Kind kind = Kind::kRange;
  std::string key;    // kPut, kRange; kPrefixLast: the prefix
  std::string value;  // kPut
  // kTxn: a nested txn (etcd >= 3.3), its compares and success branch.
  std::vector<Compare> compares;
  std::vector<Op> success;
};

std::string TxnBody(const std::vector<Compare>& compares, const std::vector<Op>& success,
                    const std::vector<Op>& failure);

// Create-if-absent: compare create_revision == 0; success put + range, failure range.
std::string CreateBody(std::string_view key, const core::LeaseRecord& record);
// CAS: compare version == expected and create_revision > 0 (the key exists);
// success put + range, failure range.
std::string CasBody(std::string_view key, std::int64_t expected_version, const core::LeaseRecord& record);

// The record a range result holds (found=false when the key is absent).
// nullopt when the stored value is not a lease record.
std::optional<core::VersionedRecord> ToVersionedRecord(const std::vector<KeyValue>& kvs);

// Zero-padded decimal, so that etcd's byte-wise VALUE comparison orders
// non-negative numbers numerically.
std::string Padded(std::int64_t number);
std::optional<std::int64_t> ParsePadded(std::string_view text);

}  // namespace leasesim::etcd
