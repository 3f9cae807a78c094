#include "runner/nemesis.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>

#include "core/fault_points.h"
#include "sim/prng.h"

namespace leasesim::runner {
namespace {

constexpr Nanos kMs = sim::kNanosPerMilli;
constexpr Nanos kSecond = sim::kNanosPerSecond;

const std::vector<std::string_view> kKinds = {
    "crash",         "pause",       "suspend",     "partition",      "isolate",
    "isolate_from_store", "partition_oneway", "clog", "store_outage", "store_latency",
    "clock_drift",   "clock_step",  "shutdown",
};

// The points a pause, suspend or crash may be aimed at (during_release is
// reached only in a shutdown, which aims there itself).
constexpr std::string_view kAimPoints[] = {
    core::fault_points::kBeforeLedgerWrite, core::fault_points::kBetweenBatchItems,
    core::fault_points::kBeforeRenew, core::fault_points::kAfterCasReply};

class Draw {
 public:
  explicit Draw(std::uint64_t seed) : prng_(sim::DeriveSeed(seed, "nemesis")) {}
  // Uniform in [low, high] (whole milliseconds when both are).
  std::int64_t Range(std::int64_t low, std::int64_t high) { return high <= low ? low : prng_.UniformRange(low, high); }
  Nanos Millis(Nanos low, Nanos high) { return Range(low / kMs, high / kMs) * kMs; }
  bool Percent(int percent) { return prng_.UniformBelow(100) < static_cast<std::uint64_t>(percent); }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    assert(!items.empty());
    return items[prng_.UniformBelow(items.size())];
  }

 private:
  sim::Prng prng_;
};

// The swarm: which kinds are on, and their knobs, drawn once per run.
struct Swarm {
  std::vector<std::string_view> kinds;
  Nanos duration_cap = 0;    // longest partition / outage / isolation
  int aim_percent = 0;       // share of pauses, suspends and crashes aimed at a fault point
  int leader_percent = 0;    // share of node faults aimed at the leader
  int beyond_percent = 0;    // share of pauses, clogs and drift beyond the assumptions
};

NodeRef Target(Draw& draw, const Scenario& scenario, const Swarm& swarm) {
  if (draw.Percent(swarm.leader_percent)) return NodeRef{.leader = true};
  if (draw.Percent(50)) return NodeRef{.follower = true};
  return NodeRef{.node = static_cast<int>(draw.Range(1, scenario.nodes))};
}

Member NodeMember(NodeRef ref) { return Member{Member::Kind::kNode, ref}; }

void AddRestarts(std::vector<Fault>& out, const Scenario& scenario, Nanos at) {
  if (at > scenario.duration) return;
  for (int node = 1; node <= scenario.nodes; ++node) {
    Fault restart;
    restart.at = at;
    restart.kind = FaultKind::kRestart;
    restart.node = NodeRef{.node = node};
    out.push_back(restart);
  }
}

// A pause (or suspend) long enough to matter: within the budget, or beyond it.
Nanos PauseLength(Draw& draw, const Scenario& scenario, bool beyond) {
  const Nanos budget = scenario.timing.pause_budget;
  if (!beyond && budget >= kMs) return draw.Millis(kMs, budget);
  return draw.Millis(budget + kMs, budget + 3 * scenario.timing.lease_duration);
}

}  // namespace

const std::vector<std::string_view>& NemesisKinds() { return kKinds; }

