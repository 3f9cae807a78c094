#pragma once
// The KV seam (core::KvClient, etcd v3's data model) served by a real etcd
// over its JSON gateway: the same seam the simulated single store
// (backends/sim_kv_server.h) serves, so a protocol written against it runs
// unchanged on both. The calls map one to one onto etcd's RPCs
// (api/etcdserverpb/rpc.proto): Txn -> KV.Txn (/v3/kv/txn), Watch ->
// Watch (/v3/watch, a stream read until its first news), LeaseGrant,
// LeaseKeepAlive (one message of the /v3/lease/keepalive stream),
// LeaseRevoke. Encoding: etcd_kv_json.h.
//
// Outcomes (the seam's KvStatus), by what the exchange came to
// (gateway_errors.h classifies a gateway error by its gRPC code, never its
// text):
//   kOk            etcd answered (a txn: whichever branch ran)
//   kLeaseNotFound etcd answered NotFound (ErrGRPCLeaseNotFound: "requested
//                  lease not found", api/v3rpc/rpctypes/error.go; a txn put
//                  naming a missing lease applied nothing, checked before
//                  apply: server/etcdserver/apply.go checkRequestPut), or a
//                  keep-alive answered TTL 0
//   kInvalid       etcd answered InvalidArgument (ErrGRPCDuplicateKey: a key
//                  written twice in a branch; an empty key; too many ops):
//                  rejected before anything applied
//   kCompacted     a watch's start revision was compacted (the stream's
//                  cancel carries compact_revision: mvcc/watchable_store.go)
//   kUnavailable   certainly not applied: connection refused or no connect on
//                  every endpoint, a TLS handshake that failed, or another
//                  code etcd gives only to requests it rejected (see
//                  gateway_errors.h)
//   kTimeout       the outcome is unknown: sent and no complete answer in
//                  time, the connection broke after sending, or etcd
//                  answered Unavailable ("request timed out", "leader
//                  changed", "no leader") or another code that may follow an
//                  apply; a 200 that could not be read. A watch with no news
//                  before its deadline is kTimeout too, which proves nothing.
// Thread-safe as EtcdHttp is: concurrent calls use separate connections.

#include <string_view>

#include "backends/etcd/etcd_http.h"
#include "core/kv_store.h"

namespace leasesim::etcd {

// core::KvClient on a real etcd: each call one etcd RPC over the gateway.
class EtcdKvClient final : public core::KvClient {
 public:
  explicit EtcdKvClient(EtcdHttp& http) : http_(http) {}

  core::KvTxnResult Txn(const core::KvTxn& txn, core::Nanos timeout) override;
  core::KvWatchResult Watch(const core::KvKeys& keys, std::int64_t start_revision, core::Nanos timeout) override;
  // etcd's TTLs are whole seconds: `ttl` is rounded up (TtlSeconds), and
  // etcd raises a TTL below its minimum (lessor.go minLeaseTTL, 2 s with
  // the default election timeout); the answer's ttl is the one granted.
  core::KvLeaseResult LeaseGrant(core::Nanos ttl, core::Nanos timeout) override;
  core::KvLeaseResult LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) override;
  core::KvLeaseResult LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) override;

 private:
  // A missing permission is a misconfiguration the operator must hear of.
  const HttpResult& Noted(const HttpResult& http, std::string_view what);
  EtcdHttp& http_;
};

// The seam's status for a call that got no usable 200 (exposed for tests).
core::KvStatus KvStatusForFailure(const HttpResult& http);
// A /v3/kv/txn exchange as the seam's result.
core::KvTxnResult InterpretKvTxn(const HttpResult& http, const core::KvTxn& txn);

}  // namespace leasesim::etcd
