#pragma once
// The KV store (backends/kv_state.h) as one simulated server on its own
// host, and core::KvClient for a task on a client host: a request crosses
// the network, waits a service time, applies at one instant, and its reply
// crosses back (or is lost: the client times out with the effect in place).
// The world's lease store is one (core's record store, KvRecordStore, over
// it: runner/run_world.cc), and so is each KV host a scenario offers.
//
// Watches come two ways. A stream (etcd's Watch RPC is a gRPC stream,
// api/etcdserverpb/rpc.proto: `rpc Watch(stream WatchRequest) returns
// (stream WatchResponse)`): a client registers once (WatchCreateRequest
// from a start revision), the server answers at once (the events it
// already has, or a `created` response without events), then pushes every
// later change on the keys, until the client registers again or the store
// restarts. Or a long poll, answered once (the Env::kv clients').
//
// TTLs run on the store host's own clock, which the model picks
// (KvTtlClock): that host's drift, slews, steps and pauses act on them. The
// store ends due leases from an expiry loop on its host (etcd's lessor
// revokes expired leases every 500 ms; Redis's active expiry runs 10 times
// a second; ZooKeeper's session tracker every tickTime), so a paused store
// host ends nothing while paused and, on resume, what is due. The loop
// runs only while the store has leases (a store without any, as the lease
// store core uses, costs no timer), on the phase it would have had had it
// ticked all along.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
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
  // The stale-read store: a serializable read (KvRequestOp::serializable)
  // is, with this chance, answered by a member that lags by up to
  // stale_lag_max (uniform): as etcd serves such a read from the local
  // state of whichever member the client reached. 0: every read current.
  // Only single-key ranges lag (the log of changes it replays keeps each
  // key's own history); a wider range is answered current.
  std::uint32_t stale_read_ppm = 0;
  sim::Nanos stale_lag_max = 0;
};

// One client request (a range is a txn holding one range). A guarded
// update (core::KvGuardedPut) travels in its own shape: the txn it stands
// for (core::KvGuardedPutTxn) is three lists and four copies of the key.
struct KvRequest {
  enum class Kind { kTxn, kLeaseGrant, kLeaseKeepAlive, kLeaseRevoke, kGuardedPut };
  std::int64_t op = 0;  // the observer's id
  Kind kind = Kind::kTxn;
  core::KvTxn txn;
  core::KvGuardedPut put;
  core::KvLeaseId lease = core::kNoLease;  // keep-alive, revoke
  sim::Nanos ttl = 0;                      // grant
  sim::HostId client = -1;  // the sender: its own watch stream is not told of its writes
};

// The answer: `txn` for a txn, `lease` for the lease calls, `put` for a
// guarded update.
struct KvReply {
  core::KvTxnResult txn;
  core::KvLeaseResult lease;
  core::KvGuardedPutResult put;
};

// core::KvClient for a store that takes each call as one KvRequest (the
// simulated server's SimKvClient, the replicated store's
// ReplicatedKvClient): the calls' requests are built here, once; Call
// sends one and returns the store's answer (status kTimeout: unknown).
class KvRequestClient : public core::KvClient {
 public:
  core::KvTxnResult Txn(const core::KvTxn& txn, core::Nanos timeout) override { return TxnOwned(txn, timeout); }
  core::KvTxnResult TxnOwned(core::KvTxn txn, core::Nanos timeout) override;
  core::KvLeaseResult LeaseGrant(core::Nanos ttl, core::Nanos timeout) override;
  core::KvLeaseResult LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) override;
  core::KvLeaseResult LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) override;

 protected:
  virtual KvReply Call(KvRequest request, core::Nanos timeout) = 0;
};

struct KvStreamRequest;