std::vector<Fault> GenerateNemesisFaults(const Scenario& scenario, std::uint64_t seed) {
  const NemesisConfig& config = scenario.nemesis;
  std::vector<Fault> out;
  if (!config.enabled) return out;
  Draw draw(seed);
  const core::TimingConfig& timing = scenario.timing;
  const bool beyond_allowed = !config.within_assumptions;

  // The allowed kinds; faults that cannot stay within the assumptions (a
  // pause when no pause budget is promised) are left out in that mode.
  std::vector<std::string_view> allowed;
  for (std::string_view kind : kKinds) {
    if (!config.kinds.empty() &&
        std::find(config.kinds.begin(), config.kinds.end(), kind) == config.kinds.end()) {
      continue;
    }
    const bool needs_budget = kind == "pause" || kind == "suspend" || kind == "clog";
    if (needs_budget && !beyond_allowed && timing.pause_budget < kMs) continue;
    if (kind == "shutdown" && scenario.nodes < 2) continue;
    allowed.push_back(kind);
  }
  if (allowed.empty()) return out;

  Swarm swarm;
  for (std::string_view kind : allowed) {
    if (!config.swarm || draw.Percent(50)) swarm.kinds.push_back(kind);
  }
  if (swarm.kinds.empty()) swarm.kinds.push_back(draw.Pick(allowed));
  swarm.duration_cap = draw.Percent(50) ? 2 * timing.lease_duration : 4 * timing.lease_duration;
  swarm.aim_percent = static_cast<int>(draw.Range(0, 100));
  swarm.leader_percent = static_cast<int>(draw.Range(40, 100));
  swarm.beyond_percent = beyond_allowed ? static_cast<int>(draw.Range(20, 100)) : 0;

  const Nanos from = std::min(config.from > 0 ? config.from : 2 * timing.lease_duration / 10, scenario.duration);
  const Nanos until = std::max(from, config.until > 0 ? config.until : scenario.duration * 3 / 4);
  const int count = static_cast<int>(draw.Range(1, config.faults_max));
  const Nanos outage_max = std::max<Nanos>(kSecond, swarm.duration_cap);
  for (int i = 0; i < count; ++i) {
    const std::string_view kind = draw.Pick(swarm.kinds);
    Fault fault;
    fault.at = draw.Millis(from, until);
    auto aim = [&] {
      if (!config.points.empty()) {
        fault.at_point = draw.Pick(config.points);  // aimed at the scenario's chosen points, always
      } else if (draw.Percent(swarm.aim_percent)) {
        fault.at_point = std::string(kAimPoints[draw.Range(0, std::size(kAimPoints) - 1)]);
      }
    };
    auto link = [&] {
      // One direction between a node and a service.
      const NodeRef node = Target(draw, scenario, swarm);
      const Member service{draw.Percent(60) ? Member::Kind::kStore : Member::Kind::kLedger, {}};
      if (draw.Percent(50)) {
        fault.from = {NodeMember(node)};
        fault.to = {service};
      } else {
        fault.from = {service};
        fault.to = {NodeMember(node)};
      }
    };
    if (kind == "crash") {
      fault.kind = FaultKind::kCrash;
      fault.node = Target(draw, scenario, swarm);
      aim();
      out.push_back(fault);
      AddRestarts(out, scenario, fault.at + draw.Millis(kMs, timing.lease_duration * 3 / 2));
      continue;
    }
    if (kind == "pause" || kind == "suspend") {
      fault.kind = kind == "pause" ? FaultKind::kPause : FaultKind::kSuspend;
      fault.node = Target(draw, scenario, swarm);
      fault.duration = PauseLength(draw, scenario, draw.Percent(swarm.beyond_percent));
      aim();
    } else if (kind == "partition") {
      fault.kind = FaultKind::kPartition;
      fault.duration = draw.Millis(kSecond, outage_max);
      std::vector<Member> rest;
      const NodeRef alone = Target(draw, scenario, swarm);
      if (!alone.is_role()) {
        for (int node = 1; node <= scenario.nodes; ++node) {
          if (node != alone.node) rest.push_back(NodeMember(NodeRef{.node = node}));
        }
      }
      rest.push_back(Member{Member::Kind::kStore, {}});
      if (draw.Percent(70)) rest.push_back(Member{Member::Kind::kLedger, {}});
      fault.groups = {{NodeMember(alone)}, rest};
    } else if (kind == "isolate" || kind == "isolate_from_store") {
      fault.kind = kind == "isolate" ? FaultKind::kIsolate : FaultKind::kIsolateFromStore;
      fault.node = Target(draw, scenario, swarm);
      fault.duration = draw.Millis(kSecond, outage_max);
    } else if (kind == "partition_oneway") {
      fault.kind = FaultKind::kPartitionOneWay;
      fault.duration = draw.Millis(kSecond, outage_max);
      link();
    } else if (kind == "clog") {
      fault.kind = FaultKind::kClog;
      const bool beyond = draw.Percent(swarm.beyond_percent) || timing.pause_budget < kMs;
      fault.duration = beyond ? draw.Millis(timing.pause_budget + kMs, outage_max)
                              : draw.Millis(kMs, timing.pause_budget);
      link();
    } else if (kind == "store_outage") {
      fault.kind = FaultKind::kStoreOutage;
      fault.duration = draw.Millis(kSecond, outage_max);
      fault.outage = draw.Percent(50) ? backends::StoreOutage::kUnavailable : backends::StoreOutage::kBlackhole;
    } else if (kind == "store_latency") {
      fault.kind = FaultKind::kStoreLatency;
      fault.duration = draw.Millis(kSecond, outage_max);
      fault.extra = draw.Millis(10 * kMs, 2 * timing.request_timeout);
    } else if (kind == "clock_drift") {
      fault.kind = FaultKind::kClockDrift;
      fault.node = Target(draw, scenario, swarm);
      const std::int64_t bound = timing.drift_bound_ppm;
      const std::int64_t magnitude = draw.Percent(swarm.beyond_percent) ? draw.Range(bound + 1, 400'000)
                                                                         : draw.Range(0, bound);
      fault.drift_ppm = draw.Percent(50) ? magnitude : -magnitude;
    } else if (kind == "clock_step") {
      fault.kind = FaultKind::kClockStep;
      fault.node = Target(draw, scenario, swarm);
      const Nanos step = draw.Millis(kSecond, 6 * timing.lease_duration);
      fault.step = draw.Percent(50) ? step : -step;
    } else if (kind == "shutdown") {
      // A graceful handoff, sometimes with the leader stopping the world in
      // the middle of its release; everyone restarts afterwards.
      const bool beyond = draw.Percent(swarm.beyond_percent);
      if (draw.Percent(50) && (beyond || timing.pause_budget >= kMs)) {
        Fault pause;
        pause.at = fault.at;
        pause.kind = FaultKind::kPause;
        pause.node = NodeRef{.leader = true};
        pause.duration = PauseLength(draw, scenario, beyond);
        pause.at_point = std::string(core::fault_points::kDuringRelease);
        out.push_back(pause);
      }
      fault.kind = FaultKind::kShutdown;
      fault.node = NodeRef{.leader = true};
      fault.successor = draw.Percent(50) ? static_cast<int>(draw.Range(1, scenario.nodes)) : 0;
      out.push_back(fault);
      AddRestarts(out, scenario, fault.at + draw.Millis(kSecond, 4 * timing.lease_duration));
      continue;
    }
    out.push_back(fault);
  }
  std::stable_sort(out.begin(), out.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return out;
}

Scenario ExpandNemesis(const Scenario& scenario, std::uint64_t seed) {
  Scenario expanded = scenario;
  std::vector<Fault> generated = GenerateNemesisFaults(scenario, seed);
  expanded.nemesis = NemesisConfig{};
  expanded.faults.insert(expanded.faults.end(), generated.begin(), generated.end());
  std::stable_sort(expanded.faults.begin(), expanded.faults.end(),
                   [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return expanded;
}

}  // namespace leasesim::runner
