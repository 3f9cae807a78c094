#pragma once
// Records one simulated KV store's operations (backends/sim_kv_server.h's
// KvObserver reports) as the checker's history (checker::KvStoreOp): every
// client call with its true invoke and complete times (unknown when the
// call timed out or its process died first), and every lease the store
// ended on its own clock, as an operation of the store at that instant.
// The run's history carries them (History::kv_ops) for the KV store's
// linearizability check (checker/kv_store_model.h).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/sim_kv_server.h"
#include "checker/history.h"
#include "sim/world.h"

namespace leasesim::runner {

// One per KV store: its operations, tagged with the store's host name.
class KvRecorder final : public backends::KvObserver {
 public:
  KvRecorder(sim::World& world, std::string store);

  std::int64_t KvInvoked(int node, const backends::KvRequest& request) override;
  void KvApplied(std::int64_t op, const backends::KvReply& reply) override;
  void KvCompleted(std::int64_t op, const backends::KvReply& reply) override;
  void KvLeaseExpired(const backends::KvExpiry& expiry) override;

  const std::vector<checker::KvStoreOp>& ops() const { return ops_; }
  // Hands the operations over (the recorder holds none after). A grant
  // whose caller never learned its outcome (a timeout, or its process
  // died first) carries the id the store gave, when the store applied it.
  std::vector<checker::KvStoreOp> TakeOps();

 private:
  checker::KvStoreOp& NewOp();
  void RecordTxnReply(checker::KvStoreOp& op, const core::KvTxnResult& reply) const;

  sim::World& world_;
  std::string store_;
  std::vector<checker::KvStoreOp> ops_;
  // What the store answered when it applied each op (the store's own
  // knowledge): a timed-out grant's lease id is learned here.
  std::vector<std::optional<backends::KvReply>> applied_;
};

}  // namespace leasesim::runner
