#pragma once
// The coordination store and the ledger as simulated servers, each on its
// own host of the simulated world. A request arrives over the network, waits
// a service time, is applied atomically, and its reply goes back over the
// network (where it may be lost: the client then times out with the effect
// already applied).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/fenced_ledger.h"
#include "backends/lease_store.h"
#include "backends/sim_observer.h"
#include "base/prng.h"
#include "sim/inline_function.h"
#include "sim/network.h"
#include "sim/world.h"

namespace leasesim::backends {

// How a server answers a request (on its own host, once applied), handing
// the result over. Small enough to ride inside the server's apply event
// without an allocation.
using StoreReply = sim::InlineFunction<void(core::StoreResult&&), 64>;

struct StoreRequest {
  std::int64_t op = 0;  // the observer's id
  StoreOpKind kind = StoreOpKind::kRead;
  std::string key;
  std::int64_t expected_version = 0;
  core::LeaseRecord record;
  sim::HostId client = -1;  // the sender: its own watch is not told of its write
};

// A watch on a record (StoreClient::WaitForChange): a stream, as etcd's
// watch is, answered at once with the record as it is (which confirms it)
// and then with every change past after_version. A client host has one
// watch: a newer registration replaces its older one.
struct WatchRequest {
  std::string key;
  std::int64_t after_version = 0;
  sim::HostId client = -1;
  // Whose read the answer is, in the history.
  int node = 0;
  std::string process;
};

// One answer of a watch (called once per answer): what a read returns, and
// the history's id of that read (-1 when the store refused the watch). The
// result is immutable and shared by every answer of one change (one
// allocation and one copy of the record per change, not per answer); the
// answer may keep it as long as it likes.
using WatchResult = std::shared_ptr<const core::StoreResult>;
using WatchReply = sim::InlineFunction<void(std::int64_t op, const WatchResult& result), 64>;

// How a store in an outage treats requests.
enum class StoreOutage {
  kNone,
  kUnavailable,  // rejects every request at once: definitely not applied
  kBlackhole,    // never answers: the client times out, outcome unknown
};

struct StoreServerConfig {
  sim::LatencyModel service;     // time from arrival to application
  // The stale-read variant: with this probability a read is answered from an
  // asynchronously replicated copy that lags by up to stale_lag_ns_max (like
  // a cache or a replica). 0 = a linearizable store.
  std::uint32_t stale_read_ppm = 0;
  sim::Nanos stale_lag_ns_max = 0;
};

// The coordination store as one server. Without stale reads every operation
// applies at one instant between its arrival and its reply: linearizable.
class SimStoreServer {
 public:
  SimStoreServer(sim::World& world, sim::HostId host, base::Prng prng, StoreServerConfig config,
                 SimObserver& observer);

  void SetOutage(StoreOutage outage);
  // Added to every request's service time (a latency spike; a slow disk).
  void SetExtraLatency(sim::Nanos extra) { extra_latency_ = extra; }

  // Runs on the store host when a request arrives; `reply` runs on the store
  // host with the result once the request has been applied. The request is
  // shared, not copied: a duplicated message hands the same one over twice.
  void Handle(std::shared_ptr<const StoreRequest> request, StoreReply reply);
  // Runs on the store host when a watch arrives; once applied, `reply` runs
  // on the store host with the record as it is, then once per change past
  // the watch's version, except the client's own writes (it has their
  // replies). Each answer enters the history as a read invoked and applied
  // at that instant: the wait before it is no store call.
  void Watch(std::shared_ptr<const WatchRequest> request, WatchReply reply);
  sim::HostId host() const { return host_; }
  const LeaseStore& state() const { return store_; }
  // A lagging replica cannot keep a watch's promise of order: the stale-read
  // store has none.
  bool CanWatch() const { return config_.stale_read_ppm == 0; }

 private:
  core::StoreResult Apply(const StoreRequest& request);
  struct Watcher {
    sim::HostId client;
    int node;
    std::string process;
    std::string key;
    std::int64_t after_version;  // the newest version it was told of
    WatchReply reply;
  };
  // A watch at its apply time: replaces the client's older one and is
  // answered with the record as it is.
  void ApplyWatch(const WatchRequest& request, WatchReply reply);
  // `written` is a write's result (kOk).
  void NotifyWatchers(const std::string& key, const core::StoreResult& written, sim::HostId writer);
  void Answer(Watcher& watcher, const WatchResult& result);
  core::StoreResult StaleRead(const std::string& key, sim::Nanos as_of) const;

  static constexpr std::size_t kReplicaLogMax = 4096;

  sim::World& world_;
  sim::HostId host_;
  base::Prng prng_;
  StoreServerConfig config_;
  SimObserver& observer_;
  LeaseStore store_;
  std::int64_t next_applied_seq_ = 0;
  StoreOutage outage_ = StoreOutage::kNone;
  sim::Nanos extra_latency_ = 0;
  // Committed changes with their times, for the lagging replica.
  struct Change {
    sim::Nanos at;
    std::string key;
    core::VersionedRecord record;
  };
  std::vector<Change> replica_log_;
  // Request ids seen: a request the network delivered twice is applied once
  // (as TCP and request ids ensure in real clients).
  std::vector<bool> seen_requests_;  // by op id (dense, from 0)
  static constexpr std::size_t kWatchersMax = 4096;  // one per client host
  std::vector<Watcher> watchers_;
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
