#include "backends/sim_services.h"

#include <utility>

namespace leasesim::backends {
namespace {

sim::Nanos DrawService(sim::Prng& prng, const sim::LatencyModel& model) {
  sim::Nanos latency = model.base_ns;
  if (model.jitter_ns > 0) latency += prng.UniformRange(0, model.jitter_ns);
  if (model.tail_ppm > 0 && prng.ChancePpm(model.tail_ppm)) latency += prng.UniformRange(0, model.tail_ns);
  return latency;
}

}  // namespace

SimStoreServer::SimStoreServer(sim::World& world, sim::HostId host, sim::Prng prng,
                               sim::LatencyModel service, SimObserver& observer)
    : world_(world), host_(host), prng_(prng), service_(service), observer_(observer) {}

void SimStoreServer::Handle(const StoreRequest& request,
                            std::function<void(const core::StoreResult&)> reply) {
  const sim::Nanos apply_at = world_.now() + DrawService(prng_, service_);
  const std::uint64_t incarnation = world_.incarnation(host_);
  world_.At(apply_at, [this, incarnation, request, reply = std::move(reply)]() mutable {
    world_.RunOnHost(host_, incarnation, [this, request, reply = std::move(reply)] {
      core::StoreResult result;
      switch (request.kind) {
        case StoreOpKind::kRead: result = store_.Read(request.key); break;
        case StoreOpKind::kCreate: result = store_.Create(request.key, request.record); break;
        case StoreOpKind::kCas:
          result = store_.CompareAndSet(request.key, request.expected_version, request.record);
          break;
      }
      const std::int64_t seq = next_applied_seq_++;
      observer_.StoreApplied(request.op, seq);
      world_.trace().Record(world_.now(), host_, "store_apply", request.op,
                            static_cast<std::int64_t>(result.status));
      reply(result);
    });
  });
}

SimLedgerServer::SimLedgerServer(sim::World& world, sim::HostId host, sim::Prng prng,
                                 sim::LatencyModel service, SimObserver& observer, LedgerOptions options)
    : world_(world), host_(host), prng_(prng), service_(service), observer_(observer), ledger_(options) {}

void SimLedgerServer::Handle(const LedgerRequest& request,
                             std::function<void(const core::LedgerResult&)> reply) {
  const sim::Nanos apply_at = world_.now() + DrawService(prng_, service_);
  const std::uint64_t incarnation = world_.incarnation(host_);
  world_.At(apply_at, [this, incarnation, request, reply = std::move(reply)]() mutable {
    world_.RunOnHost(host_, incarnation, [this, request, reply = std::move(reply)] {
      if (request.write < 0) {
        reply(ledger_.LastAppliedWindow());
        return;
      }
      const core::LedgerResult result = ledger_.Commit(request.batch);
      observer_.LedgerArrived(request.write, result.status);
      world_.trace().Record(world_.now(), host_, "ledger_commit", request.batch.token,
                            static_cast<std::int64_t>(result.status));
      reply(result);
    });
  });
}

}  // namespace leasesim::backends
