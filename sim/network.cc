#include "sim/network.h"

#include <cassert>
#include <utility>

namespace leasesim::sim {

Network::Network(World& world, Prng prng, NetworkConfig config)
    : world_(world), prng_(prng), config_(config) {
  assert(config_.loss_ppm <= kPpmOne);
  assert(config_.latency.base_ns >= 0);
  assert(config_.latency.jitter_ns >= 0);
}

std::size_t Network::Index(HostId from, HostId to) const {
  return static_cast<std::size_t>(from) * static_cast<std::size_t>(dimension_) +
         static_cast<std::size_t>(to);
}

void Network::SetBlocked(HostId from, HostId to, bool is_blocked) {
  const int hosts = world_.host_count();
  assert(from < hosts);
  assert(to < hosts);
  if (dimension_ < hosts) {
    std::vector<bool> grown(static_cast<std::size_t>(hosts) * static_cast<std::size_t>(hosts), false);
    for (int f = 0; f < dimension_; ++f) {
      for (int t = 0; t < dimension_; ++t) {
        grown[static_cast<std::size_t>(f * hosts + t)] = blocked_[Index(f, t)];
      }
    }
    blocked_ = std::move(grown);
    dimension_ = hosts;
  }
  blocked_[Index(from, to)] = is_blocked;
  world_.trace().Record(world_.now(), from, is_blocked ? "block" : "unblock", to);
}

bool Network::blocked(HostId from, HostId to) const {
  if (from >= dimension_ || to >= dimension_) return false;
  return blocked_[Index(from, to)];
}

Nanos Network::DrawLatency(const LatencyModel& model) {
  Nanos latency = model.base_ns;
  if (model.jitter_ns > 0) latency += prng_.UniformRange(0, model.jitter_ns);
  if (model.tail_ppm > 0 && prng_.ChancePpm(model.tail_ppm)) {
    latency += prng_.UniformRange(0, model.tail_ns);
  }
  return latency;
}

void Network::Send(HostId from, HostId to, std::uint64_t to_incarnation,
                   std::function<void()> on_arrival) {
  ++sent_;
  if (blocked(from, to) || prng_.ChancePpm(config_.loss_ppm)) {
    ++dropped_;
    world_.trace().Record(world_.now(), from, "drop", to);
    return;
  }
  const Nanos arrival = world_.now() + DrawLatency(config_.latency);
  world_.trace().Record(world_.now(), from, "send", to, arrival);
  world_.At(arrival, [this, from, to, to_incarnation, fn = std::move(on_arrival)]() mutable {
    if (blocked(from, to)) {  // a partition that began while in flight
      ++dropped_;
      world_.trace().Record(world_.now(), to, "drop_in_flight", from);
      return;
    }
    ++delivered_;
    const std::uint64_t incarnation =
        to_incarnation == kAnyIncarnation ? world_.incarnation(to) : to_incarnation;
    world_.RunOnHost(to, incarnation, std::move(fn));
  });
}

}  // namespace leasesim::sim