// What the KV store reports, so a recorder can build the history the
// checker judges (checker/kv_store_model.h): client calls, and the changes
// the store makes on its own.
class KvObserver {
 public:
  virtual ~KvObserver() = default;
  // A client (node `node`, process incarnation `process`) sent a request;
  // returns an id for the later calls.
  virtual std::int64_t KvInvoked(int node, std::string_view process, const KvRequest& request) = 0;
  // The store applied it (now, in this order), with what it answered: a
  // recorder learns a timed-out grant's lease id or a txn's revision here.
  virtual void KvApplied(std::int64_t op, const KvReply& reply) = 0;
  // The client learned the outcome (status kTimeout: unknown).
  virtual void KvCompleted(std::int64_t op, const KvReply& reply) = 0;
  // The store ended a lease whose TTL ran out on its clock: a store-side
  // operation, applied now.
  virtual void KvLeaseExpired(const KvExpiry& expiry) = 0;
  // As KvApplied and KvLeaseExpired, from a store that numbers what it
  // applies itself rather than reporting it in order (the replicated store:
  // a log entry at index i is i · 2^20, a read answered at applied index k
  // is k · 2^20 + 1, + 2, ..., reported once its answer arrives): `place`
  // orders the op among the store's others, gaps allowed.
  virtual void KvAppliedAt(std::int64_t op, const KvReply& reply, std::int64_t place) {
    (void)place;
    KvApplied(op, reply);
  }
  virtual void KvLeaseExpiredAt(const KvExpiry& expiry, std::int64_t place) {
    (void)place;
    KvLeaseExpired(expiry);
  }
  // Whether the answers on this stream are reported (KvStreamAnswered; an
  // unreported one has id -1): asked once, when the store applies the
  // stream's registration, so an observer judges the stream's keys once
  // rather than at every answer.
  virtual bool ReportsStream(const KvStreamRequest& stream) {
    (void)stream;
    return true;
  }
  // The store answered a watch stream (KvStreamRequest): with events, or
  // with none (the registration's `created` answer). `current` is the
  // watched key's entry now (null when absent, or for a range). Returns an
  // id for KvStreamDelivered, -1 when the answer is not recorded.
  virtual std::int64_t KvStreamAnswered(const KvStreamRequest& stream, const core::KvWatchResult& answer,
                                        const core::KvEntry* current) {
    (void)stream;
    (void)answer;
    (void)current;
    return -1;
  }
  // The answer `op` reached its client.
  virtual void KvStreamDelivered(std::int64_t op) { (void)op; }
};

using KvServerReply = sim::InlineFunction<void(KvReply&&), 64>;
using KvWatchReply = sim::InlineFunction<void(core::KvWatchResult&&), 64>;

// A watch as it crosses the network (KvClient::Watch).
struct KvWatchRequest {
  core::KvKeys keys;
  std::int64_t start_revision = 0;
  sim::HostId client = -1;
};

// A watch stream's registration (etcd's WatchCreateRequest): events on
// `keys` from start_revision on. A client host has one stream; a newer
// registration replaces it (as a cancel and a create would).
struct KvStreamRequest {
  core::KvKeys keys;
  std::int64_t start_revision = 0;
  sim::HostId client = -1;
  // Whose stream, for the history.
  int node = 0;
  std::string process;
};

// One answer on a stream, immutable and shared by every stream told of the
// same change (one allocation per change, not per answer). The observer's
// id (-1: none) comes with it.
using KvStreamAnswer = core::KvWatchAnswer;
using KvStreamReply = sim::InlineFunction<void(std::int64_t op, const KvStreamAnswer& answer), 64>;

// The KV store as one server on its own simulated host.
class SimKvServer {
 public:
  SimKvServer(sim::World& world, sim::HostId host, base::Prng prng, KvServerConfig config, KvObserver& observer);

  // Boots the store on the host's running incarnation (its expiry loop, when
  // it has leases); call at every boot of the host. A store that crashed
  // keeps its keys and leases (etcd's are on disk) but not its watches, and
  // restarts every TTL from now (etcd's lessor Promote).
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
  // Runs on the store host when a stream registration arrives: once
  // applied, `reply` runs with the events from its start (none: etcd's
  // `created` answer), then once per later change on its keys, except the
  // client's own writes (it has their replies: etcd would send them, and
  // the client would find nothing new in them; not sending keeps the
  // stream's cost where the protocol's needs are). A start the store no
  // longer keeps is answered kCompacted and the stream ends (etcd cancels
  // it with its compact_revision). An unavailable store refuses it at once.
  void OpenStream(std::shared_ptr<const KvStreamRequest> request, KvStreamReply reply);

