#pragma once
// One replica process in the simulated world: the core's Env implemented
// over sim/ (its host's clocks, fibers, the simulated network to the store
// and ledger servers), and the protocol's node running on it (whatever the
// registered protocol builds: core/protocol.h). A crash destroys the whole
// object: memory lost, as in a real process.

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
  // When set, store calls go to this replicated store (finding its leader)
  // instead of the single store server.
  ReplicatedStore* replicated_store = nullptr;
  // The KV stores the world offers (core::Env::kv), in server order; each
  // incarnation gets its own client of each. Must outlive every incarnation.
  std::vector<SimKvServer*> kv_servers;
  // When set (with replicated_store), the one KV store is the replicated
  // store's, its calls reported here; kv_servers is then empty.
  KvObserver* replicated_kv = nullptr;
};

// The core's Env for one node incarnation.
class SimNodeEnv final : public core::Env,
                         public core::StoreClient,
                         public core::LedgerClient,
                         public core::EventSink {
 public:
  SimNodeEnv(sim::World& world, sim::Network& network, sim::HostId host, int node,
             std::string identity, SimStoreServer& store, SimLedgerServer& ledger,
             SimObserver& observer);

  // Env
  // Inline: the waits read it at every step.
  core::Nanos MonotonicNow() override { return world_.MonotonicNow(host_); }
  core::Nanos BootNow() override;
  core::Nanos WallNow() override;
  void SleepUntil(core::Nanos monotonic_deadline) override;
  void SleepInSteps(core::Nanos period, const std::function<bool()>& done) override;
  void Spawn(std::string_view name, std::function<void()> task) override;
  core::StoreClient& store() override { return *this; }
  core::LedgerClient& ledger() override { return *this; }
  core::EventSink& events() override { return *this; }
  int kv_servers() const override { return static_cast<int>(kv_clients_.size()); }
  core::KvClient& kv(int server) override;
  std::uint64_t Random() override { return prng_.Next(); }
  void AtFaultPoint(core::FaultPoint point) override;
  void Sometimes(core::Probe probe) override;

  // StoreClient
  core::StoreResult Read(std::string_view key, core::Nanos timeout) override;
  core::StoreResult Create(std::string_view key, const core::LeaseRecord& record,
                           core::Nanos timeout) override;
  core::StoreResult CompareAndSet(std::string_view key, std::int64_t expected_version,
                                  const core::LeaseRecord& record, core::Nanos timeout) override;
  bool CanWatch() const override;
  core::StoreResult WaitForChange(std::string_view key, std::int64_t known_version, core::Nanos timeout) override;
  // The waits after each quiet timeout start in the scheduler: the fiber
  // stays parked until a report comes or again() declines.
  core::StoreResult WaitForChangeWhile(std::string_view key, std::int64_t known_version,
                                       const std::function<core::Nanos()>& next_timeout,
                                       const std::function<bool()>& again) override;

  // LedgerClient
  core::LedgerResult Commit(const core::SettlementBatch& batch, core::Nanos timeout) override;
  core::LedgerResult LastAppliedWindow(core::Nanos timeout) override;

  // EventSink
  void Emit(const core::LeaseEvent& event) override;

  // Store calls go to the replicated store from now on (null: the single server).
  void UseReplicatedStore(ReplicatedStore* store) { replicated_store_ = store; }
  // This incarnation's clients of the KV stores (Env::kv), one per server.
  void UseKvServers(const std::vector<SimKvServer*>& servers);
  // This incarnation's client of the replicated store's KV store (Env::kv(0)).
  void UseReplicatedKv(ReplicatedStore& store, KvObserver& observer);

 private:
  core::StoreResult CallStore(StoreRequest request, core::Nanos timeout);
  // This process's watch stream at the store (one registration, reporting
  // every later change, as an etcd watch does): shared with the reports in
  // flight, which may arrive after the process is gone (then touching only
  // this).
  struct WatchState {
    bool registered = false;   // a registration was sent and not refused
    bool confirmed = false;    // ... and the store has answered it since
    std::int64_t latest = -1;  // the stream covers every version after this
    WatchResult held;  // the newest report not yet taken, or a refusal (shared with the store's answer)
    std::int64_t wake_above = 0;  // a waiter wakes for a version above this
    sim::WaitToken waiter{};
    bool waiting = false;
  };
  void SendWatch(std::string_view key, std::int64_t after_version);
  // A wait for a version above known_version begins (registering the watch
  // again if needed); the waiter is `token`.
  void StartWait(std::string_view key, std::int64_t known_version, sim::WaitToken token);
  // After a wait ended: the newest report, if it says more than the caller knows.
  core::StoreResult EndWait(std::int64_t known_version);
  // A WaitForChangeWhile in progress (on the waiting fiber's stack).
  struct QuietWait {
    std::string_view key;
    std::int64_t known_version;
    const std::function<core::Nanos()>* next_timeout;
    const std::function<bool()>* again;
    sim::WaitToken token;
  };
  // Its step at a quiet timeout: the next deadline, or -1 to resume the fiber.
  core::Nanos AfterQuietTimeout(const QuietWait& wait);
  // A report (or the store's refusal) reached this process's watch state
  // (which keeps it, when it is news).
  static void ReportArrived(sim::World& world, WatchState& watch, WatchResult&& result);
  // Takes the held report (the watch holds none after): true, and the
  // report moved into `report`, when it says more than known_version.
  bool TakeReport(std::int64_t known_version, core::StoreResult& report);
  core::LedgerResult CallLedger(LedgerRequest request, core::Nanos timeout);

  sim::World& world_;
  sim::Network& network_;
  sim::HostId host_;
  std::uint64_t incarnation_;
  int node_;
  std::string identity_;
  SimStoreServer& store_;
  SimLedgerServer& ledger_;
  SimObserver& observer_;
  base::Prng prng_;
  ReplicatedStore* replicated_store_ = nullptr;
  // When (own monotonic clock) the job last reached the point before a
  // write; -1 when it has sent since.
  core::Nanos last_write_point_ = -1;
  // The latest wall-clock reading this incarnation took (what it knows of
  // the schedule), recorded with each write; below any reading until one.
  core::Nanos wall_seen_ = std::numeric_limits<core::Nanos>::min();
  std::shared_ptr<WatchState> watch_ = std::make_shared<WatchState>();
  // Bound to this incarnation (a reply to a dead one is dropped, and only
  // its own waiting fiber reads what a reply brings).
  std::vector<std::unique_ptr<core::KvClient>> kv_clients_;
};

// The process state of a node incarnation: its Env and the protocol on top.
class SimNodeProcess final : public sim::ProcessState {
 public:
  SimNodeProcess(sim::World& world, sim::Network& network, sim::HostId host,
                 const SimNodeConfig& config, SimStoreServer& store, SimLedgerServer& ledger,
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
