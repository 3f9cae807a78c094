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
// `token`. A request the server answers once (a call: Handle applies a
// duplicate never) leaves its result in the exchange, and the reply message
// carries only the exchange (it fits the message, no allocation); a watch,
// which one exchange may send again and the server answer again, carries
// its own answer, so that the caller learns only what has reached it.
template <typename Request, typename Result, bool kAnsweredOnce, typename HandleFn>
void SendKvExchange(sim::Network& network, sim::HostId server_host, sim::HostId me, std::uint64_t incarnation,
                    std::shared_ptr<KvExchange<Request, Result>> exchange, sim::WaitToken token,
                    HandleFn handle) {
  auto request_message = [network = &network, server_host, me, incarnation, exchange = std::move(exchange), token,
                          handle] {
    handle(std::shared_ptr<const Request>(exchange, &exchange->request),
           [network, server_host, me, incarnation, exchange, token](Result&& result) mutable {
             if constexpr (kAnsweredOnce) {
               exchange->result = std::move(result);  // read by the caller only once this arrived
               auto reply_message = [world = &network->world(), exchange, token] {
                 if (!world->WaitOpen(token) || exchange->done) return;  // gave up, or a duplicate
                 exchange->done = true;
                 world->Signal(token);
               };
               static_assert(sim::Message::kFits<decltype(reply_message)>);
               network->Send(server_host, me, incarnation, std::move(reply_message));
             } else {
               auto reply_message = [world = &network->world(), exchange, token, result = std::move(result)] {
                 if (!world->WaitOpen(token) || exchange->done) return;  // gave up, or a duplicate
                 exchange->result = result;
                 exchange->done = true;
                 world->Signal(token);
               };
               network->Send(server_host, me, incarnation, std::move(reply_message));
             }
           });
  };
  network.Send(me, server_host, sim::kAnyIncarnation, std::move(request_message));
}

using WatchExchange = KvExchange<KvWatchRequest, core::KvWatchResult>;

// Sends the exchange's watch to `server`; its answer signals `token` (the
// first answer counts, however often the one exchange was sent).
void SendWatch(sim::Network& network, SimKvServer& server, sim::HostId me, std::uint64_t incarnation,
               std::shared_ptr<WatchExchange> exchange, sim::WaitToken token) {
  SendKvExchange<KvWatchRequest, core::KvWatchResult, /*kAnsweredOnce=*/false>(
      network, server.host(), me, incarnation, std::move(exchange), token,
      [server = &server](std::shared_ptr<const KvWatchRequest> sent, auto reply) {
        server->Watch(std::move(sent), KvWatchReply(std::move(reply)));
      });
}

// etcd v3_server.go isTxnSerializable: every op of the success branch a
// serializable range (and nothing to compare or fall back on).
bool IsSerializableRead(const core::KvTxn& txn) {
  if (!txn.compares.empty() || !txn.failure.empty() || txn.success.empty()) return false;
  return std::all_of(txn.success.begin(), txn.success.end(), [](const core::KvRequestOp& op) {
    return op.kind == core::KvRequestOp::Kind::kRange && op.serializable;
  });
}

bool Changed(const KvReply& reply, std::int64_t revision_before) {
  return reply.txn.revision > revision_before || reply.lease.revision > revision_before ||
         reply.put.revision > revision_before;
}

}  // namespace

SimKvServer::SimKvServer(sim::World& world, sim::HostId host, base::Prng prng, KvServerConfig config,
                         KvObserver& observer)
    : world_(world), host_(host), prng_(prng), config_(config), observer_(observer), state_(config.state) {
  assert(config_.expiry_period > 0);
  assert(config_.stale_read_ppm <= base::kPpmOne);
  assert(config_.stale_lag_max >= 0);
}

void SimKvServer::Start() {
  if (started_) {
    // The watches' replies were the dead incarnation's: their clients wait
    // them out and watch again.
    watchers_.clear();
    streams_.clear();
    state_.RestartDeadlines(TtlNow());
    world_.trace().Record(world_.now(), host_, "kv_restart", static_cast<std::int64_t>(state_.lease_count()));
  }
  started_ = true;
  loop_armed_ = false;  // a tick the dead incarnation had pending never runs
  loop_anchor_ = world_.MonotonicNow(host_);
  ArmExpiryLoopIfNeeded();
}