  sim::HostId host() const { return host_; }
  const KvState& state() const { return state_; }
  const KvServerConfig& config() const { return config_; }
  // Streams registered now (one per client host at most).
  std::size_t streams() const { return streams_.size(); }
  // Whether the expiry loop has a tick pending.
  bool expiry_loop_armed() const { return loop_armed_; }
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
  // A registered stream: told of every change from `next` on.
  struct Stream {
    std::shared_ptr<const KvStreamRequest> request;
    std::int64_t next;
    KvStreamReply reply;
    // Streams on equal keys have the same id (their keys compared once, at
    // registration, not at every change).
    std::int64_t keys_id;
    bool reported;  // KvObserver::ReportsStream
  };
  KvReply Apply(const KvRequest& request);
  KvReply ApplyLease(const KvRequest& request);
  core::KvTxnResult ApplyTxn(const core::KvTxn& txn);
  sim::Nanos NegotiatedTtl(sim::Nanos asked) const;
  void ExpireDue();
  void ReportExpiry(const KvExpiry& expiry);
  // The loop's next tick, if none is pending and the store has leases.
  void ArmExpiryLoopIfNeeded();
  void ExpiryTick(std::uint64_t incarnation);
  void ApplyWatch(const KvWatchRequest& request, KvWatchReply reply);
  void ApplyStream(std::shared_ptr<const KvStreamRequest> request, KvStreamReply reply);
  // `current`: the stream's key's entry now (null: absent, or a range).
  void AnswerStream(Stream& stream, const KvStreamAnswer& answer, const core::KvEntry* current);
  const core::KvEntry* CurrentOf(const core::KvKeys& keys) const;
  // CurrentOf(keys) read off an answer with every event on `keys` up to now.
  static const core::KvEntry* NewestEntryOf(const core::KvKeys& keys, const core::KvWatchResult& news);
  // A stream answer holding state_.EventsFrom(keys, start_revision), in an
  // earlier answer's storage when nothing holds that one any more.
  KvStreamAnswer NewStreamAnswer(const core::KvKeys& keys, std::int64_t start_revision);
  // Tells every watch with news (long polls answered once, streams each
  // change since their last answer but `writer`'s own; -1: the store's).
  void NotifyWatchers(sim::HostId writer);
  void NotifyStreams(sim::HostId writer);
  // The stale-read store: remembers the changes since `before`, and
  // answers a serializable single-key range as of `as_of`.
  void LogChanges(std::int64_t before);
  core::KvTxnResult LaggingRange(const core::KvTxn& txn, sim::Nanos as_of);

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
  std::vector<Stream> streams_;
  std::int64_t next_keys_id_ = 0;
  // Stream answers made before, refilled once only this list holds one
  // (its events' vector and strings reused: a change's answer allocates
  // nothing). Answers are handed out const, so a holder never sees a
  // refill; a few suffice, as every answer is delivered or dropped long
  // before the next change or two.
  static constexpr std::size_t kAnswerPoolMax = 4;
  std::vector<std::shared_ptr<core::KvWatchResult>> answer_pool_;
  bool started_ = false;  // an earlier incarnation ran
  bool loop_armed_ = false;
  // The expiry loop's phase: a monotonic reading it ticked at (or booted).
  sim::Nanos loop_anchor_ = 0;
  // The stale-read store's log of changes (time applied, event), oldest first.
  static constexpr std::size_t kChangeLogMax = 4096;
  struct LoggedChange {
    sim::Nanos at;
    std::int64_t revision;
    core::KvWatchEvent event;
  };
  std::vector<LoggedChange> change_log_;
};

// core::KvClient for tasks (fibers) on `host`.
class SimKvClient final : public core::KvClient {
 public:
  // `process`: the incarnation's identity, for the history. With
  // `stream_watch`, Watch and WatchWhile use one watch stream (registered
  // again only when a wait asks for more than it covers); without, each
  // wait is a long poll.
  SimKvClient(sim::World& world, sim::Network& network, sim::HostId host, int node, std::string process,
              SimKvServer& server, KvObserver& observer, bool stream_watch = false);

