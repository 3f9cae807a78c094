#pragma once
// The KV store (backends/kv_state.h) as one simulated server on its own
// host, and core::KvClient for a task on a client host. As SimStoreServer:
// a request crosses the network, waits a service time, applies at one
// instant, and its reply crosses back (or is lost: the client times out
// with the effect in place); the same outage and latency knobs.
//
// TTLs run on the store host's own clock, which the model picks
// (KvTtlClock): that host's drift, slews, steps and pauses act on them. The
// store ends due leases from an expiry loop on its host (etcd's lessor
// revokes expired leases every 500 ms; Redis's active expiry runs 10 times
// a second; ZooKeeper's session tracker every tickTime), so a paused store
// host ends nothing while paused and, on resume, what is due.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/kv_state.h"
#include "backends/sim_services.h"
#include "core/kv_store.h"
#include "sim/inline_function.h"
#include "sim/network.h"
#include "base/prng.h"
#include "sim/world.h"

namespace leasesim::backends {

// The simulated store: its service time and which real store it plays.
struct KvServerConfig {
  sim::LatencyModel service;  // time from arrival to application
  KvTtlClock ttl_clock = KvTtlClock::kMonotonic;
  // The expiry loop's period on the store host's monotonic clock.
  sim::Nanos expiry_period = sim::Millis(500);
  // Redis's passive expiry: every request first ends what is due, so no
  // reply ever shows a key past its TTL. etcd has none: a key outlives its
  // lease until the loop revokes it (a keep-alive of a due lease is refused
  // either way, as etcd's Renew waits for the revocation).
  bool expire_on_access = false;
  // The TTLs a grant may have; a TTL asked outside is granted at the nearer
  // bound, which the reply carries (0: no bound). ZooKeeper negotiates a
  // session's timeout into [minSessionTimeout, maxSessionTimeout], by default
  // 2 and 20 tickTimes (ZooKeeperServer.processConnectRequest).
  sim::Nanos lease_ttl_min = 0;
  sim::Nanos lease_ttl_max = 0;
  KvStateConfig state;
};

// One client request (a range is a txn holding one range).
struct KvRequest {
  enum class Kind { kTxn, kLeaseGrant, kLeaseKeepAlive, kLeaseRevoke };
  std::int64_t op = 0;  // the observer's id
  Kind kind = Kind::kTxn;
  core::KvTxn txn;
  core::KvLeaseId lease = core::kNoLease;  // keep-alive, revoke
  sim::Nanos ttl = 0;                      // grant
};

// The answer: `txn` for a txn, `lease` for the lease calls.
struct KvReply {
  core::KvTxnResult txn;
  core::KvLeaseResult lease;
};

// What the KV store reports, so a recorder can build the history the
// checker judges (checker/kv_store_model.h): client calls, and the changes
// the store makes on its own.
class KvObserver {
 public:
  virtual ~KvObserver() = default;
  // A client sent a request; returns an id for the later calls.
  virtual std::int64_t KvInvoked(int node, const KvRequest& request) = 0;
  // The store applied it (now, in this order), with what it answered: a
  // recorder learns a timed-out grant's lease id or a txn's revision here.
  virtual void KvApplied(std::int64_t op, const KvReply& reply) = 0;
  // The client learned the outcome (status kTimeout: unknown).
  virtual void KvCompleted(std::int64_t op, const KvReply& reply) = 0;
  // The store ended a lease whose TTL ran out on its clock: a store-side
  // operation, applied now.
  virtual void KvLeaseExpired(const KvExpiry& expiry) = 0;
};

using KvServerReply = sim::InlineFunction<void(KvReply&&), 64>;
using KvWatchReply = sim::InlineFunction<void(core::KvWatchResult&&), 64>;

// A watch as it crosses the network (KvClient::Watch).
struct KvWatchRequest {
  core::KvKeys keys;
  std::int64_t start_revision = 0;
  sim::HostId client = -1;
};

// The KV store as one server on its own simulated host.
class SimKvServer {
 public:
  SimKvServer(sim::World& world, sim::HostId host, base::Prng prng, KvServerConfig config, KvObserver& observer);

