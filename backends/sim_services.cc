#include "backends/sim_services.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <utility>

#include "backends/service_time.h"

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