void SimKvServer::SetOutage(StoreOutage outage) {
  outage_ = outage;
  world_.trace().Record(world_.now(), host_, "kv_outage", static_cast<std::int64_t>(outage));
}

sim::Nanos SimKvServer::TtlNow() const {
  return config_.ttl_clock == KvTtlClock::kMonotonic ? world_.MonotonicNow(host_) : world_.WallNow(host_);
}

void SimKvServer::ArmExpiryLoopIfNeeded() {
  if (loop_armed_ || state_.lease_count() == 0) return;
  // On the monotonic clock, whichever clock judges: the loop is a ticker
  // (Go's time.After, Redis's serverCron), and a paused host fires it late.
  // Idle while the store had no lease (etcd's runLoop finds nothing to
  // revoke then), it resumes on the phase it would have had ticking.
  const sim::Nanos now = world_.MonotonicNow(host_);
  const sim::Nanos period = config_.expiry_period;
  assert(now >= loop_anchor_);
  const sim::Nanos next = loop_anchor_ + ((now - loop_anchor_) / period + 1) * period;
  assert(next > now);
  loop_armed_ = true;
  const std::uint64_t incarnation = world_.incarnation(host_);
  world_.AtLocal(host_, incarnation, next, sim::Callback([this, incarnation] { ExpiryTick(incarnation); }));
}

void SimKvServer::ExpiryTick(std::uint64_t incarnation) {
  assert(incarnation == world_.incarnation(host_));
  assert(loop_armed_);
  loop_armed_ = false;
  loop_anchor_ = world_.MonotonicNow(host_);
  ExpireDue();
  ArmExpiryLoopIfNeeded();
}

void SimKvServer::ExpireDue() {
  const std::vector<KvExpiry> expired = state_.ExpireDue(TtlNow());
  for (const KvExpiry& expiry : expired) ReportExpiry(expiry);
}

void SimKvServer::ReportExpiry(const KvExpiry& expiry) {
  observer_.KvLeaseExpired(expiry);
  world_.trace().Record(world_.now(), host_, "kv_lease_expired", expiry.lease, expiry.revision);
  if (expiry.revision == 0) return;
  LogChanges(expiry.revision - 1);
  NotifyWatchers(-1);
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
    refused.put.status = core::KvStatus::kUnavailable;
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
                    if (Changed(result, before)) {
                      LogChanges(before);
                      NotifyWatchers(request->client);
                    }
                    reply(std::move(result));
                  });
}

KvReply SimKvServer::Apply(const KvRequest& request) {
  if (config_.expire_on_access) ExpireDue();
  KvReply reply;
  switch (request.kind) {
    case KvRequest::Kind::kTxn: reply.txn = ApplyTxn(request.txn); break;
    // A guarded update is no serializable read: never answered stale.
    case KvRequest::Kind::kGuardedPut: reply.put = state_.GuardedPut(request.put); break;
    case KvRequest::Kind::kLeaseGrant:
    case KvRequest::Kind::kLeaseKeepAlive:
    case KvRequest::Kind::kLeaseRevoke:
      reply = ApplyLease(request);
      ArmExpiryLoopIfNeeded();  // a grant may have given the store its first lease
      break;
  }
  return reply;
}

core::KvTxnResult SimKvServer::ApplyTxn(const core::KvTxn& txn) {
  if (config_.stale_read_ppm > 0 && IsSerializableRead(txn) && prng_.ChancePpm(config_.stale_read_ppm)) {
    const sim::Nanos lag = prng_.UniformRange(0, config_.stale_lag_max);
    return LaggingRange(txn, world_.now() - lag);
  }
  return state_.Txn(txn);
}

void SimKvServer::LogChanges(std::int64_t before) {
  if (config_.stale_read_ppm == 0) return;
  // Each revision once (an expiry inside a request's apply logs its own).
  const std::int64_t logged = change_log_.empty() ? 0 : change_log_.back().revision;
  const std::int64_t from = std::max(before, logged) + 1;
  if (from > state_.revision()) return;
  const core::KvWatchResult changes = state_.EventsFrom(core::KvKeys{std::string(), std::string(1, '\0')}, from);
  assert(changes.status == core::KvStatus::kOk);
  for (const core::KvWatchEvent& event : changes.events) {
    if (change_log_.size() >= kChangeLogMax) change_log_.erase(change_log_.begin());
    change_log_.push_back(LoggedChange{world_.now(), event.kv.mod_revision, event});
  }
}

