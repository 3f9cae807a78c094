#pragma once
// The ledger as a simulated server on its own host of the simulated world,
// and what the store's servers share: the outage modes and the lease
// store's scenario knobs. A request arrives over the network, waits a service time, is
// applied atomically, and its reply goes back over the network (where it may
// be lost: the client then times out with the effect already applied). The
// lease store itself is a KV server (backends/sim_kv_server.h).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/fenced_ledger.h"
#include "backends/sim_observer.h"
#include "base/prng.h"
#include "sim/inline_function.h"
#include "sim/network.h"
#include "sim/world.h"

namespace leasesim::backends {

// How a store in an outage treats requests.
enum class StoreOutage {
  kNone,
  kUnavailable,  // rejects every request at once: definitely not applied
  kBlackhole,    // never answers: the client times out, outcome unknown
};

// The lease store as a scenario describes it (runner/run_world.cc makes it
// a KvServerConfig).
struct StoreServerConfig {
  sim::LatencyModel service;     // time from arrival to application
  // The stale-read variant: with this probability a read is answered from an
  // asynchronously replicated copy that lags by up to stale_lag_ns_max (like
  // a cache or a replica). 0 = a linearizable store.
  std::uint32_t stale_read_ppm = 0;
  sim::Nanos stale_lag_ns_max = 0;
};

using LedgerReply = sim::InlineFunction<void(core::LedgerResult&&), 64>;

struct LedgerRequest {
  std::int64_t write = 0;  // the observer's id; -1 for a query
  core::SettlementBatch batch;
};

// The fenced ledger as a server.
class SimLedgerServer {
 public:
  SimLedgerServer(sim::World& world, sim::HostId host, base::Prng prng, sim::LatencyModel service,
                  SimObserver& observer, LedgerOptions options);

  void Handle(std::shared_ptr<const LedgerRequest> request, LedgerReply reply);
  sim::HostId host() const { return host_; }
  const FencedLedger& state() const { return ledger_; }

 private:
  sim::World& world_;
  sim::HostId host_;
  base::Prng prng_;
  sim::LatencyModel service_;
  SimObserver& observer_;
  FencedLedger ledger_;
  std::vector<bool> seen_writes_;  // by write id (dense, from 0)
};

}  // namespace leasesim::backends
