#include "backends/sim_kv_server.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "backends/service_time.h"

namespace leasesim::backends {
namespace {

// A call in flight: the request, and the reply once it arrived back. Every
// message of the exchange (and a duplicate of either) shares it.
template <typename Request, typename Result>
struct KvExchange {
  Request request;
  Result result;
  bool done = false;  // the reply reached the caller while it waited
};

// Sends the exchange's request to the server; `handle` hands it over there
// with a reply function that sends the result back to `me`, which waits on
// `token`.
template <typename Request, typename Result, typename HandleFn>
void SendKvExchange(sim::Network& network, sim::HostId server_host, sim::HostId me, std::uint64_t incarnation,
                    std::shared_ptr<KvExchange<Request, Result>> exchange, sim::WaitToken token,
                    HandleFn handle) {
  auto request_message = [network = &network, server_host, me, incarnation, exchange = std::move(exchange), token,
                          handle] {
    handle(std::shared_ptr<const Request>(exchange, &exchange->request),
           [network, server_host, me, incarnation, exchange, token](Result&& result) mutable {
             auto reply_message = [world = &network->world(), exchange, token, result = std::move(result)] {
               if (!world->WaitOpen(token) || exchange->done) return;  // gave up, or a duplicate
               exchange->result = result;
               exchange->done = true;
               world->Signal(token);
             };
             network->Send(server_host, me, incarnation, std::move(reply_message));
           });
  };
  network.Send(me, server_host, sim::kAnyIncarnation, std::move(request_message));
}

using WatchExchange = KvExchange<KvWatchRequest, core::KvWatchResult>;

// Sends the exchange's watch to `server`; its answer signals `token` (the
// first answer counts, however often the one exchange was sent).
void SendWatch(sim::Network& network, SimKvServer& server, sim::HostId me, std::uint64_t incarnation,
               std::shared_ptr<WatchExchange> exchange, sim::WaitToken token) {
  SendKvExchange<KvWatchRequest, core::KvWatchResult>(
      network, server.host(), me, incarnation, std::move(exchange), token,
      [server = &server](std::shared_ptr<const KvWatchRequest> sent, auto reply) {
        server->Watch(std::move(sent), KvWatchReply(std::move(reply)));
      });
}

bool Changed(const KvReply& reply, std::int64_t revision_before) {
  return reply.txn.revision > revision_before || reply.lease.revision > revision_before;
}

}  // namespace

SimKvServer::SimKvServer(sim::World& world, sim::HostId host, base::Prng prng, KvServerConfig config,
                         KvObserver& observer)
    : world_(world), host_(host), prng_(prng), config_(config), observer_(observer), state_(config.state) {
  assert(config_.expiry_period > 0);
}

void SimKvServer::Start() {
  if (started_) {
    // The watches' replies were the dead incarnation's: their clients wait
    // them out and watch again.
    watchers_.clear();
    state_.RestartDeadlines(TtlNow());
    world_.trace().Record(world_.now(), host_, "kv_restart", static_cast<std::int64_t>(state_.lease_count()));
  }
  started_ = true;
  ArmExpiryLoop(world_.incarnation(host_));
}

void SimKvServer::SetOutage(StoreOutage outage) {
  outage_ = outage;
  world_.trace().Record(world_.now(), host_, "kv_outage", static_cast<std::int64_t>(outage));
}

sim::Nanos SimKvServer::TtlNow() const {
  return config_.ttl_clock == KvTtlClock::kMonotonic ? world_.MonotonicNow(host_) : world_.WallNow(host_);
}

void SimKvServer::ArmExpiryLoop(std::uint64_t incarnation) {
  // On the monotonic clock, whichever clock judges: the loop is a ticker
  // (Go's time.After, Redis's serverCron), and a paused host fires it late.
  const sim::Nanos next = world_.MonotonicNow(host_) + config_.expiry_period;
  world_.AtLocal(host_, incarnation, next, sim::Callback([this, incarnation] {
                   ExpireDue();
                   ArmExpiryLoop(incarnation);
                 }));
}

void SimKvServer::ExpireDue() {
  const std::vector<KvExpiry> expired = state_.ExpireDue(TtlNow());
  for (const KvExpiry& expiry : expired) ReportExpiry(expiry);
}

void SimKvServer::ReportExpiry(const KvExpiry& expiry) {
  observer_.KvLeaseExpired(expiry);
  world_.trace().Record(world_.now(), host_, "kv_lease_expired", expiry.lease, expiry.revision);
  if (expiry.revision != 0) NotifyWatchers();
}

void SimKvServer::Handle(std::shared_ptr<const KvRequest> request, KvServerReply reply) {
  const auto seen = std::lower_bound(seen_.begin(), seen_.end(), request->op);
  if (seen != seen_.end() && *seen == request->op) {
    world_.trace().Record(world_.now(), host_, "kv_duplicate_dropped", request->op);
    return;
  }
  seen_.insert(seen, request->op);
  if (outage_ == StoreOutage::kBlackhole) {
    world_.trace().Record(world_.now(), host_, "kv_blackhole", request->op);
    return;
  }
  if (outage_ == StoreOutage::kUnavailable) {
    world_.trace().Record(world_.now(), host_, "kv_reject", request->op);
    KvReply refused;
    refused.txn.status = core::KvStatus::kUnavailable;
    refused.lease.status = core::KvStatus::kUnavailable;
    reply(std::move(refused));
    return;
  }
  const sim::Nanos apply_at = world_.now() + DrawService(prng_, config_.service) + extra_latency_;
  world_.AtOnHost(apply_at, host_, world_.incarnation(host_),
                  [this, request = std::move(request), reply = std::move(reply)]() mutable {
                    const std::int64_t before = state_.revision();
                    KvReply result = Apply(*request);
                    observer_.KvApplied(request->op, result);
                    world_.trace().Record(world_.now(), host_, "kv_apply", request->op, state_.revision());
                    if (Changed(result, before)) NotifyWatchers();
                    reply(std::move(result));
                  });
}

KvReply SimKvServer::Apply(const KvRequest& request) {
  if (config_.expire_on_access) ExpireDue();
  if (request.kind != KvRequest::Kind::kTxn) return ApplyLease(request);
  KvReply reply;
  reply.txn = state_.Txn(request.txn);
  return reply;
}

KvReply SimKvServer::ApplyLease(const KvRequest& request) {
  KvReply reply;
  switch (request.kind) {
    case KvRequest::Kind::kLeaseGrant: reply.lease = state_.LeaseGrant(NegotiatedTtl(request.ttl), TtlNow()); break;
    case KvRequest::Kind::kLeaseKeepAlive:
      // etcd's Renew of an expired lease waits for its revocation.
      if (const auto expiry = state_.ExpireIfDue(request.lease, TtlNow())) ReportExpiry(*expiry);
      reply.lease = state_.LeaseKeepAlive(request.lease, TtlNow());
      break;
    case KvRequest::Kind::kLeaseRevoke: reply.lease = state_.LeaseRevoke(request.lease); break;
    case KvRequest::Kind::kTxn: assert(false); break;
  }
  return reply;
}

sim::Nanos SimKvServer::NegotiatedTtl(sim::Nanos asked) const {
  if (config_.lease_ttl_min > 0) asked = std::max(asked, config_.lease_ttl_min);
  if (config_.lease_ttl_max > 0) asked = std::min(asked, config_.lease_ttl_max);
  return asked;
}

void SimKvServer::Watch(std::shared_ptr<const KvWatchRequest> request, KvWatchReply reply) {
  if (outage_ == StoreOutage::kBlackhole) return;
  if (outage_ == StoreOutage::kUnavailable) {
    core::KvWatchResult refused;
    refused.status = core::KvStatus::kUnavailable;
    reply(std::move(refused));
    return;
  }
  const sim::Nanos apply_at = world_.now() + DrawService(prng_, config_.service) + extra_latency_;
  world_.AtOnHost(apply_at, host_, world_.incarnation(host_),
                  [this, request = std::move(request), reply = std::move(reply)]() mutable {
                    ApplyWatch(*request, std::move(reply));
                  });
}

void SimKvServer::ApplyWatch(const KvWatchRequest& request, KvWatchReply reply) {
  std::erase_if(watchers_, [&](const Watcher& w) { return w.client == request.client; });  // replaced
  const std::int64_t start = request.start_revision == 0 ? state_.revision() + 1 : request.start_revision;
  core::KvWatchResult now = state_.EventsFrom(request.keys, start);
  world_.trace().Record(world_.now(), host_, "kv_watch", request.client, start);
  if (now.status != core::KvStatus::kOk || !now.events.empty()) {
    reply(std::move(now));
    return;
  }
  assert(watchers_.size() < kWatchersMax);
  watchers_.push_back(Watcher{request.client, request.keys, start, std::move(reply)});
}

void SimKvServer::NotifyWatchers() {
  // Answered ones leave the list; the rest keep their order.
  std::vector<Watcher> waiting;
  waiting.reserve(watchers_.size());
  std::vector<Watcher> answering = std::move(watchers_);
  watchers_.clear();
  for (Watcher& watcher : answering) {
    core::KvWatchResult news = state_.EventsFrom(watcher.keys, watcher.start_revision);
    if (news.status == core::KvStatus::kOk && news.events.empty()) {
      waiting.push_back(std::move(watcher));
      continue;
    }
    world_.trace().Record(world_.now(), host_, "kv_watch_answer", watcher.client, news.revision);
    watcher.reply(std::move(news));
  }
  watchers_ = std::move(waiting);
}

SimKvClient::SimKvClient(sim::World& world, sim::Network& network, sim::HostId host, int node, SimKvServer& server,
                         KvObserver& observer)
    : world_(world),
      network_(network),
      host_(host),
      incarnation_(world.incarnation(host)),
      node_(node),
      server_(server),
      observer_(observer) {}

KvReply SimKvClient::Call(KvRequest request, core::Nanos timeout) {
  assert(world_.in_fiber());
  assert(timeout > 0);
  request.op = observer_.KvInvoked(node_, request);
  const std::int64_t op = request.op;
  auto exchange = std::make_shared<KvExchange<KvRequest, KvReply>>();
  exchange->request = std::move(request);
  const sim::WaitToken token = world_.PrepareWait();
  SendKvExchange<KvRequest, KvReply>(
      network_, server_.host(), host_, incarnation_, exchange, token,
      [server = &server_](std::shared_ptr<const KvRequest> sent, auto reply) {
        server->Handle(std::move(sent), KvServerReply(std::move(reply)));
      });
  world_.Wait(token, world_.MonotonicNow(host_) + timeout);
  KvReply reply;  // kTimeout: outcome unknown
  if (exchange->done) reply = exchange->result;
  observer_.KvCompleted(op, reply);
  return reply;
}

core::KvTxnResult SimKvClient::Txn(const core::KvTxn& txn, core::Nanos timeout) {
  KvRequest request;
  request.kind = KvRequest::Kind::kTxn;
  request.txn = txn;
  return Call(std::move(request), timeout).txn;
}

core::KvLeaseResult SimKvClient::LeaseGrant(core::Nanos ttl, core::Nanos timeout) {
  assert(ttl > 0);
  KvRequest request;
  request.kind = KvRequest::Kind::kLeaseGrant;
  request.ttl = ttl;
  return Call(std::move(request), timeout).lease;
}

core::KvLeaseResult SimKvClient::LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) {
  KvRequest request;
  request.kind = KvRequest::Kind::kLeaseKeepAlive;
  request.lease = lease;
  return Call(std::move(request), timeout).lease;
}

