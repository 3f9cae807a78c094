#include "backends/etcd/etcd_kv.h"

#include <optional>
#include <string>

#include "backends/etcd/etcd_access.h"
#include "backends/etcd/etcd_kv_json.h"

namespace leasesim::etcd {

core::KvStatus KvStatusForFailure(const HttpResult& http) {
  if (http.cause == FailureCause::kEtcdError) {
    // etcd's own answer, by its gRPC code (api/v3rpc/rpctypes/error.go):
    // NotFound is only ever "requested lease not found" on these RPCs, and
    // InvalidArgument a request it refused to apply (ErrGRPCDuplicateKey,
    // ErrGRPCEmptyKey, ErrGRPCTooManyOps, ...).
    if (http.grpc_code == static_cast<int>(GrpcCode::kNotFound)) return core::KvStatus::kLeaseNotFound;
    if (http.grpc_code == static_cast<int>(GrpcCode::kInvalidArgument)) return core::KvStatus::kInvalid;
  }
  return http.verdict == Verdict::kNotApplied ? core::KvStatus::kUnavailable : core::KvStatus::kTimeout;
}

core::KvTxnResult InterpretKvTxn(const HttpResult& http, const core::KvTxn& txn) {
  core::KvTxnResult result;
  if (http.verdict != Verdict::kResult) {
    result.status = KvStatusForFailure(http);
    return result;
  }
  std::optional<core::KvTxnResult> parsed = ParseKvTxn(http.body, txn);
  if (!parsed) {
    // The txn ran but its answer is unreadable: whether it applied is unknown.
    result.status = core::KvStatus::kTimeout;
    return result;
  }
  return std::move(*parsed);
}

const HttpResult& EtcdKvClient::Noted(const HttpResult& http, std::string_view what) {
  if (http.cause == FailureCause::kPermissionDenied) {
    http_.ReportError(DescribeFailure(http_, http, "use", std::string(what)));
  }
  return http;
}

core::KvTxnResult EtcdKvClient::Txn(const core::KvTxn& txn, core::Nanos timeout) {
  return InterpretKvTxn(Noted(http_.Post("/v3/kv/txn", KvTxnBody(txn), timeout), "the keys of a KV txn"), txn);
}

namespace {

// Reads the watch stream until its first news: events (kOk), a compacted
// start (kCompacted), or the watch's end. The created message and progress
// notifications are not news.
struct WatchReader {
  core::KvWatchResult result;  // kTimeout until news arrives
  std::int64_t header_revision = 0;
  std::string cancel_reason;  // a cancel for another reason than compaction

  bool Read(std::string_view line) {
    std::optional<WatchMessage> message = ParseWatchMessage(line);
    if (!message) return true;  // unreadable: no news we can trust (kTimeout)
    if (message->revision > 0) header_revision = message->revision;
    if (message->error_code >= 0) {
      // The stream failed (a watch applies nothing, so only "refused" or not).
      result.status = VerdictForCode(message->error_code) == Verdict::kNotApplied ? core::KvStatus::kUnavailable
                                                                                 : core::KvStatus::kTimeout;
      return true;
    }
    if (message->compact_revision > 0) {
      // etcd's watchable store answers a start below the compaction with
      // CompactRevision and cancels the watch (mvcc/watchable_store.go,
      // v3rpc/watch.go sendLoop): read again and watch from there.
      result.status = core::KvStatus::kCompacted;
      result.compact_revision = message->compact_revision;
      result.revision = header_revision;
      return true;
    }
    if (message->canceled) {
      // Cancelled for another reason (a permission the user lacks:
      // cancel_reason): this watch will never report anything.
      result.status = core::KvStatus::kUnavailable;
      cancel_reason = message->cancel_reason.empty() ? "no reason given" : message->cancel_reason;
      return true;
    }
    if (message->events.empty()) return false;
    // etcd sends one revision's events in one response (KV API guarantees,
    // "Atomicity"), and an unsynced watcher's backlog up to the store's
    // revision at once (watchable_store.go syncWatchers).
    result.status = core::KvStatus::kOk;
    result.events = std::move(message->events);
    result.revision = header_revision;
    return true;
  }
};

}  // namespace

core::KvWatchResult EtcdKvClient::Watch(const core::KvKeys& keys, std::int64_t start_revision,
                                        core::Nanos timeout) {
  WatchReader reader;
  const StreamSink sink = [&reader](std::string_view line) { return reader.Read(line); };
  const HttpResult http =
      Noted(http_.Post("/v3/watch", WatchCreateBody(keys, start_revision), timeout, &sink), "the keys of a watch");
  if (http.verdict != Verdict::kResult) {
    core::KvWatchResult failed;
    failed.status = http.verdict == Verdict::kNotApplied ? core::KvStatus::kUnavailable : core::KvStatus::kTimeout;
    return failed;
  }
  if (!reader.cancel_reason.empty()) {
    // A misconfiguration (a role without read on the keys) the operator must hear of.
    http_.ReportError("etcd cancelled a watch on \"" + keys.key + "\": " + reader.cancel_reason);
  }
  return std::move(reader.result);  // a stream that closed without news: kTimeout
}

core::KvLeaseResult EtcdKvClient::LeaseGrant(core::Nanos ttl, core::Nanos timeout) {
  const HttpResult http = Noted(http_.Post("/v3/lease/grant", LeaseGrantBody(ttl), timeout), "leases");
  core::KvLeaseResult result;
  if (http.verdict != Verdict::kResult) {
    result.status = KvStatusForFailure(http);
    return result;
  }
  // A grant's answer that cannot be read leaves a lease of unknown id: unknown.
  return ParseLeaseGrant(http.body).value_or(result);
}

core::KvLeaseResult EtcdKvClient::LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) {
  // The gateway serves the bidirectional stream for one request: etcd
  // answers it and, the request body being over, ends the stream. The first
  // message is all we wait for.
  const StreamSink first = [](std::string_view) { return true; };
  const HttpResult http =
      Noted(http_.Post("/v3/lease/keepalive", LeaseIdBody(lease), timeout, &first), "leases");
  core::KvLeaseResult result;
  result.id = lease;
  if (http.verdict != Verdict::kResult) {
    result.status = KvStatusForFailure(http);
    return result;
  }
  std::optional<KeepAliveAnswer> answer = ParseLeaseKeepAlive(http.body, lease);
  if (!answer) return result;  // unreadable: kTimeout
  if (answer->result) return *answer->result;
  result.status = VerdictForCode(answer->error_code) == Verdict::kNotApplied ? core::KvStatus::kUnavailable
                                                                             : core::KvStatus::kTimeout;
  if (answer->error_code == static_cast<int>(GrpcCode::kNotFound)) result.status = core::KvStatus::kLeaseNotFound;
  return result;
}

core::KvLeaseResult EtcdKvClient::LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) {
  const HttpResult http = Noted(http_.Post("/v3/lease/revoke", LeaseIdBody(lease), timeout), "leases");
  core::KvLeaseResult result;
  result.id = lease;
  if (http.verdict != Verdict::kResult) {
    result.status = KvStatusForFailure(http);
    return result;
  }
  return ParseLeaseRevoke(http.body, lease).value_or(result);
}

}  // namespace leasesim::etcd
