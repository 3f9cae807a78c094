#pragma once
// The fenced, idempotent ledger kept in etcd itself: the core's LedgerClient.
// A batch commits as one etcd txn that compares the stored fence (the
// highest token accepted) and the idempotency key, and applies the whole
// batch or nothing. Layout under the ledger prefix P:
//   P fence                 highest token accepted, 20-digit zero-padded
//                           (etcd compares values byte-wise)
//   P keys/<idem key>       {token, window, write_id}: the key was applied
//   P windows/<window>      {token, holder, write_id}: window applied (padded)
//   P batches/<write_id>    the batch: {token, window, holder, key, items}
// The fence check comes first, as in backends/fenced_ledger: a deposed
// writer learns it is deposed even when its window was already settled.
// LedgerOptions reproduce the bug zoo's ledger mistakes for live runs.

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/etcd/etcd_http.h"
#include "core/env.h"

namespace leasesim::etcd {

struct EtcdLedgerOptions {
  std::string prefix = "leasesim/ledger/settlement/";  // ends with '/'
  bool check_fence = true;        // false only in the no-fencing variant
  bool check_idempotency = true;  // false only in the no-idempotency variant
  std::string writer;             // tag of write ids: "<writer>/<n>" (e.g. the node identity)
};

// One applied batch as the ledger holds it (for audits and live-run merges).
struct AppliedBatch {
  std::string write_id;
  std::string holder;
  std::string idempotency_key;
  std::int64_t token = 0;
  std::int64_t window = 0;
  std::int64_t items = 0;
  std::int64_t revision = 0;  // etcd mod_revision: the ledger's application order
};

// core::LedgerClient on etcd: a batch commits as one fenced, idempotent txn.
class EtcdLedgerClient final : public core::LedgerClient {
 public:
  EtcdLedgerClient(EtcdHttp& http, EtcdLedgerOptions options);

  core::LedgerResult Commit(const core::SettlementBatch& batch, core::Nanos timeout) override;
  core::LedgerResult LastAppliedWindow(core::Nanos timeout) override;

  // Commit with a caller-chosen write id (unique per attempt), so the
  // attempt can be found in the ledger afterwards.
  core::LedgerResult CommitWithId(const core::SettlementBatch& batch, const std::string& write_id,
                                  core::Nanos timeout);
  // A fresh write id: "<writer>/<n>".
  std::string NextWriteId();

  // Every applied batch, in application order. false on failure.
  bool ListApplied(core::Nanos timeout, std::vector<AppliedBatch>& out);

 private:
  // Creates the fence key (token 0) if absent. false when etcd did not say.
  bool EnsureFence(core::Nanos timeout);
  // http_.Post, reporting a missing permission on the prefix.
  HttpResult Post(const std::string& path, const std::string& body, core::Nanos timeout);

  EtcdHttp& http_;
  EtcdLedgerOptions options_;
  std::atomic<bool> fence_ready_{false};
  std::atomic<std::int64_t> next_write_{1};
};

// The txn body of a commit (exposed for tests).
std::string CommitBody(const EtcdLedgerOptions& options, const core::SettlementBatch& batch,
                       const std::string& write_id);
// The protocol result of a commit txn's answer (exposed for tests). Sets
// fence_missing when the compare failed only because the fence key is absent.
core::LedgerResult InterpretCommit(const HttpResult& http, const EtcdLedgerOptions& options,
                                   const core::SettlementBatch& batch, bool* fence_missing);

}  // namespace leasesim::etcd