  // Starts the expiry loop on the host's running incarnation; call at every
  // boot of the host. A store that crashed keeps its keys and leases (etcd's
  // are on disk) but not its waiting watches, and restarts every TTL from
  // now (etcd's lessor Promote).
  void Start();
  void SetOutage(StoreOutage outage);
  void SetExtraLatency(sim::Nanos extra) { extra_latency_ = extra; }

  // Runs on the store host when a request arrives; `reply` runs there once
  // it applied. A request delivered twice is applied once.
  void Handle(std::shared_ptr<const KvRequest> request, KvServerReply reply);
  // Runs on the store host when a watch arrives: answered once it applied
  // if the store has news (or the start was compacted), else at the first
  // change on its keys. A client host has one waiting watch: a newer one
  // replaces it.
  void Watch(std::shared_ptr<const KvWatchRequest> request, KvWatchReply reply);

  sim::HostId host() const { return host_; }
  const KvState& state() const { return state_; }
  // Where this store's clients report their calls (the same observer).
  KvObserver& observer() const { return observer_; }
  // The judging clock's reading on the store host now.
  sim::Nanos TtlNow() const;

 private:
  // A watch waiting for news, answered once and then dropped.
  struct Watcher {
    sim::HostId client;
    core::KvKeys keys;
    std::int64_t start_revision;
    KvWatchReply reply;
  };
  KvReply Apply(const KvRequest& request);
  KvReply ApplyLease(const KvRequest& request);
  sim::Nanos NegotiatedTtl(sim::Nanos asked) const;
  void ExpireDue();
  void ReportExpiry(const KvExpiry& expiry);
  void ArmExpiryLoop(std::uint64_t incarnation);
  void ApplyWatch(const KvWatchRequest& request, KvWatchReply reply);
  // Answers every waiting watch that has news.
  void NotifyWatchers();

  static constexpr std::size_t kWatchersMax = 4096;

  sim::World& world_;
  sim::HostId host_;
  base::Prng prng_;
  KvServerConfig config_;
  KvObserver& observer_;
  KvState state_;
  StoreOutage outage_ = StoreOutage::kNone;
  sim::Nanos extra_latency_ = 0;
  std::vector<std::int64_t> seen_;  // request ids applied or pending, sorted
  std::vector<Watcher> watchers_;
  bool started_ = false;  // an earlier incarnation ran
};

// core::KvClient for tasks (fibers) on `host`.
class SimKvClient final : public core::KvClient {
 public:
  SimKvClient(sim::World& world, sim::Network& network, sim::HostId host, int node, SimKvServer& server,
              KvObserver& observer);

  core::KvTxnResult Txn(const core::KvTxn& txn, core::Nanos timeout) override;
  core::KvWatchResult Watch(const core::KvKeys& keys, std::int64_t start_revision, core::Nanos timeout) override;
  // Each quiet timeout's next watch is sent from the scheduler, the fiber
  // still parked (World::WaitStepping): a quiet wait costs no task switch.
  core::KvWatchResult WatchWhile(const core::KvKeys& keys, std::int64_t start_revision,
                                 const std::function<core::Nanos()>& next_timeout,
                                 const std::function<bool()>& again) override;
  core::KvLeaseResult LeaseGrant(core::Nanos ttl, core::Nanos timeout) override;
  core::KvLeaseResult LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) override;
  core::KvLeaseResult LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) override;

 private:
  KvReply Call(KvRequest request, core::Nanos timeout);

  sim::World& world_;
  sim::Network& network_;
  sim::HostId host_;
  std::uint64_t incarnation_;
  int node_;
  SimKvServer& server_;
  KvObserver& observer_;
};

}  // namespace leasesim::backends
