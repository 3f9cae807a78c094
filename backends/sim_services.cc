#include "backends/sim_services.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <utility>

#include "backends/service_time.h"
#include "base/same_text.h"

namespace leasesim::backends {
namespace {

// Marks id as seen; false when it was seen before. Ids are small and dense.
bool FirstSighting(std::vector<bool>& seen, std::int64_t id) {
  assert(id >= 0);
  const auto index = static_cast<std::size_t>(id);
  if (index >= seen.size()) seen.resize(std::max<std::size_t>(index + 1, seen.size() * 2), false);
  if (seen[index]) return false;
  seen[index] = true;
  return true;
}

}  // namespace

SimStoreServer::SimStoreServer(sim::World& world, sim::HostId host, base::Prng prng,
                               StoreServerConfig config, SimObserver& observer)
    : world_(world), host_(host), prng_(prng), config_(config), observer_(observer) {
  assert(config_.stale_read_ppm <= base::kPpmOne);
  assert(config_.stale_lag_ns_max >= 0);
}

void SimStoreServer::SetOutage(StoreOutage outage) {
  outage_ = outage;
  world_.trace().Record(world_.now(), host_, "store_outage", static_cast<std::int64_t>(outage));
}

core::StoreResult SimStoreServer::StaleRead(const std::string& key, sim::Nanos as_of) const {
  // The newest change to `key` the replica had received by `as_of`.
  for (auto it = replica_log_.rbegin(); it != replica_log_.rend(); ++it) {
    if (it->key == key && it->at <= as_of) return {core::StoreStatus::kOk, it->record};
  }
  return {core::StoreStatus::kOk, core::VersionedRecord{}};
}

void SimStoreServer::Handle(std::shared_ptr<const StoreRequest> request, StoreReply reply) {
  if (!FirstSighting(seen_requests_, request->op)) {
    world_.trace().Record(world_.now(), host_, "store_duplicate_dropped", request->op);
    return;
  }
  if (outage_ == StoreOutage::kBlackhole) {
    world_.trace().Record(world_.now(), host_, "store_blackhole", request->op);
    return;
  }
  if (outage_ == StoreOutage::kUnavailable) {
    world_.trace().Record(world_.now(), host_, "store_reject", request->op);
    reply(core::StoreResult{core::StoreStatus::kUnavailable, {}});
    return;
  }
  const sim::Nanos apply_at = world_.now() + DrawService(prng_, config_.service) + extra_latency_;
  auto apply = [this, request = std::move(request), reply = std::move(reply)]() mutable {
    core::StoreResult result = Apply(*request);
    if (request->kind != StoreOpKind::kRead && result.status == core::StoreStatus::kOk) {
      NotifyWatchers(request->key, result, request->client);
    }
    reply(std::move(result));
  };
  static_assert(sim::Callback::kFits<decltype(apply)>, "applying a request must not allocate");
  world_.AtOnHost(apply_at, host_, world_.incarnation(host_), std::move(apply));
}

core::StoreResult SimStoreServer::Apply(const StoreRequest& request) {
  core::StoreResult result;
  switch (request.kind) {
    case StoreOpKind::kRead:
      if (config_.stale_read_ppm > 0 && prng_.ChancePpm(config_.stale_read_ppm)) {
        const sim::Nanos lag = prng_.UniformRange(0, config_.stale_lag_ns_max);
        result = StaleRead(request.key, world_.now() - lag);
      } else {
        result = store_.Read(request.key);
      }
      break;
    case StoreOpKind::kCreate: result = store_.Create(request.key, request.record); break;
    case StoreOpKind::kCas:
      result = store_.CompareAndSet(request.key, request.expected_version, request.record);
      break;
  }
  if (request.kind != StoreOpKind::kRead && result.status == core::StoreStatus::kOk &&
      config_.stale_read_ppm > 0) {
    if (replica_log_.size() >= kReplicaLogMax) replica_log_.erase(replica_log_.begin());
    replica_log_.push_back(Change{world_.now(), request.key, result.current});
  }
  const std::int64_t seq = next_applied_seq_++;
  observer_.StoreApplied(request.op, seq);
  world_.trace().Record(world_.now(), host_, "store_apply", request.op, static_cast<std::int64_t>(result.status));
  return result;
}

void SimStoreServer::Watch(std::shared_ptr<const WatchRequest> request, WatchReply reply) {
  // A watch changes nothing: a duplicate of one simply replaces it.
  if (outage_ == StoreOutage::kBlackhole) {
    world_.trace().Record(world_.now(), host_, "store_blackhole_watch", request->client);
    return;
  }
  if (outage_ == StoreOutage::kUnavailable) {
    world_.trace().Record(world_.now(), host_, "store_reject_watch", request->client);
    reply(-1, std::make_shared<const core::StoreResult>(core::StoreResult{core::StoreStatus::kUnavailable, {}}));
    return;
  }
  const sim::Nanos apply_at = world_.now() + DrawService(prng_, config_.service) + extra_latency_;
  auto apply = [this, request = std::move(request), reply = std::move(reply)]() mutable {
    ApplyWatch(*request, std::move(reply));
  };
  static_assert(sim::Callback::kFits<decltype(apply)>, "applying a watch must not allocate");
  world_.AtOnHost(apply_at, host_, world_.incarnation(host_), std::move(apply));
}

void SimStoreServer::ApplyWatch(const WatchRequest& request, WatchReply reply) {
  std::erase_if(watchers_, [&](const Watcher& w) { return w.client == request.client; });  // replaced
  const WatchResult current = std::make_shared<const core::StoreResult>(store_.Read(request.key));
  assert(watchers_.size() < kWatchersMax);
  world_.trace().Record(world_.now(), host_, "store_watch", request.client, request.after_version);
  watchers_.push_back(Watcher{request.client, request.node, request.process, request.key,
                              std::max(request.after_version, current->current.version), std::move(reply)});
  Answer(watchers_.back(), current);  // confirms the watch
}

void SimStoreServer::Answer(Watcher& watcher, const WatchResult& result) {
  const std::int64_t op = observer_.WatchAnswered(watcher.node, watcher.process, watcher.key, next_applied_seq_++);
  world_.trace().Record(world_.now(), host_, "store_watch_answer", op, result->current.version);
  watcher.reply(op, result);
}

void SimStoreServer::NotifyWatchers(const std::string& key, const core::StoreResult& written, sim::HostId writer) {
  assert(written.status == core::StoreStatus::kOk);
  // In registration order; each answered as a read applied right after the
  // write. An answer only sends a message: the list stays as it is meanwhile.
  const std::int64_t version = written.current.version;
  WatchResult shared;  // made at the first answer: a write nobody else watches makes none
  for (Watcher& watcher : watchers_) {
    if (!base::SameText(watcher.key, key) || version <= watcher.after_version) continue;
    watcher.after_version = version;
    if (watcher.client == writer) continue;  // the writer has its reply
    if (!shared) shared = std::make_shared<const core::StoreResult>(written);
    Answer(watcher, shared);
  }
}

SimLedgerServer::SimLedgerServer(sim::World& world, sim::HostId host, base::Prng prng,
                                 sim::LatencyModel service, SimObserver& observer, LedgerOptions options)
    : world_(world), host_(host), prng_(prng), service_(service), observer_(observer), ledger_(options) {}

void SimLedgerServer::Handle(std::shared_ptr<const LedgerRequest> request, LedgerReply reply) {
  if (request->write >= 0 && !FirstSighting(seen_writes_, request->write)) {
    world_.trace().Record(world_.now(), host_, "ledger_duplicate_dropped", request->write);
    return;
  }
  const sim::Nanos apply_at = world_.now() + DrawService(prng_, service_);
  auto apply = [this, request = std::move(request), reply = std::move(reply)]() mutable {
    if (request->write < 0) {
      reply(ledger_.LastAppliedWindow());
      return;
    }
    core::LedgerResult result = ledger_.Commit(request->batch);
    observer_.LedgerArrived(request->write, result.status);
    world_.trace().Record(world_.now(), host_, "ledger_commit", request->batch.token,
                          static_cast<std::int64_t>(result.status));
    reply(std::move(result));
  };
  static_assert(sim::Callback::kFits<decltype(apply)>, "applying a write must not allocate");
  world_.AtOnHost(apply_at, host_, world_.incarnation(host_), std::move(apply));
}

}  // namespace leasesim::backends