core::KvTxnResult SimKvServer::LaggingRange(const core::KvTxn& txn, sim::Nanos as_of) {
  const bool single_keys = std::all_of(txn.success.begin(), txn.success.end(),
                                       [](const core::KvRequestOp& op) { return op.keys.end.empty(); });
  if (!single_keys) return state_.Txn(txn);  // a range over keys: answered current
  core::KvTxnResult result;
  result.status = core::KvStatus::kOk;
  result.succeeded = true;
  result.revision = 1;  // etcd's first revision, before any change the lagging member had
  for (const LoggedChange& change : change_log_) {
    if (change.at <= as_of) result.revision = change.revision;
  }
  for (const core::KvRequestOp& range : txn.success) {
    core::KvResponseOp response;
    response.kind = core::KvRequestOp::Kind::kRange;
    // The newest change to the key the lagging member had by as_of.
    for (auto it = change_log_.rbegin(); it != change_log_.rend(); ++it) {
      if (it->at > as_of || it->event.kv.key != range.keys.key) continue;
      if (it->event.type == core::KvWatchEvent::Type::kPut) response.kvs.push_back(it->event.kv);
      break;
    }
    response.count = static_cast<std::int64_t>(response.kvs.size());
    result.responses.push_back(std::move(response));
  }
  return result;
}

