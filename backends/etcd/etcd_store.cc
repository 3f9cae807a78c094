#include "backends/etcd/etcd_store.h"

#include "backends/etcd/etcd_access.h"

namespace leasesim::etcd {

core::StoreResult InterpretRead(const HttpResult& http) {
  core::StoreResult result;
  if (http.verdict != Verdict::kResult) {
    // A read changes nothing; an unanswered one is still "unknown" to the
    // history, a refused one "unavailable".
    result.status = StoreStatusFor(http.verdict);
    return result;
  }
  std::optional<Response> response = ParseResponse(http.body, /*is_txn=*/false);
  if (!response || response->ranges.empty()) {
    result.status = core::StoreStatus::kUnavailable;  // unusable answer: nothing learned
    return result;
  }
  std::optional<core::VersionedRecord> record = ToVersionedRecord(response->ranges.front());
  if (!record) {
    result.status = core::StoreStatus::kUnavailable;
    return result;
  }
  result.status = core::StoreStatus::kOk;
  result.current = std::move(*record);
  return result;
}

core::StoreResult InterpretWriteTxn(const HttpResult& http) {
  core::StoreResult result;
  if (http.verdict != Verdict::kResult) {
    result.status = StoreStatusFor(http.verdict);
    return result;
  }
  std::optional<Response> response = ParseResponse(http.body, /*is_txn=*/true);
  if (!response || response->ranges.empty()) {
    // The txn ran but its answer is unreadable: whether it applied is unknown.
    result.status = core::StoreStatus::kTimeout;
    return result;
  }
  std::optional<core::VersionedRecord> record = ToVersionedRecord(response->ranges.back());
  if (!record) {
    result.status = response->succeeded ? core::StoreStatus::kTimeout : core::StoreStatus::kConflict;
    return result;
  }
  result.status = response->succeeded ? core::StoreStatus::kOk : core::StoreStatus::kConflict;
  result.current = std::move(*record);
  return result;
}

const HttpResult& EtcdStoreClient::Noted(const HttpResult& http, std::string_view key) {
  // A missing permission is a misconfiguration the operator must hear of.
  if (http.cause == FailureCause::kPermissionDenied) {
    http_.ReportError(DescribeFailure(http_, http, "use", "the lease key \"" + std::string(key) + "\""));
  }
  return http;
}

core::StoreResult EtcdStoreClient::Read(std::string_view key, core::Nanos timeout) {
  return InterpretRead(Noted(http_.Post("/v3/kv/range", RangeBody(key), timeout), key));
}

core::StoreResult EtcdStoreClient::Create(std::string_view key, const core::LeaseRecord& record,
                                          core::Nanos timeout) {
  return InterpretWriteTxn(Noted(http_.Post("/v3/kv/txn", CreateBody(key, record), timeout), key));
}

core::StoreResult EtcdStoreClient::CompareAndSet(std::string_view key, std::int64_t expected_version,
                                                 const core::LeaseRecord& record, core::Nanos timeout) {
  return InterpretWriteTxn(Noted(http_.Post("/v3/kv/txn", CasBody(key, expected_version, record), timeout), key));
}

}  // namespace leasesim::etcd