core::KvLeaseResult SimKvClient::LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) {
  KvRequest request;
  request.kind = KvRequest::Kind::kLeaseRevoke;
  request.lease = lease;
  return Call(std::move(request), timeout).lease;
}

core::KvWatchResult SimKvClient::Watch(const core::KvKeys& keys, std::int64_t start_revision, core::Nanos timeout) {
  assert(world_.in_fiber());
  assert(timeout > 0);
  auto exchange = std::make_shared<WatchExchange>();
  exchange->request = KvWatchRequest{keys, start_revision, host_};
  const sim::WaitToken token = world_.PrepareWait();
  SendWatch(network_, server_, host_, incarnation_, exchange, token);
  world_.Wait(token, world_.MonotonicNow(host_) + timeout);
  core::KvWatchResult result;  // kTimeout: no news
  if (exchange->done) result = exchange->result;
  return result;
}

core::KvWatchResult SimKvClient::WatchWhile(const core::KvKeys& keys, std::int64_t start_revision,
                                            const std::function<core::Nanos()>& next_timeout,
                                            const std::function<bool()>& again) {
  assert(world_.in_fiber());
  const core::Nanos timeout = next_timeout();
  assert(timeout > 0);
  // One exchange for every watch of this wait: the same request each time
  // (the server keeps a client's newest), and the first answer ends it.
  auto exchange = std::make_shared<WatchExchange>();
  exchange->request = KvWatchRequest{keys, start_revision, host_};
  const sim::WaitToken token = world_.PrepareWait();
  // At each quiet timeout, in the scheduler: what the task would do next.
  const std::function<core::Nanos()> step = [&]() -> core::Nanos {
    if (!again()) return -1;
    const core::Nanos next = next_timeout();
    assert(next > 0);
    SendWatch(network_, server_, host_, incarnation_, exchange, token);
    return world_.MonotonicNow(host_) + next;
  };
  SendWatch(network_, server_, host_, incarnation_, exchange, token);
  world_.WaitStepping(token, world_.MonotonicNow(host_) + timeout, step);
  core::KvWatchResult result;  // kTimeout: no news
  if (exchange->done) result = exchange->result;
  return result;
}

}  // namespace leasesim::backends
