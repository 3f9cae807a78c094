#pragma once
// The production coordination-store client: the core's StoreClient over
// etcd v3's JSON gateway. Reads are linearizable; create-if-absent is a txn
// on create_revision == 0; compare-and-set is a txn on the key's per-key
// version (see etcd_json.h for why version and not mod_revision). Outcomes:
//   kOk          the txn's success branch ran (the record read back in the
//                same txn is returned, with its new version)
//   kConflict    the compare failed: nothing written; the current record
//   kUnavailable the request certainly had no effect (every endpoint refused
//                or had no leader)
//   kTimeout     sent but no answer in time: it may or may not have applied
// A permission the etcd user lacks on the key is also reported through the
// HTTP layer's on_error, naming the key.

#include <string_view>

#include "backends/etcd/etcd_http.h"
#include "core/env.h"

namespace leasesim::etcd {

// core::StoreClient on etcd: linearizable reads, create and compare-and-set txns.
class EtcdStoreClient final : public core::StoreClient {
 public:
  explicit EtcdStoreClient(EtcdHttp& http) : http_(http) {}

  core::StoreResult Read(std::string_view key, core::Nanos timeout) override;
  core::StoreResult Create(std::string_view key, const core::LeaseRecord& record,
                           core::Nanos timeout) override;
  core::StoreResult CompareAndSet(std::string_view key, std::int64_t expected_version,
                                  const core::LeaseRecord& record, core::Nanos timeout) override;

 private:
  const HttpResult& Noted(const HttpResult& http, std::string_view key);
  EtcdHttp& http_;
};

// The protocol result of a txn answer whose success branch ends with a range
// of the key and whose failure branch is a range of it (exposed for tests).
core::StoreResult InterpretWriteTxn(const HttpResult& http);
core::StoreResult InterpretRead(const HttpResult& http);

}  // namespace leasesim::etcd
