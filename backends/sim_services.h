#pragma once
// The coordination store and the ledger as simulated servers, each on its
// own host of the simulated world. A request arrives over the network, waits
// a service time, is applied atomically, and its reply goes back over the
// network (where it may be lost: the client then times out with the effect
// already applied).

#include <cstdint>
#include <functional>
#include <string>

#include "backends/fenced_ledger.h"
#include "backends/lease_store.h"
#include "backends/sim_observer.h"
#include "sim/network.h"
#include "sim/prng.h"
#include "sim/world.h"

namespace leasesim::backends {

struct StoreRequest {
  std::int64_t op = 0;  // the observer's id
  StoreOpKind kind = StoreOpKind::kRead;
  std::string key;
  std::int64_t expected_version = 0;
  core::LeaseRecord record;
};

// A single linearizable store server: every operation applies at one instant.
class SimStoreServer {
 public:
  SimStoreServer(sim::World& world, sim::HostId host, sim::Prng prng, sim::LatencyModel service,
                 SimObserver& observer);

  // Runs on the store host when a request arrives; `reply` runs on the store
  // host with the result once the request has been applied.
  void Handle(const StoreRequest& request, std::function<void(const core::StoreResult&)> reply);
  sim::HostId host() const { return host_; }
  const LeaseStore& state() const { return store_; }

 private:
  sim::World& world_;
  sim::HostId host_;
  sim::Prng prng_;
  sim::LatencyModel service_;
  SimObserver& observer_;
  LeaseStore store_;
  std::int64_t next_applied_seq_ = 0;
};

struct LedgerRequest {
  std::int64_t write = 0;  // the observer's id; -1 for a query
  core::SettlementBatch batch;
};

// The fenced ledger as a server.
class SimLedgerServer {
 public:
  SimLedgerServer(sim::World& world, sim::HostId host, sim::Prng prng, sim::LatencyModel service,
                  SimObserver& observer, LedgerOptions options);

  void Handle(const LedgerRequest& request, std::function<void(const core::LedgerResult&)> reply);
  sim::HostId host() const { return host_; }
  const FencedLedger& state() const { return ledger_; }

 private:
  sim::World& world_;
  sim::HostId host_;
  sim::Prng prng_;
  sim::LatencyModel service_;
  SimObserver& observer_;
  FencedLedger ledger_;
};

}  // namespace leasesim::backends