  core::KvTxnResult Txn(const core::KvTxn& txn, core::Nanos timeout) override;
  core::KvTxnResult TxnOwned(core::KvTxn txn, core::Nanos timeout) override;
  // Sent and applied in its own shape (KvRequest::Kind::kGuardedPut,
  // KvState::GuardedPut): no generic txn is built.
  core::KvGuardedPutResult GuardedPut(core::KvGuardedPut put, core::Nanos timeout) override;
  core::KvLeaseResult LeaseGrant(core::Nanos ttl, core::Nanos timeout) override;
  core::KvLeaseResult LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) override;
  core::KvLeaseResult LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) override;
  core::KvWatchResult Watch(const core::KvKeys& keys, std::int64_t start_revision, core::Nanos timeout) override;
  // Each quiet timeout's next watch is sent from the scheduler, the fiber
  // still parked (World::WaitStepping): a quiet wait costs no task switch.
  core::KvWatchResult WatchWhile(const core::KvKeys& keys, std::int64_t start_revision,
                                 const std::function<core::Nanos()>& next_timeout,
                                 const std::function<bool()>& again) override;
  // On the stream, the answer that brought the news as the store sent it
  // (shared with every other client told of that change) when it tells all
  // the caller asked for, as it usually does.
  core::KvWatchAnswer WatchWhileShared(const core::KvKeys& keys, std::int64_t start_revision,
                                       const std::function<core::Nanos()>& next_timeout,
                                       const std::function<bool()>& again, core::Nanos& last_timeout) override;

 private:
  // The client's end of its watch stream: shared with the answers in
  // flight, which may arrive after the client is gone (touching only this).
  struct StreamState {
    bool registered = false;  // a registration was sent and not refused
    bool confirmed = false;   // ... and the store has answered it since
    core::KvKeys keys;
    std::int64_t covered = -1;  // the stream has told every event up to this revision
    std::vector<KvStreamAnswer> held;  // answers not yet taken, oldest first (or one refusal)
    std::int64_t wake_from = 0;  // a waiter wakes for an event at or after this revision
    sim::WaitToken waiter{};
    bool waiting = false;
    std::uint64_t registrations = 0;  // SendStream's count: `keys` changes only there
  };
  // A WatchWhile on the stream in progress (on the waiting fiber's stack).
  struct QuietWait {
    const core::KvKeys* keys;
    std::int64_t start_revision;
    const std::function<core::Nanos()>* next_timeout;
    const std::function<bool()>* again;
    core::Nanos* last_timeout;  // each timeout drawn
    sim::WaitToken token;
    // The stream's registrations when the wait began: while unchanged, the
    // stream's keys are still *keys (compared, or set, by the first StartWait).
    std::uint64_t registrations;
  };
  // A call in flight: its request, built where it stays until the store
  // applied it, and the reply (defined in the .cc).
  struct CallExchange;
  static std::shared_ptr<CallExchange> NewCall(KvRequest::Kind kind);
  // Sends the call's request (reported to the observer first) and waits up
  // to `timeout`: true when the reply came (in the exchange), false on a
  // timeout.
  bool Call(const std::shared_ptr<CallExchange>& call, core::Nanos timeout);
  core::KvWatchResult StreamWatch(const core::KvKeys& keys, std::int64_t start_revision, core::Nanos timeout);
  core::KvWatchAnswer StreamWatchWhile(const core::KvKeys& keys, std::int64_t start_revision,
                                       const std::function<core::Nanos()>& next_timeout,
                                       const std::function<bool()>& again, core::Nanos& last_timeout);
  void SendStream(const core::KvKeys& keys, std::int64_t start_revision);
  // A wait for events from start_revision begins (registering the stream
  // again if it does not cover them); the waiter is `token`. `same_keys`:
  // the caller knows the stream's keys are `keys` (no comparison needed).
  // Inlined: a quiet wait starts one at every poll.
  [[gnu::always_inline]] inline void StartWait(const core::KvKeys& keys, std::int64_t start_revision,
                                               sim::WaitToken token, bool same_keys = false);
  // Its step at a quiet timeout: the next deadline, or -1 to resume the fiber.
  core::Nanos AfterQuietTimeout(const QuietWait& wait);
  // Takes what is held (nothing is held after): the events from
  // start_revision on (or the refusal) when that is news, else null.
  KvStreamAnswer TakeNews(std::int64_t start_revision);
  static void AnswerArrived(sim::World& world, StreamState& stream, KvStreamAnswer&& answer);

  sim::World& world_;
  sim::Network& network_;
  sim::HostId host_;
  std::uint64_t incarnation_;
  int node_;
  std::string process_;
  SimKvServer& server_;
  KvObserver& observer_;
  bool stream_watch_;
  std::shared_ptr<StreamState> stream_ = std::make_shared<StreamState>();
  // A wait's answer when nothing came (kTimeout), shared by every such wait.
  KvStreamAnswer no_news_ = std::make_shared<const core::KvWatchResult>();
};

}  // namespace leasesim::backends
