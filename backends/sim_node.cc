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

}  // namespace

std::string NodeIdentity(int node, std::uint64_t incarnation) {
  return "n" + std::to_string(node) + "#" + std::to_string(incarnation);
}

SimNodeEnv::SimNodeEnv(sim::World& world, sim::Network& network, sim::HostId host, int node,
                       std::string identity, SimStoreServer& store, SimLedgerServer& ledger,
                       SimObserver& observer)
    : world_(world),
      network_(network),
      host_(host),
      incarnation_(world.incarnation(host)),
      node_(node),
      identity_(std::move(identity)),
      store_(store),
      ledger_(ledger),
      observer_(observer),
      prng_(world.MakePrng("node/" + std::to_string(node) + "/" + std::to_string(world.incarnation(host)))) {}

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
        std::make_unique<SimKvClient>(world_, network_, host_, node_, *server, server->observer()));
  }
}

void SimNodeEnv::UseReplicatedKv(ReplicatedStore& store, KvObserver& observer) {
  assert(kv_clients_.empty());
  kv_clients_.push_back(std::make_unique<ReplicatedKvClient>(store, host_, node_, observer));
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

core::StoreResult SimNodeEnv::CallStore(StoreRequest request, core::Nanos timeout) {
  assert(world_.in_fiber());
  assert(timeout > 0);
  request.op = observer_.StoreInvoked(node_, identity_, request.kind, request.key,
                                      request.expected_version, request.record);
  request.client = host_;
  const std::int64_t op = request.op;
  if (replicated_store_ != nullptr) {
    const core::StoreResult replicated = replicated_store_->Call(host_, std::move(request), timeout);
    observer_.StoreCompleted(op, replicated);
    return replicated;
  }
  auto exchange = std::make_shared<Exchange<StoreRequest, core::StoreResult>>();
  exchange->request = std::move(request);
  PendingReply<core::StoreResult> pending;
  const sim::WaitToken token = world_.PrepareWait();
  SendExchange(network_, store_, host_, incarnation_, std::move(exchange), &pending, token);
  world_.Wait(token, MonotonicNow() + timeout);
  core::StoreResult result;  // kTimeout: outcome unknown
  if (pending.done) result = std::move(pending.result);
  observer_.StoreCompleted(op, result);
  return result;
}

core::StoreResult SimNodeEnv::Read(std::string_view key, core::Nanos timeout) {
  return CallStore(StoreRequest{.kind = StoreOpKind::kRead, .key = std::string(key)}, timeout);
}

core::StoreResult SimNodeEnv::Create(std::string_view key, const core::LeaseRecord& record,
                                     core::Nanos timeout) {
  return CallStore(StoreRequest{.kind = StoreOpKind::kCreate, .key = std::string(key), .record = record},
                   timeout);
}

core::StoreResult SimNodeEnv::CompareAndSet(std::string_view key, std::int64_t expected_version,
                                            const core::LeaseRecord& record, core::Nanos timeout) {
  return CallStore(StoreRequest{.kind = StoreOpKind::kCas,
                                .key = std::string(key),
                                .expected_version = expected_version,
                                .record = record},
                   timeout);
}

bool SimNodeEnv::CanWatch() const { return replicated_store_ == nullptr && store_.CanWatch(); }

bool SimNodeEnv::TakeReport(std::int64_t known_version, core::StoreResult& report) {
  WatchState& watch = *watch_;
  if (!watch.held) return false;
  // The store refused the watch, or a newer record than the caller knows.
  const bool news = watch.held->status != core::StoreStatus::kOk || watch.held->current.version > known_version;
  if (news) report = *watch.held;  // (one copy, shared with the store's answer until now)
  watch.held.reset();
  return news;
}

void SimNodeEnv::StartWait(std::string_view key, std::int64_t known_version, sim::WaitToken token) {
  WatchState& watch = *watch_;
  // A registration still unanswered a wait later is taken as lost; a caller
  // that knows a version the stream never covered (its own write, a read
  // after reports were lost) registers again from there.
  if (!watch.registered || !watch.confirmed || known_version > watch.latest) SendWatch(key, known_version);
  watch.wake_above = known_version;
  watch.waiter = token;
  watch.waiting = true;
}

core::StoreResult SimNodeEnv::EndWait(std::int64_t known_version) {
  watch_->waiting = false;
  core::StoreResult report;  // kTimeout: no news, unless a report says more
  TakeReport(known_version, report);
  return report;
}

core::StoreResult SimNodeEnv::WaitForChange(std::string_view key, std::int64_t known_version, core::Nanos timeout) {
  assert(world_.in_fiber());
  assert(CanWatch());
  if (core::StoreResult report; TakeReport(known_version, report)) return report;
  const sim::WaitToken token = world_.PrepareWait();
  StartWait(key, known_version, token);
  world_.Wait(token, MonotonicNow() + timeout);
  return EndWait(known_version);
}

core::Nanos SimNodeEnv::AfterQuietTimeout(const QuietWait& wait) {
  // At a timeout, what the fiber would do next, done in the scheduler: end
  // the wait (EndWait: a report not newer than known_version is dropped),
  // and unless it brought news or again() declines, start the next one.
  WatchState& watch = *watch_;
  watch.waiting = false;
  if (watch.held) {
    const bool news =
        watch.held->status != core::StoreStatus::kOk || watch.held->current.version > wait.known_version;
    if (news) return -1;
    watch.held.reset();
  }
  if (!(*wait.again)()) return -1;
  const core::Nanos next = (*wait.next_timeout)();
  StartWait(wait.key, wait.known_version, wait.token);
  return MonotonicNow() + next;
}

core::StoreResult SimNodeEnv::WaitForChangeWhile(std::string_view key, std::int64_t known_version,
                                                 const std::function<core::Nanos()>& next_timeout,
                                                 const std::function<bool()>& again) {
  assert(world_.in_fiber());
  assert(CanWatch());
  const core::Nanos timeout = next_timeout();  // drawn first, as an argument of WaitForChange would be
  if (core::StoreResult report; TakeReport(known_version, report)) return report;
  const sim::WaitToken token = world_.PrepareWait();
  const QuietWait wait{key, known_version, &next_timeout, &again, token};
  const std::function<core::Nanos()> step = [this, &wait] { return AfterQuietTimeout(wait); };  // stored inline
  StartWait(key, known_version, token);
  world_.WaitStepping(token, MonotonicNow() + timeout, step);
  return EndWait(known_version);
}

void SimNodeEnv::ReportArrived(sim::World& world, WatchState& watch, WatchResult&& result) {
  const bool ok = result->status == core::StoreStatus::kOk;
  const std::int64_t version = result->current.version;
  if (!ok) {
    watch.registered = false;
    watch.held = std::move(result);
  } else {
    watch.confirmed = true;
    watch.latest = std::max(watch.latest, version);
    const bool newer =
        !watch.held || (watch.held->status == core::StoreStatus::kOk && version > watch.held->current.version);
    if (newer) watch.held = std::move(result);
  }
  if (!watch.waiting) return;
  if (ok && version <= watch.wake_above) return;
  world.Signal(watch.waiter);
}

void SimNodeEnv::SendWatch(std::string_view key, std::int64_t after_version) {
  WatchState& watch = *watch_;
  watch.registered = true;
  watch.confirmed = false;
  watch.latest = after_version;
  auto request = std::make_shared<const WatchRequest>(WatchRequest{
      .key = std::string(key), .after_version = after_version, .client = host_, .node = node_, .process = identity_});
  // The process may be gone when a report arrives: the report then reaches
  // only the shared state, and the network drops it for a dead incarnation.
  auto request_message = [network = &network_, server = &store_, me = host_, incarnation = incarnation_,
                          request = std::move(request), watch = watch_, observer = &observer_] {
    auto reply = [network, server_host = server->host(), me, incarnation, watch, observer](std::int64_t op,
                                                                                         const WatchResult& result) {
      // A duplicated message runs the one closure twice: the flag is the
      // message's own, so the report counts once.
      // (`result` copied into a non-const member, so that moving the message moves it.)
      auto report = [world = &network->world(), observer, watch, result = WatchResult(result), op,
                     delivered = false]() mutable {
        if (delivered) return;  // a duplicate of the report
        delivered = true;
        if (op >= 0) observer->StoreCompleted(op, *result);
        ReportArrived(*world, *watch, std::move(result));  // (a duplicate stops above: it is not needed again)
      };
      static_assert(sim::Message::kFits<decltype(report)>);
      network->Send(server_host, me, incarnation, std::move(report));
    };
    server->Watch(request, std::move(reply));
  };
  static_assert(sim::Message::kFits<decltype(request_message)>);
  network_.Send(host_, store_.host(), sim::kAnyIncarnation, std::move(request_message));
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
                               const SimNodeConfig& config, SimStoreServer& store,
                               SimLedgerServer& ledger, SimObserver& observer) {
  const std::string identity = NodeIdentity(config.node, world.incarnation(host));
  env_ = std::make_unique<SimNodeEnv>(world, network, host, config.node, identity, store, ledger, observer);
  env_->UseReplicatedStore(config.replicated_store);
  if (!config.kv_servers.empty()) env_->UseKvServers(config.kv_servers);
  if (config.replicated_kv != nullptr) {
    assert(config.replicated_store != nullptr);
    env_->UseReplicatedKv(*config.replicated_store, *config.replicated_kv);
  }
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
