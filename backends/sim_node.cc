#include "backends/sim_node.h"

#include "backends/replicated_store.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <memory>
#include <utility>

namespace leasesim::backends {
namespace {

// Where a blocked caller waits for its reply: on the caller's own stack. A
// reply writes here only while the wait is open (World::WaitOpen), so a late
// reply, or one to a crashed process, touches nothing.
template <typename Result>
struct PendingReply {
  bool done = false;
  Result result;
};

// A request in flight with, once applied, its result: one allocation that
// every message of the exchange shares (the request out, the reply back, and
// a duplicate of either).
template <typename Request, typename Result>
struct Exchange {
  Request request;
  Result result;
};

// Sends the exchange's request to `server` and its reply back to `me`, which
// waits on `token`. Each closure fits its message or event without an
// allocation.
template <typename Server, typename Request, typename Result>
void SendExchange(sim::Network& network, Server& server, sim::HostId me, std::uint64_t incarnation,
                  std::shared_ptr<Exchange<Request, Result>> exchange, PendingReply<Result>* pending,
                  sim::WaitToken token) {
  auto request_message = [network = &network, server = &server, me, incarnation, exchange = std::move(exchange),
                          pending, token] {
    auto reply = [network, server_host = server->host(), me, incarnation, exchange, pending,
                  token](Result&& result) mutable {
      exchange->result = std::move(result);
      auto reply_message = [world = &network->world(), exchange = std::move(exchange), pending, token] {
        if (!world->WaitOpen(token)) return;  // the caller gave up (timed out) or died
        pending->done = true;
        pending->result = exchange->result;
        world->Signal(token);
      };
      static_assert(sim::Message::kFits<decltype(reply_message)>);
      network->Send(server_host, me, incarnation, std::move(reply_message));
    };
    server->Handle(std::shared_ptr<const Request>(exchange, &exchange->request), std::move(reply));
  };
  static_assert(sim::Message::kFits<decltype(request_message)>);
  network.Send(me, server.host(), sim::kAnyIncarnation, std::move(request_message));
}

// How a process uses the lease store: etcd's defaults, but for the
// stale-read store, whose clients read serializably (and so may be answered
// by a member that lags) and watch nothing (a lagging member cannot keep a
// watch's promise of order), polling with reads instead.
core::KvRecordStoreOptions RecordStoreOptionsFor(const SimKvServer& store) {
  const bool lagging = store.config().stale_read_ppm > 0;
  return core::KvRecordStoreOptions{.watch = !lagging, .serializable_reads = lagging};
}

}  // namespace

std::string NodeIdentity(int node, std::uint64_t incarnation) {
  return "n" + std::to_string(node) + "#" + std::to_string(incarnation);
}

SimNodeEnv::SimNodeEnv(sim::World& world, sim::Network& network, sim::HostId host, int node,
                       std::string identity, SimKvServer& store, SimLedgerServer& ledger,
                       SimObserver& observer)
    : world_(world),
      network_(network),
      host_(host),
      incarnation_(world.incarnation(host)),
      node_(node),
      identity_(std::move(identity)),
      ledger_(ledger),
      observer_(observer),
      prng_(world.MakePrng("node/" + std::to_string(node) + "/" + std::to_string(world.incarnation(host)))) {
  record_kv_ = std::make_unique<SimKvClient>(world_, network_, host_, node_, identity_, store, store.observer(),
                                             /*stream_watch=*/true);
  record_store_ = std::make_unique<core::KvRecordStore>(*record_kv_, RecordStoreOptionsFor(store));
}

SimNodeEnv::~SimNodeEnv() = default;

// The protocol polls the replicated store (no watch), as it always has:
// the replicated store answers a watch as a long poll of its leader, which
// the designs on Env::kv use.
void SimNodeEnv::UseReplicatedStore(ReplicatedStore& store, KvObserver& observer) {
  record_store_.reset();
  record_kv_ = std::make_unique<ReplicatedKvClient>(store, host_, node_, identity_, observer);
  record_store_ = std::make_unique<core::KvRecordStore>(*record_kv_, core::KvRecordStoreOptions{.watch = false});
}

core::Nanos SimNodeEnv::BootNow() { return world_.BootNow(host_); }

core::Nanos SimNodeEnv::WallNow() {
  const core::Nanos now = world_.clock(host_).Wall(world_.now());
  wall_seen_ = std::max(wall_seen_, now);
  return now;
}

void SimNodeEnv::SleepUntil(core::Nanos monotonic_deadline) {
  assert(world_.in_fiber());
  world_.SleepUntilLocal(monotonic_deadline);
}

void SimNodeEnv::SleepInSteps(core::Nanos period, const std::function<bool()>& done) {
  assert(world_.in_fiber());
  world_.SleepInStepsLocal(period, done);
}

void SimNodeEnv::Spawn(std::string_view name, std::function<void()> task) {
  (void)name;
  world_.Spawn(host_, std::move(task));
}

core::KvClient& SimNodeEnv::kv(int server) {
  assert(server >= 0);
  assert(server < kv_servers());
  return *kv_clients_[static_cast<std::size_t>(server)];
}

void SimNodeEnv::UseKvServers(const std::vector<SimKvServer*>& servers) {
  assert(kv_clients_.empty());
  kv_clients_.reserve(servers.size());
  for (SimKvServer* server : servers) {
    assert(server != nullptr);
    kv_clients_.push_back(
        std::make_unique<SimKvClient>(world_, network_, host_, node_, identity_, *server, server->observer()));
  }
}

void SimNodeEnv::UseReplicatedKv(ReplicatedStore& store, KvObserver& observer) {
  assert(kv_clients_.empty());
  kv_clients_.push_back(std::make_unique<ReplicatedKvClient>(store, host_, node_, identity_, observer));
}

void SimNodeEnv::Sometimes(core::Probe probe) { observer_.ProbeReached(node_, probe); }

void SimNodeEnv::AtFaultPoint(core::FaultPoint point) {
  world_.trace().Record(world_.now(), host_, "fault_point", static_cast<std::int64_t>(point));
  // On the boot clock, as the lease deadline is: a suspend counts as a stall.
  if (point == core::FaultPoint::kBeforeLedgerWrite) last_write_point_ = BootNow();
  if (!observer_.FaultPointReached(node_, point)) return;
  // The host was just paused, suspended or marked to crash: yield, so that
  // nothing more runs until the fault is over (or the crash unwinds us).
  world_.SleepUntilLocal(MonotonicNow());
}

core::LedgerResult SimNodeEnv::CallLedger(LedgerRequest request, core::Nanos timeout) {
  assert(world_.in_fiber());
  assert(timeout > 0);
  auto exchange = std::make_shared<Exchange<LedgerRequest, core::LedgerResult>>();
  exchange->request = std::move(request);
  PendingReply<core::LedgerResult> pending;
  const sim::WaitToken token = world_.PrepareWait();
  SendExchange(network_, ledger_, host_, incarnation_, std::move(exchange), &pending, token);
  world_.Wait(token, MonotonicNow() + timeout);
  if (pending.done) return pending.result;
  return core::LedgerResult{};  // kTimeout
}

core::LedgerResult SimNodeEnv::Commit(const core::SettlementBatch& batch, core::Nanos timeout) {
  // A design that claims no deadline (0: client-go's IsLeader(), etcd's
  // Session.Done(), Curator's hasLeadership()) is never late by its own
  // clock; its writes are judged by its beliefs alone
  // (checker/lease_checks.cc: Uncovered).
  const core::Nanos late = batch.lease_deadline == 0 ? -1 : BootNow() - batch.lease_deadline;
  const core::Nanos stalled = last_write_point_ < 0 ? 0 : BootNow() - last_write_point_;
  last_write_point_ = -1;
  const std::int64_t write = observer_.LedgerSent(
      node_, identity_, batch,
      LedgerSendFacts{.late_ns = late < 0 ? 0 : std::max<core::Nanos>(late, 1), .stalled_ns = stalled, .wall_seen_ns = wall_seen_});
  return CallLedger(LedgerRequest{.write = write, .batch = batch}, timeout);
}

core::LedgerResult SimNodeEnv::LastAppliedWindow(core::Nanos timeout) {
  return CallLedger(LedgerRequest{.write = -1}, timeout);
}

namespace {

template <std::size_t... Kind>
std::array<sim::TraceKind, sizeof...(Kind)> EventTraceKinds(std::index_sequence<Kind...>) {
  return {sim::TraceKind(core::EventKindName(static_cast<core::EventKind>(Kind)))...};
}

}  // namespace

void SimNodeEnv::Emit(const core::LeaseEvent& event) {
  // Each kind's name hashed once per process, not at every event (the
  // names are core's, not literals here).
  static const std::array<sim::TraceKind, core::kProtocolEventKindCount> kKinds =
      EventTraceKinds(std::make_index_sequence<core::kProtocolEventKindCount>{});
  const auto index = static_cast<std::size_t>(event.kind);
  assert(index < core::kEventKindCount);
  // Observations of the callbacks and metrics are recorded, not traced: a
  // trace holds what the protocol did, and stays as it was without them.
  if (index < kKinds.size()) world_.trace().Record(world_.now(), host_, kKinds[index], event.term, event.version);
  observer_.ProtocolEvent(node_, event);
}

SimNodeProcess::SimNodeProcess(sim::World& world, sim::Network& network, sim::HostId host,
                               const SimNodeConfig& config, SimKvServer& store,
                               SimLedgerServer& ledger, SimObserver& observer) {
  const std::string identity = NodeIdentity(config.node, world.incarnation(host));
  env_ = std::make_unique<SimNodeEnv>(world, network, host, config.node, identity, store, ledger, observer);
  if (config.replicated_store != nullptr) {
    assert(config.replicated_observer != nullptr);
    env_->UseReplicatedStore(*config.replicated_store, *config.replicated_observer);
    if (config.replicated_kv) env_->UseReplicatedKv(*config.replicated_store, *config.replicated_observer);
  }
  if (!config.kv_servers.empty()) env_->UseKvServers(config.kv_servers);
  core::NodeSetup setup = config.setup;
  setup.identity = identity;
  setup.node_name = "n" + std::to_string(config.node);
  assert(config.protocol != nullptr);
  node_ = config.protocol->build(*env_, setup);
  assert(node_ != nullptr);
  node_->Start();
}

void SimNodeProcess::BeginShutdown(std::string successor, std::function<void()> on_released) {
  env_->Spawn("shutdown", [this, successor = std::move(successor), on_released = std::move(on_released)] {
    node_->Shutdown(successor);
    on_released();
  });
}

}  // namespace leasesim::backends