KvReply SimKvServer::ApplyLease(const KvRequest& request) {
  KvReply reply;
  switch (request.kind) {
    case KvRequest::Kind::kLeaseGrant:
      reply.lease = state_.LeaseGrant(NegotiatedTtl(request.ttl), TtlNow());
      break;
    case KvRequest::Kind::kLeaseKeepAlive:
      // etcd's Renew of an expired lease waits for its revocation.
      if (const auto expiry = state_.ExpireIfDue(request.lease, TtlNow())) ReportExpiry(*expiry);
      reply.lease = state_.LeaseKeepAlive(request.lease, TtlNow());
      break;
    case KvRequest::Kind::kLeaseRevoke: reply.lease = state_.LeaseRevoke(request.lease); break;
    case KvRequest::Kind::kTxn:
    case KvRequest::Kind::kGuardedPut: assert(false); break;
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

void SimKvServer::NotifyWatchers(sim::HostId writer) {
  if (!streams_.empty()) NotifyStreams(writer);
  if (watchers_.empty()) return;
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

void SimKvServer::OpenStream(std::shared_ptr<const KvStreamRequest> request, KvStreamReply reply) {
  // A registration changes nothing: a duplicate of one simply replaces it.
  if (outage_ == StoreOutage::kBlackhole) {
    world_.trace().Record(world_.now(), host_, "kv_blackhole_stream", request->client);
    return;
  }
  if (outage_ == StoreOutage::kUnavailable) {
    world_.trace().Record(world_.now(), host_, "kv_reject_stream", request->client);
    core::KvWatchResult refused;
    refused.status = core::KvStatus::kUnavailable;
    reply(-1, std::make_shared<const core::KvWatchResult>(std::move(refused)));
    return;
  }
  const sim::Nanos apply_at = world_.now() + DrawService(prng_, config_.service) + extra_latency_;
  auto apply = [this, request = std::move(request), reply = std::move(reply)]() mutable {
    ApplyStream(std::move(request), std::move(reply));
  };
  static_assert(sim::Callback::kFits<decltype(apply)>, "applying a stream's registration must not allocate");
  world_.AtOnHost(apply_at, host_, world_.incarnation(host_), std::move(apply));
}

void SimKvServer::ApplyStream(std::shared_ptr<const KvStreamRequest> request, KvStreamReply reply) {
  const sim::HostId client = request->client;
  std::erase_if(streams_, [client](const Stream& stream) { return stream.request->client == client; });  // replaced
  const std::int64_t start = request->start_revision == 0 ? state_.revision() + 1 : request->start_revision;
  KvStreamAnswer first = NewStreamAnswer(request->keys, start);
  world_.trace().Record(world_.now(), host_, "kv_stream", client, start);
  if (first->status != core::KvStatus::kOk) {
    reply(-1, first);  // compacted: etcd cancels the watcher, with its compact_revision
    return;
  }
  assert(streams_.size() < kWatchersMax);
  const auto same_keys = std::find_if(streams_.begin(), streams_.end(),
                                      [&](const Stream& other) { return other.request->keys == request->keys; });
  const std::int64_t keys_id = same_keys != streams_.end() ? same_keys->keys_id : next_keys_id_++;
  const bool reported = observer_.ReportsStream(*request);
  streams_.push_back(Stream{std::move(request), state_.revision() + 1, std::move(reply), keys_id, reported});
  Stream& added = streams_.back();
  AnswerStream(added, first, CurrentOf(added.request->keys));  // the events it asked for, or `created`
}

const core::KvEntry* SimKvServer::CurrentOf(const core::KvKeys& keys) const {
  if (!keys.end.empty()) return nullptr;
  const auto found = state_.keys().find(keys.key);
  return found == state_.keys().end() ? nullptr : &found->second;
}

const core::KvEntry* SimKvServer::NewestEntryOf(const core::KvKeys& keys, const core::KvWatchResult& news) {
  // Every change of a key is an event (etcd's watch: a put's event carries
  // the key-value as the put left it, a delete's the key and the deleting
  // revision), so the newest event on one key is the key now: its entry
  // when a put, absent when a delete. (CurrentOf, without the lookup.)
  if (!keys.end.empty() || news.events.empty()) return nullptr;
  const core::KvWatchEvent& newest = news.events.back();
  return newest.type == core::KvWatchEvent::Type::kPut ? &newest.kv : nullptr;
}

KvStreamAnswer SimKvServer::NewStreamAnswer(const core::KvKeys& keys, std::int64_t start_revision) {
  // Held by the pool alone (use count 1): no stream, message or client can
  // see it, so it may be refilled. (A world runs on one thread.)
  const auto idle = std::find_if(answer_pool_.begin(), answer_pool_.end(), [](const auto& pooled) {
    return pooled.use_count() == 1;
  });
  std::shared_ptr<core::KvWatchResult> answer;
  if (idle != answer_pool_.end()) {
    answer = *idle;
  } else {
    answer = std::make_shared<core::KvWatchResult>();
    if (answer_pool_.size() < kAnswerPoolMax) answer_pool_.push_back(answer);
  }
  state_.EventsInto(keys, start_revision, *answer);
  return answer;
}

void SimKvServer::AnswerStream(Stream& stream, const KvStreamAnswer& answer, const core::KvEntry* current) {
  const std::int64_t op = stream.reported ? observer_.KvStreamAnswered(*stream.request, *answer, current) : -1;
  world_.trace().Record(world_.now(), host_, "kv_stream_answer", op, answer->revision);
  stream.reply(op, answer);
}

void SimKvServer::NotifyStreams(sim::HostId writer) {
  // In registration order. Streams asking for the same keys from the same
  // revision share one answer; an answer only sends a message, so the list
  // stays as it is meanwhile.
  KvStreamAnswer shared;
  const core::KvEntry* current = nullptr;
  const Stream* shared_by = nullptr;
  for (Stream& stream : streams_) {
    if (stream.next > state_.revision()) continue;  // told of everything already
    const bool reuse = shared_by != nullptr && shared_by->next == stream.next && shared_by->keys_id == stream.keys_id;
    if (!reuse) {
      shared = NewStreamAnswer(stream.request->keys, stream.next);
      current = NewestEntryOf(stream.request->keys, *shared);
    }
    shared_by = &stream;
    // A stream is told of every change, so its next revision is never compacted.
    assert(shared->status == core::KvStatus::kOk);
    if (shared->events.empty()) continue;  // no change on its keys
    // (Moved on after the comparison above: the next stream compares with
    // where this one was.)
    if (stream.request->client != writer) AnswerStream(stream, shared, current);
  }
  for (Stream& stream : streams_) stream.next = std::max(stream.next, state_.revision() + 1);
}

core::KvTxnResult KvRequestClient::TxnOwned(core::KvTxn txn, core::Nanos timeout) {
  KvRequest request;
  request.kind = KvRequest::Kind::kTxn;
  request.txn = std::move(txn);
  return Call(std::move(request), timeout).txn;
}

core::KvLeaseResult KvRequestClient::LeaseGrant(core::Nanos ttl, core::Nanos timeout) {
  assert(ttl > 0);
  KvRequest request;
  request.kind = KvRequest::Kind::kLeaseGrant;
  request.ttl = ttl;
  return Call(std::move(request), timeout).lease;
}

core::KvLeaseResult KvRequestClient::LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) {
  KvRequest request;
  request.kind = KvRequest::Kind::kLeaseKeepAlive;
  request.lease = lease;
  return Call(std::move(request), timeout).lease;
}

core::KvLeaseResult KvRequestClient::LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) {
  KvRequest request;
  request.kind = KvRequest::Kind::kLeaseRevoke;
  request.lease = lease;
  return Call(std::move(request), timeout).lease;
}

SimKvClient::SimKvClient(sim::World& world, sim::Network& network, sim::HostId host, int node, std::string process,
                         SimKvServer& server, KvObserver& observer, bool stream_watch)
    : world_(world),
      network_(network),
      host_(host),
      incarnation_(world.incarnation(host)),
      node_(node),
      process_(std::move(process)),
      server_(server),
      observer_(observer),
      stream_watch_(stream_watch) {}

struct SimKvClient::CallExchange : KvExchange<KvRequest, KvReply> {};

std::shared_ptr<SimKvClient::CallExchange> SimKvClient::NewCall(KvRequest::Kind kind) {
  auto call = std::make_shared<CallExchange>();
  call->request.kind = kind;
  return call;
}

bool SimKvClient::Call(const std::shared_ptr<CallExchange>& call, core::Nanos timeout) {
  assert(world_.in_fiber());
  assert(timeout > 0);
  KvRequest& request = call->request;
  request.op = observer_.KvInvoked(node_, process_, request);
  request.client = host_;
  const std::int64_t op = request.op;
  const sim::WaitToken token = world_.PrepareWait();
  SendKvExchange<KvRequest, KvReply, /*kAnsweredOnce=*/true>(
      network_, server_.host(), host_, incarnation_, call, token,
      [server = &server_](std::shared_ptr<const KvRequest> sent, auto reply) {
        server->Handle(std::move(sent), KvServerReply(std::move(reply)));
      });
  world_.Wait(token, world_.MonotonicNow(host_) + timeout);
  // Without the reply the outcome is unknown (the store may have left its
  // result in the exchange all the same: the caller did not learn it).
  static const KvReply kTimedOut;
  observer_.KvCompleted(op, call->done ? call->result : kTimedOut);
  return call->done;
}

core::KvTxnResult SimKvClient::Txn(const core::KvTxn& txn, core::Nanos timeout) { return TxnOwned(txn, timeout); }

core::KvTxnResult SimKvClient::TxnOwned(core::KvTxn txn, core::Nanos timeout) {
  const std::shared_ptr<CallExchange> call = NewCall(KvRequest::Kind::kTxn);
  call->request.txn = std::move(txn);
  // The reply is the caller's alone once it came: moved out.
  return Call(call, timeout) ? std::move(call->result.txn) : core::KvTxnResult{};
}

core::KvGuardedPutResult SimKvClient::GuardedPut(core::KvGuardedPut put, core::Nanos timeout) {
  const std::shared_ptr<CallExchange> call = NewCall(KvRequest::Kind::kGuardedPut);
  call->request.put = std::move(put);
  return Call(call, timeout) ? std::move(call->result.put) : core::KvGuardedPutResult{};
}

core::KvLeaseResult SimKvClient::LeaseGrant(core::Nanos ttl, core::Nanos timeout) {
  assert(ttl > 0);
  const std::shared_ptr<CallExchange> call = NewCall(KvRequest::Kind::kLeaseGrant);
  call->request.ttl = ttl;
  return Call(call, timeout) ? call->result.lease : core::KvLeaseResult{};
}

core::KvLeaseResult SimKvClient::LeaseKeepAlive(core::KvLeaseId lease, core::Nanos timeout) {
  const std::shared_ptr<CallExchange> call = NewCall(KvRequest::Kind::kLeaseKeepAlive);
  call->request.lease = lease;
  return Call(call, timeout) ? call->result.lease : core::KvLeaseResult{};
}

core::KvLeaseResult SimKvClient::LeaseRevoke(core::KvLeaseId lease, core::Nanos timeout) {
  const std::shared_ptr<CallExchange> call = NewCall(KvRequest::Kind::kLeaseRevoke);
  call->request.lease = lease;
  return Call(call, timeout) ? call->result.lease : core::KvLeaseResult{};
}

core::KvWatchResult SimKvClient::Watch(const core::KvKeys& keys, std::int64_t start_revision, core::Nanos timeout) {
  if (stream_watch_) return StreamWatch(keys, start_revision, timeout);
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

core::KvWatchAnswer SimKvClient::WatchWhileShared(const core::KvKeys& keys, std::int64_t start_revision,
                                                  const std::function<core::Nanos()>& next_timeout,
                                                  const std::function<bool()>& again, core::Nanos& last_timeout) {
  if (stream_watch_) return StreamWatchWhile(keys, start_revision, next_timeout, again, last_timeout);
  return KvClient::WatchWhileShared(keys, start_revision, next_timeout, again, last_timeout);  // long polls
}

core::KvWatchResult SimKvClient::WatchWhile(const core::KvKeys& keys, std::int64_t start_revision,
                                            const std::function<core::Nanos()>& next_timeout,
                                            const std::function<bool()>& again) {
  core::Nanos last_timeout = 0;  // (not asked for)
  if (stream_watch_) return *StreamWatchWhile(keys, start_revision, next_timeout, again, last_timeout);
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

// --- the watch stream's client end ------------------------------------------

namespace {

// The newest revision an answer tells of; 0 for one without events.
std::int64_t NewestOf(const core::KvWatchResult& answer) {
  return answer.events.empty() ? 0 : answer.events.back().kv.mod_revision;
}

}  // namespace

void SimKvClient::StartWait(const core::KvKeys& keys, std::int64_t start_revision, sim::WaitToken token,
                            bool same_keys) {
  StreamState& stream = *stream_;
  // A registration still unanswered a wait later is taken as lost; a caller
  // that asks for events the stream never covered (after its own write, or
  // a read after answers were lost) registers again from there.
  const bool covers = stream.registered && stream.confirmed && start_revision - 1 <= stream.covered &&
                      (same_keys || stream.keys == keys);
  if (!covers) SendStream(keys, start_revision);
  stream.wake_from = start_revision;
  stream.waiter = token;
  stream.waiting = true;
}

core::KvWatchResult SimKvClient::StreamWatch(const core::KvKeys& keys, std::int64_t start_revision,
                                             core::Nanos timeout) {
  assert(world_.in_fiber());
  assert(timeout > 0);
  if (KvStreamAnswer news = TakeNews(start_revision)) return *news;
  const sim::WaitToken token = world_.PrepareWait();
  StartWait(keys, start_revision, token);
  world_.Wait(token, world_.MonotonicNow(host_) + timeout);
  stream_->waiting = false;
  const KvStreamAnswer news = TakeNews(start_revision);
  return news ? *news : core::KvWatchResult{};  // kTimeout: no news
}

core::KvWatchAnswer SimKvClient::StreamWatchWhile(const core::KvKeys& keys, std::int64_t start_revision,
                                                  const std::function<core::Nanos()>& next_timeout,
                                                  const std::function<bool()>& again, core::Nanos& last_timeout) {
  assert(world_.in_fiber());
  const core::Nanos timeout = last_timeout = next_timeout();  // drawn first, as Watch's argument would be
  assert(timeout > 0);
  if (!stream_->held.empty()) {  // (seldom: an answer came while the caller was busy)
    if (KvStreamAnswer news = TakeNews(start_revision)) return news;
  }
  const sim::WaitToken token = world_.PrepareWait();
  StartWait(keys, start_revision, token);
  const QuietWait wait{&keys, start_revision, &next_timeout, &again, &last_timeout, token, stream_->registrations};
  const std::function<core::Nanos()> step = [this, &wait] { return AfterQuietTimeout(wait); };  // stored inline
  world_.WaitStepping(token, world_.MonotonicNow(host_) + timeout, step);
  stream_->waiting = false;
  KvStreamAnswer news = TakeNews(start_revision);
  return news ? news : no_news_;
}

core::Nanos SimKvClient::AfterQuietTimeout(const QuietWait& wait) {
  // At a timeout, what the fiber would do next, done in the scheduler: end
  // the wait (an answer with nothing from the start on is dropped), and
  // unless it brought news or again() declines, start the next one.
  StreamState& stream = *stream_;
  stream.waiting = false;
  if (!stream.held.empty()) {
    const KvStreamAnswer& newest = stream.held.back();
    if (newest->status != core::KvStatus::kOk || NewestOf(*newest) >= wait.start_revision) return -1;
    stream.held.clear();
  }
  if (!(*wait.again)()) return -1;
  const core::Nanos next = *wait.last_timeout = (*wait.next_timeout)();
  assert(next > 0);
  // Its keys are the wait's: the stream has not been registered since the wait's first StartWait.
  StartWait(*wait.keys, wait.start_revision, wait.token, stream.registrations == wait.registrations);
  return world_.MonotonicNow(host_) + next;
}

KvStreamAnswer SimKvClient::TakeNews(std::int64_t start_revision) {
  std::vector<KvStreamAnswer>& held = stream_->held;  // emptied below, its capacity kept
  if (held.empty()) return nullptr;
  KvStreamAnswer news;
  if (held.front()->status != core::KvStatus::kOk) {
    news = std::move(held.front());  // a refusal, or the stream's start compacted
  } else if (NewestOf(*held.back()) < start_revision) {
    // nothing the caller does not know
  } else if (held.size() == 1 && held.front()->events.front().kv.mod_revision >= start_revision) {
    news = std::move(held.front());  // the one answer, all of it news (the usual case): as the store sent it
  } else {
    core::KvWatchResult merged;
    merged.status = core::KvStatus::kOk;
    merged.revision = held.back()->revision;
    for (const KvStreamAnswer& answer : held) {
      for (const core::KvWatchEvent& event : answer->events) {
        if (event.kv.mod_revision >= start_revision) merged.events.push_back(event);
      }
    }
    news = std::make_shared<const core::KvWatchResult>(std::move(merged));
  }
  held.clear();
  return news;
}

void SimKvClient::AnswerArrived(sim::World& world, StreamState& stream, KvStreamAnswer&& answer) {
  const bool ok = answer->status == core::KvStatus::kOk;
  const std::int64_t newest = NewestOf(*answer);
  if (!ok) {
    stream.registered = false;
    stream.held.clear();
    stream.held.push_back(std::move(answer));
  } else {
    stream.confirmed = true;
    stream.covered = std::max(stream.covered, newest);
    // Kept when it tells more than what is held (not behind a refusal).
    const bool more = newest > 0 && (stream.held.empty() || (stream.held.back()->status == core::KvStatus::kOk &&
                                                             newest > NewestOf(*stream.held.back())));
    if (more) stream.held.push_back(std::move(answer));
  }
  if (!stream.waiting) return;
  if (ok && newest < stream.wake_from) return;  // (a `created` answer: newest 0)
  world.Signal(stream.waiter);
}

void SimKvClient::SendStream(const core::KvKeys& keys, std::int64_t start_revision) {
  StreamState& stream = *stream_;
  stream.registered = true;
  stream.confirmed = false;
  stream.covered = start_revision - 1;
  stream.keys = keys;
  ++stream.registrations;
  auto request = std::make_shared<const KvStreamRequest>(
      KvStreamRequest{.keys = keys, .start_revision = start_revision, .client = host_, .node = node_,
                      .process = process_});
  // The client may be gone when an answer arrives: the answer then reaches
  // only the shared state, and the network drops it for a dead incarnation.
  auto request_message = [network = &network_, server = &server_, me = host_, incarnation = incarnation_,
                          request = std::move(request), state = stream_, observer = &observer_] {
    auto reply = [network, server_host = server->host(), me, incarnation, state, observer](
                     std::int64_t op, const KvStreamAnswer& answer) {
      // A duplicated message runs the one closure twice: the flag is the
      // message's own, so the answer counts once.
      auto report = [world = &network->world(), observer, state, answer = KvStreamAnswer(answer), op,
                     delivered = false]() mutable {
        if (delivered) return;
        delivered = true;
        if (op >= 0) observer->KvStreamDelivered(op);
        AnswerArrived(*world, *state, std::move(answer));
      };
      static_assert(sim::Message::kFits<decltype(report)>);
      network->Send(server_host, me, incarnation, std::move(report));
    };
    server->OpenStream(request, std::move(reply));
  };
  static_assert(sim::Message::kFits<decltype(request_message)>);
  network_.Send(host_, server_.host(), sim::kAnyIncarnation, std::move(request_message));
}

}  // namespace leasesim::backends
