#pragma once
// World assembly for one run: the hosts (nodes with their clocks, the store
// and ledger servers), the network, the history recorder, the store and
// ledger, the replicated store and regions when the scenario has them, and
// the node processes running the core. The lease store is a KV store
// (backends/sim_kv_server.h) on the "store" host, or the replicated store's
// when the scenario has one; core's record store is core::KvRecordStore
// over it, whose calls its recorder projects as the record store's history
// (runner/kv_recorder.h). Torn down in the right order (world last:
// destroying it unwinds fibers that reference the rest). Injection
// (runner/injector.h) and judgement (runner/judgement.h) work on it.

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/sim_kv_server.h"
#include "backends/sim_services.h"
#include "runner/kv_recorder.h"
#include "runner/recorder.h"
#include "runner/replicated_setup.h"
#include "runner/run.h"
#include "runner/scenario.h"
#include "sim/network.h"
#include "sim/time_sync.h"
#include "sim/world.h"

namespace leasesim::runner {

// Everything one run is made of, owned together and torn down in order.
class RunWorld {
 public:
  RunWorld(const Scenario& scenario, std::uint64_t seed, const RunOptions& options);
  ~RunWorld();
  RunWorld(const RunWorld&) = delete;
  RunWorld& operator=(const RunWorld&) = delete;

  // Boots the services, then every node.
  void Start();

  const Scenario& scenario() const { return scenario_; }
  sim::World& world() { return world_; }
  const sim::World& world() const { return world_; }
  sim::Network& network() { return *network_; }
  Recorder& recorder() { return *recorder_; }
  const Recorder& recorder() const { return *recorder_; }
  backends::SimKvServer& store() { return *store_; }
  ReplicatedRun* replicated() { return replicated_.get(); }
  const ReplicatedRun* replicated() const { return replicated_.get(); }
  sim::HostId HostOf(int node) const { return node_hosts_.at(static_cast<std::size_t>(node - 1)); }
  sim::HostId store_host() const { return store_host_; }
  sim::HostId ledger_host() const { return ledger_host_; }
  // The KV store hosts (scenario "kv"), in server order: servers, their
  // hosts ("kv" when one, else "kv1".."kvN") and their recorders.
  int kv_count() const { return static_cast<int>(kv_servers_.size()); }
  backends::SimKvServer& kv_server(int server) { return *kv_servers_.at(static_cast<std::size_t>(server)); }
  sim::HostId kv_host(int server) const { return kv_servers_.at(static_cast<std::size_t>(server))->host(); }
  // Every KV store's recorded operations, store after store (the recorders hold none after).
  std::vector<checker::KvStoreOp> TakeKvOps();
  // The node's lease timing: the scenario's, or its lease.by_node override.
  const core::TimingConfig& TimingOf(int node) const;

 private:
  void AddHosts();
  // The replicated store's recorder (its KV store is the lease store).
  void AddReplicatedRecorder();
  void AddKvStores();
  void StartNode(int node);

  const Scenario& scenario_;
  const core::Protocol protocol_;  // what every node runs (a copy: its nodes point at it)
  sim::World world_;
  std::vector<sim::HostId> node_hosts_;
  sim::HostId store_host_ = 0;
  sim::HostId ledger_host_ = 0;
  std::unique_ptr<sim::Network> network_;
  std::unique_ptr<Recorder> recorder_;
  std::unique_ptr<KvRecorder> store_recorder_;  // projects the lease store's calls into recorder_'s history
  std::unique_ptr<backends::SimKvServer> store_;
  std::unique_ptr<backends::SimLedgerServer> ledger_;
  std::unique_ptr<ReplicatedRun> replicated_;
  std::vector<std::unique_ptr<KvRecorder>> kv_recorders_;
  // The replicated store's recorder: in kv_recorders_ when protocols are
  // offered the store (kv.replicated), else in lease_store_recorder_.
  KvRecorder* replicated_recorder_ = nullptr;
  std::unique_ptr<KvRecorder> lease_store_recorder_;
  std::vector<std::unique_ptr<backends::SimKvServer>> kv_servers_;
  std::vector<std::unique_ptr<sim::TimeSync>> time_syncs_;  // the nodes' NTP clients  // regions and the replicated store, when the scenario has them
};

}  // namespace leasesim::runner
