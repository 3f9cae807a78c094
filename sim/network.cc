#include "sim/network.h"

#include <algorithm>
#include <cassert>
#include <memory>
#include <utility>

namespace leasesim::sim {

Network::Network(World& world, base::Prng prng, NetworkConfig config)
    : world_(world), prng_(prng), config_(config) {
  assert(config_.loss_ppm <= base::kPpmOne);
  assert(config_.latency.base_ns >= 0);
  assert(config_.latency.jitter_ns >= 0);
  assert(config_.duplicate_ppm <= base::kPpmOne);
  assert(config_.reorder_ppm <= base::kPpmOne);
  assert(config_.reorder_delay_ns_max >= 0);
}

std::size_t Network::Index(HostId from, HostId to) const {
  return static_cast<std::size_t>(from) * static_cast<std::size_t>(dimension_) +
         static_cast<std::size_t>(to);
}

void Network::Grow() {
  const int hosts = world_.host_count();
  if (dimension_ >= hosts) return;
  const std::size_t cells = static_cast<std::size_t>(hosts) * static_cast<std::size_t>(hosts);
  std::vector<std::uint16_t> blocked(cells, 0);
  std::vector<Nanos> clogged(cells, 0);
  for (int f = 0; f < dimension_; ++f) {
    for (int t = 0; t < dimension_; ++t) {
      const std::size_t to_index = static_cast<std::size_t>(f * hosts + t);
      blocked[to_index] = blocked_[Index(f, t)];
      clogged[to_index] = clogged_until_[Index(f, t)];
    }
  }
  blocked_ = std::move(blocked);
  clogged_until_ = std::move(clogged);
  dimension_ = hosts;
}

void Network::SetBlocked(HostId from, HostId to, bool is_blocked) {
  assert(from < world_.host_count());
  assert(to < world_.host_count());
  Grow();
  std::uint16_t& count = blocked_[Index(from, to)];
  if (is_blocked) {
    assert(count < UINT16_MAX);
    count += 1;
  } else {
    assert(count > 0 && "unblocking a link that is not blocked");
    count -= 1;
  }
  world_.trace().Record(world_.now(), from, is_blocked ? "block" : "unblock", to);
}

bool Network::blocked(HostId from, HostId to) const {
  if (from >= dimension_ || to >= dimension_) return false;
  return blocked_[Index(from, to)] > 0;
}

void Network::ClogUntil(HostId from, HostId to, Nanos until) {
  Grow();
  Nanos& clogged = clogged_until_[Index(from, to)];
  clogged = std::max(clogged, until);
  world_.trace().Record(world_.now(), from, "clog", to, until);
}

void Network::SetRegions(int regions, std::vector<LatencyModel> matrix) {
  assert(regions >= 0);
  assert(matrix.size() == static_cast<std::size_t>(regions) * static_cast<std::size_t>(regions));
  for (const LatencyModel& model : matrix) {
    assert(model.base_ns >= 0);
    assert(model.jitter_ns >= 0);
    assert(model.tail_ppm <= base::kPpmOne);
    (void)model;
  }
  regions_ = regions;
  region_latency_ = std::move(matrix);
}

void Network::PlaceHost(HostId host, int region) {
  assert(host >= 0);
  assert(host < world_.host_count());
  assert(region >= -1);
  assert(region < regions_);
  if (host_region_.size() <= static_cast<std::size_t>(host)) host_region_.resize(static_cast<std::size_t>(host) + 1, -1);
  host_region_[static_cast<std::size_t>(host)] = region;
}

int Network::region(HostId host) const {
  if (host < 0 || static_cast<std::size_t>(host) >= host_region_.size()) return -1;
  return host_region_[static_cast<std::size_t>(host)];
}

std::vector<HostId> Network::HostsInRegion(int region_id) const {
  std::vector<HostId> hosts;
  for (std::size_t host = 0; host < host_region_.size(); ++host) {
    if (host_region_[host] == region_id && region_id >= 0) hosts.push_back(static_cast<HostId>(host));
  }
  return hosts;
}

const LatencyModel& Network::LatencyBetween(HostId from, HostId to) const {
  const int a = region(from);
  const int b = region(to);
  if (a < 0 || b < 0) return config_.latency;
  return region_latency_[static_cast<std::size_t>(a) * static_cast<std::size_t>(regions_) +
                         static_cast<std::size_t>(b)];
}

Nanos SampleLatency(base::Prng& prng, const LatencyModel& model) {
  Nanos latency = model.base_ns;
  if (model.jitter_ns > 0) latency += prng.UniformRange(0, model.jitter_ns);
  if (model.tail_ppm > 0 && prng.ChancePpm(model.tail_ppm)) latency += prng.UniformRange(0, model.tail_ns);
  return latency;
}

Nanos Network::DrawLatency(const LatencyModel& model) { return SampleLatency(prng_, model); }

void Network::Send(HostId from, HostId to, std::uint64_t to_incarnation, Message&& on_arrival) {
  ++sent_;
  if (blocked(from, to) || prng_.ChancePpm(config_.loss_ppm)) {
    ++dropped_;
    world_.trace().Record(world_.now(), from, "drop", to);
    return;
  }
  const LatencyModel& latency = LatencyBetween(from, to);
  Nanos arrival = world_.now() + DrawLatency(latency);
  if (config_.reorder_ppm > 0 && prng_.ChancePpm(config_.reorder_ppm)) {
    arrival += prng_.UniformRange(0, config_.reorder_delay_ns_max);
  }
  if (from < dimension_ && to < dimension_) arrival = std::max(arrival, clogged_until_[Index(from, to)]);
  world_.trace().Record(world_.now(), from, "send", to, arrival);
  if (config_.duplicate_ppm > 0 && prng_.ChancePpm(config_.duplicate_ppm)) {
    ++duplicated_;
    const Nanos again = arrival + DrawLatency(latency);
    world_.trace().Record(world_.now(), from, "duplicate", to, again);
    // Both copies run the one closure (messages are move-only).
    auto shared = std::make_shared<Message>(std::move(on_arrival));
    Deliver(from, to, to_incarnation, again, [shared] { (*shared)(); });
    Deliver(from, to, to_incarnation, arrival, [shared] { (*shared)(); });
    return;
  }
  Deliver(from, to, to_incarnation, arrival, std::move(on_arrival));
}

void Network::Deliver(HostId from, HostId to, std::uint64_t to_incarnation, Nanos arrival, Message&& on_arrival) {
  auto delivery = [this, from, to, to_incarnation, fn = std::move(on_arrival)]() mutable {
    if (blocked(from, to)) {  // a partition that began while in flight
      ++dropped_;
      world_.trace().Record(world_.now(), to, "drop_in_flight", from);
      return;
    }
    ++delivered_;
    const std::uint64_t incarnation =
        to_incarnation == kAnyIncarnation ? world_.incarnation(to) : to_incarnation;
    world_.RunOnHost(to, incarnation, std::move(fn));
  };
  static_assert(Callback::kFits<decltype(delivery)>, "a delivery must fit in an event without an allocation");
  world_.At(arrival, std::move(delivery));
}

}  // namespace leasesim::sim
