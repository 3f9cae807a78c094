#include "runner/world_generator.h"

#include <algorithm>
#include <array>
#include <cassert>

#include "base/units.h"
#include "core/timing.h"
#include "runner/fault_generator.h"

namespace leasesim::runner {
namespace {

using base::Millis;
using base::WholeMillis;
using base::kNanosPerMilli;

template <typename T, std::size_t N>
T PickOf(FaultDraw& draw, const std::array<T, N>& items) {
  return items[draw.Below(N)];
}

bool Chance(FaultDraw& draw, int permille) { return draw.Below(1000) < static_cast<std::uint64_t>(permille); }

// `value` scaled by a share in [low, high] per mille, whole milliseconds, at least 1 ms.
Nanos Share(FaultDraw& draw, Nanos value, int low_permille, int high_permille) {
  const std::int64_t permille = draw.Range(low_permille, high_permille);
  return std::max<Nanos>(Millis(1), WholeMillis(value * permille / 1000));
}

// The configuration with a lease `factor_permille`/1000 as long, its
// renewal schedule scaled alike (the fields lease.by_node can override).
core::TimingConfig Scaled(const core::TimingConfig& t, std::int64_t factor_permille) {
  auto scale = [&](Nanos value) { return std::max<Nanos>(Millis(1), WholeMillis(value * factor_permille / 1000)); };
  core::TimingConfig scaled = t;
  scaled.lease_duration = scale(t.lease_duration);
  scaled.renew_interval = scale(t.renew_interval);
  scaled.renew_deadline = scale(t.renew_deadline);
  scaled.retry = scale(t.retry);
  return scaled;
}

sim::LatencyModel DrawLatency(FaultDraw& draw, Nanos request_timeout) {
  sim::LatencyModel model;
  // The usual latency fits well inside the request timeout (an operator
  // derives the timeout from the p99, docs/TIMING.md: a timeout below the
  // typical round trip is a misconfiguration, not a test); only the tail
  // reaches past it.
  const std::int64_t usual_max_ms = std::min<std::int64_t>(5, request_timeout / kNanosPerMilli / 8);
  model.base_ns = draw.Range(0, usual_max_ms) * kNanosPerMilli;
  model.jitter_ns = draw.Range(0, usual_max_ms) * kNanosPerMilli;
  // Tails from none to most requests, reaching from a fraction of the
  // request timeout to past it (replies that arrive after the caller gave up).
  model.tail_ppm = PickOf(draw, std::array<std::uint32_t, 5>{0, 1'000, 10'000, 100'000, 300'000});
  if (model.tail_ppm > 0) model.tail_ns = Share(draw, request_timeout, 100, 1500);
  return model;
}

// The operating assumption the timeout rests on (docs/TIMING.md): it is
// above the round trip's p99. A world whose tails make more than 1% of calls
// time out on latency alone is a misconfiguration, not a test (its leaders
// flap without end and no recovery bound holds; found by the 100k sweep):
// its tails are thinned, the larger first, until the p99 fits.
// A lost message is a call past the timeout too (the request or the reply):
// loss is thinned first, to what leaves room for the tails.
void KeepP99InsideTimeout(Scenario& s) {
  constexpr std::int64_t kShareMaxPpm = 10'000;
  while (2 * static_cast<std::int64_t>(s.network.loss_ppm) > kShareMaxPpm / 2) s.network.loss_ppm /= 4;
  for (int step = 0; step < 16; ++step) {
    const std::int64_t lost = 2 * static_cast<std::int64_t>(s.network.loss_ppm);
    if (lost + TimeoutShareBoundPpm(s.network.latency, s.store.service, s.timing.request_timeout) <= kShareMaxPpm) return;
    sim::LatencyModel& thicker =
        s.network.latency.tail_ppm >= s.store.service.tail_ppm ? s.network.latency : s.store.service;
    thicker.tail_ppm /= 4;
  }
  s.network.latency.tail_ppm = 0;
  s.store.service.tail_ppm = 0;
}

void DrawNetwork(FaultDraw& draw, Scenario& s) {
  s.network.latency = DrawLatency(draw, s.timing.request_timeout);
  s.network.loss_ppm = PickOf(draw, std::array<std::uint32_t, 4>{0, 1'000, 10'000, 50'000});
  s.network.duplicate_ppm = PickOf(draw, std::array<std::uint32_t, 3>{0, 0, 10'000});
  s.network.reorder_ppm = PickOf(draw, std::array<std::uint32_t, 3>{0, 0, 20'000});
  if (s.network.reorder_ppm > 0) s.network.reorder_delay_ns_max = Share(draw, s.timing.request_timeout, 50, 500);
  s.store.service = DrawLatency(draw, s.timing.request_timeout);
  KeepP99InsideTimeout(s);
}

Nanos MeanLatency(const sim::LatencyModel& model) {
  return model.base_ns + model.jitter_ns / 2 +
         static_cast<Nanos>(static_cast<std::int64_t>(model.tail_ppm) * (model.tail_ns / 2) / base::kPpmOne);
}

// A schedule the ledger can keep up with: a window's write takes a network
// round trip and the service time, and a job whose period is shorter than
// a few of those falls behind for good (a misconfiguration, not a test).
void DrawSettlement(FaultDraw& draw, Scenario& s) {
  // A lost request or reply costs the caller a whole request timeout.
  const Nanos lost = static_cast<Nanos>(2 * static_cast<std::int64_t>(s.network.loss_ppm) *
                                        (s.timing.request_timeout / 1000) / 1000);
  // A reordered message is held back up to reorder_delay_ns_max (found by
  // the fuzzer: 2% of messages held up to 2.4 s stalled a 100 ms schedule
  // for good).
  const Nanos reordered = static_cast<Nanos>(static_cast<std::int64_t>(s.network.reorder_ppm) *
                                             (s.network.reorder_delay_ns_max / 2) / base::kPpmOne);
  const Nanos write = 2 * (MeanLatency(s.network.latency) + reordered) + MeanLatency(s.store.service) + lost;
  s.settlement_period = PickOf(draw, std::array<Nanos, 6>{100, 200, 500, 1000, 2000, 5000}) * kNanosPerMilli;
  if (s.settlement_period < 4 * write) s.settlement_period = (4 * write / Millis(100) + 1) * 100 * kNanosPerMilli;
  s.batch_items = static_cast<int>(draw.Range(1, 8));
  s.settlement_poll = std::max<Nanos>(Millis(1), WholeMillis(s.settlement_period / 10));
}

void DrawTimingByNode(FaultDraw& draw, Scenario& s) {
  if (!Chance(draw, 330)) return;
  for (int node = 1; node <= s.nodes; ++node) {
    if (!Chance(draw, 500)) continue;
    const std::int64_t factor = PickOf(draw, std::array<std::int64_t, 4>{500, 1500, 2000, 3000});
    const core::TimingConfig timing = Scaled(s.timing, factor);
    if (!core::ValidateTiming(timing).empty()) continue;
    s.timing_by_node.push_back(NodeTiming{node, timing});
  }
}

// An NTP client keeps the wall clock near true time, never the drift.
// Most hosts run one: from a hypervisor- or PTP-disciplined clock to
// chrony's default 64 s poll.
sim::TimeSyncConfig DrawTimeSync(FaultDraw& draw) {
  sim::TimeSyncConfig ntp;
  ntp.poll = PickOf(draw, std::array<Nanos, 5>{10, 20, 250, 2000, 64'000}) * kNanosPerMilli;
  ntp.step_threshold = PickOf(draw, std::array<Nanos, 2>{1, 128}) * kNanosPerMilli;
  return ntp;
}

void DrawClocks(FaultDraw& draw, const WorldLimits& limits, Scenario& s) {
  const std::int64_t bound = s.timing.drift_bound_ppm;
  // Time discipline belongs to the deployment (one image, one chrony
  // config), so it is drawn once for the fleet; a share of nodes differs
  // (a host whose client died, a VM on another hypervisor).
  draw.BeginSection();
  const bool fleet_synced = Chance(draw, 800);
  const sim::TimeSyncConfig fleet = DrawTimeSync(draw);
  for (int node = 1; node <= s.nodes; ++node) {
    draw.BeginSection();
    ClockSetting clock{.node = node};
    const std::uint64_t roll = draw.Below(6);
    if (roll <= 2) {
      const std::int64_t within = WithinDriftPpm(draw, bound);
      clock.drift_ppm = Chance(draw, 500) ? within : -within;
    }
    if (roll == 3) {
      // Drawn either way, so a case takes the same choices within the
      // assumptions as beyond them.
      const std::int64_t beyond = BeyondDriftPpm(draw, bound);
      const bool fast = Chance(draw, 500);
      if (limits.beyond_assumptions) clock.drift_ppm = fast ? beyond : -beyond;
    }
    draw.BeginSection();
    if (Chance(draw, 250)) clock.wall_offset = draw.Range(-10'000, 10'000) * kNanosPerMilli;
    draw.BeginSection();
    // Every answer is drawn whichever is used, so this part always asks the
    // same questions and redrawing it leaves the later parts' answers alone.
    const bool like_fleet = Chance(draw, 800);
    const bool own_sync = Chance(draw, 500);
    const sim::TimeSyncConfig own = DrawTimeSync(draw);
    if (like_fleet && fleet_synced) clock.ntp = fleet;
    if (!like_fleet && own_sync) clock.ntp = own;
    if (clock.drift_ppm != 0 || clock.wall_offset != 0 || clock.ntp.poll > 0) s.clocks.push_back(clock);
  }
}

// The usual (tail-free) time of a write through a replicated store: the
// client's request to a replica, forwarded to the leader, the leader's
// append to a follower and its answer, the reply back the same way (six
// network hops), and the service time of the replicas on the way.
Nanos ReplicatedRoundTrip(const Scenario& s) {
  const Nanos hop = s.network.latency.base_ns + s.network.latency.jitter_ns;
  const Nanos service = s.store.service.base_ns + s.store.service.jitter_ns;
  return 6 * hop + 3 * service;
}

// The store the lease lives in: a single linearizable server in most
// worlds, a replicated store (docs/REPLICATED_STORE.md: Raft, 3 or 5
// replicas) in a share, so the generator's replicated fault kinds (replica
// crash and pause, the store leader partitioned, isolated or clogged) strike
// in the generic search too. Reads are linearizable: an "unsafe" read mode
// breaks the store's own guarantee, one the lease protocol may rely on.
// The Raft timing scales with the lease's request timeout, as a deployment
// sizes them together (etcd's 100 ms heartbeat and 1 s election against a
// client timeout of seconds): a heartbeat a tenth of it, an election
// timeout from half to twice it, a client's resend to the next replica
// after half. Only where the timeout leaves room for two usual replicated
// round trips (the timeout above the p99, docs/TIMING.md: a 45 ms timeout
// over a 3-replica store whose writes took 40 ms left the lease without a
// leader for good once a replica crashed; fuzz seed 1). Its own section,
// drawn last.
void DrawStore(FaultDraw& draw, Scenario& s) {
  draw.BeginSection();
  const bool replicated = Chance(draw, 100);
  const int replicas = Chance(draw, 700) ? 3 : 5;
  const Nanos timeout = s.timing.request_timeout;
  const Nanos heartbeat = std::max<Nanos>(Millis(1), WholeMillis(timeout / 10));
  const Nanos election_min = std::max(heartbeat + Millis(1), Share(draw, timeout, 500, 2000));
  const Nanos election_max = election_min + Share(draw, election_min, 100, 1000);
  if (!replicated || timeout < 4 * ReplicatedRoundTrip(s)) return;
  s.store_kind = "replicated";
  s.replicated.enabled = true;
  backends::ReplicatedStoreConfig& store = s.replicated.store;
  store.replicas = replicas;
  store.read_mode = backends::ReadMode::kLinearizable;
  store.heartbeat = heartbeat;
  store.election_timeout_min = election_min;
  store.election_timeout_max = election_max;
  store.client_attempt_timeout = std::max<Nanos>(Millis(1), WholeMillis(timeout / 2));
}

}  // namespace

std::int64_t TimeoutShareBoundPpm(const sim::LatencyModel& net, const sim::LatencyModel& store, Nanos timeout) {
  const std::array<const sim::LatencyModel*, 3> hops{&net, &store, &net};
  std::int64_t share = 0;
  for (int tails = 0; tails < 8; ++tails) {
    Nanos longest = 0;
    std::int64_t ppm = base::kPpmOne;
    for (int hop = 0; hop < 3; ++hop) {
      const sim::LatencyModel& model = *hops[static_cast<std::size_t>(hop)];
      const bool tail = ((tails >> hop) & 1) != 0;
      longest += model.base_ns + model.jitter_ns + (tail ? model.tail_ns : 0);
      const std::int64_t p = tail ? model.tail_ppm : base::kPpmOne - model.tail_ppm;
      ppm = ppm * p / base::kPpmOne;
    }
    if (longest > timeout) share += ppm;
  }
  return share;
}

Scenario GenerateWorld(std::uint64_t seed, const WorldLimits& limits) {
  PrngDraw draw(base::DeriveSeed(seed, "world"));
  return GenerateWorld(draw, limits);
}

Scenario GenerateWorld(FaultDraw& draw, const WorldLimits& limits) {
  assert(limits.nodes_min >= 1);
  assert(limits.nodes_min <= limits.nodes_max);
  assert(limits.duration_min <= limits.duration_max);
  Scenario s;
  s.name = "generated";
  s.nodes = static_cast<int>(draw.Range(limits.nodes_min, limits.nodes_max));
  s.duration = draw.Range(limits.duration_min / sim::kNanosPerSecond,
                                 limits.duration_max / sim::kNanosPerSecond) *
               sim::kNanosPerSecond;
  draw.BeginSection();
  s.timing = GenerateTiming(draw);
  draw.BeginSection();
  DrawTimingByNode(draw, s);
  draw.BeginSection();
  DrawNetwork(draw, s);
  draw.BeginSection();
  DrawSettlement(draw, s);
  DrawClocks(draw, limits, s);
  DrawStore(draw, s);
  return s;
}

}  // namespace leasesim::runner
