#pragma once
// One replica process in the simulated world: the core's Env implemented
// over sim/ (its host's clocks, fibers, the simulated network to the store
// and ledger servers), and the protocol's node running on it (whatever the
// registered protocol builds: core/protocol.h). A crash destroys the whole
// object: memory lost, as in a real process.
//
// The lease store is a KV store (core/kv_store.h, served by SimKvServer on
// the store host, or by the replicated store); core's record store
// (StoreClient) is core::KvRecordStore over this process's client of it.

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backends/sim_kv_server.h"
#include "backends/sim_observer.h"
#include "backends/sim_services.h"
#include "base/prng.h"
#include "core/env.h"
#include "core/kv_record_store.h"
#include "core/protocol.h"
#include "sim/network.h"
#include "sim/world.h"

namespace leasesim::backends {

class ReplicatedStore;

struct SimNodeConfig {
  int node = 0;               // 1-based node number
  core::NodeSetup setup;      // node name and identity filled in per incarnation
  // The protocol every incarnation runs (built through its factory); must
  // outlive every incarnation.
  const core::Protocol* protocol = nullptr;
  // When set, the lease store is this replicated store's KV store (each
  // call finds its leader) instead of the single store server; its calls
  // are reported to replicated_observer (required then).
  ReplicatedStore* replicated_store = nullptr;
  KvObserver* replicated_observer = nullptr;
  // The KV stores the world offers (core::Env::kv), in server order; each
  // incarnation gets its own client of each. Must outlive every incarnation.
  std::vector<SimKvServer*> kv_servers;
  // With replicated_store: the one KV store protocols are offered
  // (Env::kv(0)) is the replicated store's too; kv_servers is then empty.
  bool replicated_kv = false;
};

// The core's Env for one node incarnation.
class SimNodeEnv final : public core::Env, public core::LedgerClient, public core::EventSink {
 public:
  // `store`: the lease store's server; its observer records the calls.
  SimNodeEnv(sim::World& world, sim::Network& network, sim::HostId host, int node, std::string identity,
             SimKvServer& store, SimLedgerServer& ledger, SimObserver& observer);
  ~SimNodeEnv() override;

  // Env
  // Inline: the waits read it at every step.
  core::Nanos MonotonicNow() override { return world_.MonotonicNow(host_); }
  core::Nanos BootNow() override;
  core::Nanos WallNow() override;
  void SleepUntil(core::Nanos monotonic_deadline) override;
  void SleepInSteps(core::Nanos period, const std::function<bool()>& done) override;
  void Spawn(std::string_view name, std::function<void()> task) override;
  core::StoreClient& store() override { return *record_store_; }
  core::LedgerClient& ledger() override { return *this; }
  core::EventSink& events() override { return *this; }
  int kv_servers() const override { return static_cast<int>(kv_clients_.size()); }
  core::KvClient& kv(int server) override;
  std::uint64_t Random() override { return prng_.Next(); }
  void AtFaultPoint(core::FaultPoint point) override;
  void Sometimes(core::Probe probe) override;

  // LedgerClient
  core::LedgerResult Commit(const core::SettlementBatch& batch, core::Nanos timeout) override;
  core::LedgerResult LastAppliedWindow(core::Nanos timeout) override;

  // EventSink
  void Emit(const core::LeaseEvent& event) override;

  // The lease store is the replicated store's KV store from now on: core's
  // record store over this incarnation's client of it, its calls reported
  // to `observer`.
  void UseReplicatedStore(ReplicatedStore& store, KvObserver& observer);
  // This incarnation's clients of the KV stores (Env::kv), one per server.
  void UseKvServers(const std::vector<SimKvServer*>& servers);
  // This incarnation's client of the replicated store's KV store (Env::kv(0)).
  void UseReplicatedKv(ReplicatedStore& store, KvObserver& observer);

 private:
  core::LedgerResult CallLedger(LedgerRequest request, core::Nanos timeout);

  sim::World& world_;
  sim::Network& network_;
  sim::HostId host_;
  std::uint64_t incarnation_;
  int node_;
  std::string identity_;
  SimLedgerServer& ledger_;
  SimObserver& observer_;
  base::Prng prng_;
  // When (own monotonic clock) the job last reached the point before a
  // write; -1 when it has sent since.
  core::Nanos last_write_point_ = -1;
  // The latest wall-clock reading this incarnation took (what it knows of
  // the schedule), recorded with each write; below any reading until one.
  core::Nanos wall_seen_ = std::numeric_limits<core::Nanos>::min();
  // The lease store: this incarnation's KV client of it (its watch one
  // stream), and core's record store over that client.
  std::unique_ptr<core::KvClient> record_kv_;
  std::unique_ptr<core::StoreClient> record_store_;
  // Bound to this incarnation (a reply to a dead one is dropped, and only
  // its own waiting fiber reads what a reply brings).
  std::vector<std::unique_ptr<core::KvClient>> kv_clients_;
};

// The process state of a node incarnation: its Env and the protocol on top.
class SimNodeProcess final : public sim::ProcessState {
 public:
  SimNodeProcess(sim::World& world, sim::Network& network, sim::HostId host,
                 const SimNodeConfig& config, SimKvServer& store, SimLedgerServer& ledger,
                 SimObserver& observer);

  const core::ProtocolNode& node() const { return *node_; }
  core::ProtocolNode& node() { return *node_; }

  // Graceful shutdown on a task of its own: releases the lease (to the node
  // named `successor`, if any), then calls on_released (from that task).
  void BeginShutdown(std::string successor, std::function<void()> on_released);

 private:
  std::unique_ptr<SimNodeEnv> env_;
  std::unique_ptr<core::ProtocolNode> node_;
};

// The identity of a node incarnation: unique per incarnation, never a bare name.
std::string NodeIdentity(int node, std::uint64_t incarnation);

}  // namespace leasesim::backends
