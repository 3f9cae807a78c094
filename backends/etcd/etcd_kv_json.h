#pragma once
// Pure encoding of the KV seam (core/kv_store.h) for etcd v3's JSON gateway:
// request bodies of /v3/kv/txn, /v3/watch, /v3/lease/{grant,keepalive,revoke}
// and /v3/kv/compaction, and the parsing of their answers. Messages and
// field names are etcd's (api/etcdserverpb/rpc.proto, api/mvccpb/kv.proto)
// in the proto3 JSON mapping the gateway speaks: snake_case names as in the
// .proto (the gateway keeps the original names, hence "ID" and "TTL" of the
// lease messages), int64 as strings, bytes as base64, zero values omitted.
// No I/O here: unit-tested on bodies recorded from etcd 3.4.23.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kv_store.h"

namespace leasesim::etcd {

// TxnRequest for `txn`: compares, then success and failure branches of
// RequestOp (request_range, request_put, request_delete_range).
std::string KvTxnBody(const core::KvTxn& txn);

// A TxnResponse (an HTTP 200 body) as the seam's result, status kOk. nullopt
// when the body is malformed or its responses do not match the branch that
// ran (one ResponseOp per RequestOp, of the same kind).
std::optional<core::KvTxnResult> ParseKvTxn(std::string_view body, const core::KvTxn& txn);

// A WatchRequest creating one watch on `keys` from `start_revision`
// (0: etcd starts at the store's revision + 1, as the seam does).
std::string WatchCreateBody(const core::KvKeys& keys, std::int64_t start_revision);

// One message of the watch stream: the gateway writes each WatchResponse as
// {"result": {...}} on its own line, and a stream error as {"error": {...}}.
struct WatchMessage {
  std::int64_t revision = 0;  // header.revision (absent on a compaction's cancel)
  bool created = false;
  bool canceled = false;
  std::int64_t compact_revision = 0;  // > 0: the start revision was compacted
  std::string cancel_reason;
  std::vector<core::KvWatchEvent> events;
  int error_code = -1;  // a stream error's gRPC code; -1: none
  std::string error;    // its message (logs only)
};

// nullopt when the line is not a watch stream message.
std::optional<WatchMessage> ParseWatchMessage(std::string_view line);

// etcd's TTLs are whole seconds (LeaseGrantRequest.TTL, "in seconds"): the
// seam's nanoseconds rounded up, so a lease never lives shorter than asked;
// at least 1.
std::int64_t TtlSeconds(core::Nanos ttl);

// LeaseGrantRequest (ID 0: etcd picks the id).
std::string LeaseGrantBody(core::Nanos ttl);
// LeaseRevokeRequest and LeaseKeepAliveRequest: {"ID": id}.
std::string LeaseIdBody(core::KvLeaseId lease);
// CompactionRequest (physical: answered once the compaction is on disk).
std::string CompactionBody(std::int64_t revision);

// LeaseGrantResponse: status kOk with the id and the TTL etcd granted (it
// raises a TTL below its minimum, lessor.go minLeaseTTL). nullopt: malformed.
std::optional<core::KvLeaseResult> ParseLeaseGrant(std::string_view body);
// LeaseRevokeResponse: kOk with the header revision.
std::optional<core::KvLeaseResult> ParseLeaseRevoke(std::string_view body, core::KvLeaseId lease);
// The keep-alive stream's first message: kOk with the restarted TTL, or
// kLeaseNotFound when etcd answered TTL 0 (etcd's server sends TTL 0 for a
// lease it does not have: server/etcdserver/api/v3rpc/lease.go
// leaseKeepAlive; clientv3's lease.go treats "TTL <= 0" as expired). A
// stream error comes back as its gRPC code in `error_code`.
struct KeepAliveAnswer {
  std::optional<core::KvLeaseResult> result;
  int error_code = -1;
  std::string error;
};
std::optional<KeepAliveAnswer> ParseLeaseKeepAlive(std::string_view body, core::KvLeaseId lease);

}  // namespace leasesim::etcd
