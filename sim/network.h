#pragma once
// The simulated network between hosts: per-message latency (base, jitter and
// a rare tail), loss, and one-way blocks from which symmetric partitions are
// built. A message is a closure run on the receiving host when it arrives;
// replies travel the same way, so a request can be applied and its reply
// lost, leaving the sender with an unknown outcome.

#include <cstdint>
#include <vector>

#include "base/prng.h"
#include "sim/inline_function.h"
#include "sim/time.h"
#include "sim/world.h"

namespace leasesim::sim {

// One-way latency of a message: base + uniform[0, jitter], and with
// probability tail_ppm an extra uniform[0, tail].
struct LatencyModel {
  Nanos base_ns = 0;
  Nanos jitter_ns = 0;
  std::uint32_t tail_ppm = 0;
  Nanos tail_ns = 0;
};

// One draw from `model`: the latency of a message, or the service time of a
// simulated server, so that both are drawn the same way.
Nanos SampleLatency(base::Prng& prng, const LatencyModel& model);

struct NetworkConfig {
  LatencyModel latency;
  std::uint32_t loss_ppm = 0;         // probability a message is dropped
  std::uint32_t duplicate_ppm = 0;    // probability a message is delivered twice
  std::uint32_t reorder_ppm = 0;      // probability a message is held back ...
  Nanos reorder_delay_ns_max = 0;     // ... by up to this much, so later ones overtake it
};

// Deliveries to a host's current incarnation, whichever it is on arrival.
inline constexpr std::uint64_t kAnyIncarnation = 0;

// A message: what runs on the receiver when it arrives. Its inline buffer
// leaves room in an event for the delivery's own fields, so a message that
// fits here travels without an allocation. A duplicated message runs the
// same closure twice, so a message must not consume its captures.
using Message = InlineFunction<void(), 72>;

// The network of one world: sends messages with their fate drawn from its PRNG.
class Network {
 public:
  Network(World& world, base::Prng prng, NetworkConfig config);

  // Sends a message from `from` to `to`; on_arrival runs on `to` (for
  // incarnation `to_incarnation`, or any when kAnyIncarnation) when it arrives.
  void Send(HostId from, HostId to, std::uint64_t to_incarnation, Message&& on_arrival);

  // One-way block: messages from `from` to `to` are dropped (in flight too).
  // Blocks nest: overlapping partitions each add one, and each removes its own.
  void SetBlocked(HostId from, HostId to, bool blocked);
  bool blocked(HostId from, HostId to) const;

  // A clogged link delivers nothing until `until`, then everything it held
  // (a congested or flapping link; nothing is lost).
  void ClogUntil(HostId from, HostId to, Nanos until);

  Nanos DrawLatency(const LatencyModel& model);

  // --- regions (optional) ----------------------------------------------------
  // Hosts may be placed in numbered regions 0..regions-1 with a latency
  // matrix between them (row-major, [from * regions + to]; the diagonal is
  // the latency within a region). A message between two placed hosts takes
  // its region pair's latency; any other message the default config latency.
  // Without regions the network behaves (and draws) exactly as before.
  void SetRegions(int regions, std::vector<LatencyModel> matrix);
  void PlaceHost(HostId host, int region);
  int region_count() const { return regions_; }
  int region(HostId host) const;  // -1: not placed
  // Every placed host of `region`, in host order.
  std::vector<HostId> HostsInRegion(int region) const;
  // The latency model a message from `from` to `to` is drawn from.
  const LatencyModel& LatencyBetween(HostId from, HostId to) const;

  std::uint64_t sent() const { return sent_; }
  std::uint64_t delivered() const { return delivered_; }
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t duplicated() const { return duplicated_; }
  World& world() { return world_; }

 private:
  std::size_t Index(HostId from, HostId to) const;
  void Grow();
  void Deliver(HostId from, HostId to, std::uint64_t to_incarnation, Nanos arrival, Message&& on_arrival);

  World& world_;
  base::Prng prng_;
  NetworkConfig config_;
  std::vector<std::uint16_t> blocked_;  // host_count x host_count block counts, grown on demand
  std::vector<Nanos> clogged_until_;    // host_count x host_count
  int dimension_ = 0;
  int regions_ = 0;
  std::vector<LatencyModel> region_latency_;  // regions_ x regions_
  std::vector<int> host_region_;              // by host; -1 or missing = not placed
  std::uint64_t sent_ = 0;
  std::uint64_t delivered_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t duplicated_ = 0;
};

}  // namespace leasesim::sim
