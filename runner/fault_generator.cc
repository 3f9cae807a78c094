#include "runner/fault_generator.h"

#include <algorithm>

#include "base/units.h"
#include "core/fault_points.h"
#include "runner/fault_catalogue.h"

namespace leasesim::runner {
namespace {

using base::Millis;
using base::Seconds;
using base::WholeMillis;
// The longest pause drawn, in lease durations (within the budget or beyond it).
constexpr Nanos kPauseLeasesMax = 3;

Member NodeMember(NodeRef ref) { return Member{Member::Kind::kNode, ref}; }

// The drawable kinds the config and scenario allow, in draw order.
std::vector<const FaultKindSpec*> AllowedKinds(const Scenario& scenario, const NemesisConfig& config) {
  std::vector<const FaultKindSpec*> allowed;
  for (const FaultKindSpec* spec : DrawOrder()) {
    if (!config.kinds.empty() &&
        std::find(config.kinds.begin(), config.kinds.end(), spec->name) == config.kinds.end()) {
      continue;
    }
    if (spec->drawable != nullptr && !spec->drawable(scenario, config)) continue;
    allowed.push_back(spec);
  }
  return allowed;
}

// Faults in the field come together: a slow network before a partition, a
// pause while the store fails over. A burst fault strikes with the one drawn
// before it: at the same instant, or, when that one waits for a fault point,
// armed at the same point (the two then strike at successive arrivals).
void JoinBurst(const Fault& before, Fault& fault) {
  fault.at = before.at;
  if (before.at_point.empty()) return;
  fault.at_point = before.at_point;
  fault.arrival = before.arrival;
  fault.lease_remaining_below = before.lease_remaining_below;
  if (SpecOf(fault.kind).target != FaultTarget::kNode) fault.node = before.node;
}

}  // namespace

std::int64_t BeyondDriftPpm(FaultDraw& draw, std::int64_t bound_ppm) {
  // Half the time just past the bound (log-uniform gaps from 1 ppm: the
  // edge, where arithmetic that forgets the drift first shows), half the
  // time gross, up to a clock at half or one and a half times true speed
  // (a VM whose clock source misbehaves under load).
  const std::int64_t bound = std::max<std::int64_t>(0, bound_ppm);
  constexpr std::int64_t kGrossMax = 500'000;
  if (bound + 1 >= kGrossMax) return kGrossMax;
  if (draw.Percent(50)) return draw.Range(bound + 1, kGrossMax);
  const std::int64_t octaves = draw.Range(0, 18);
  return std::min<std::int64_t>(kGrossMax, bound + (std::int64_t{1} << octaves));
}

std::int64_t EdgeDriftPpm(FaultDraw& draw, const NodeRef& target, std::int64_t bound_ppm) {
  const std::int64_t bound = std::max<std::int64_t>(0, bound_ppm);
  const bool fast = draw.Percent(50);  // drawn either way: the same questions for every target
  if (target.leader) return -bound;
  if (target.follower) return bound;
  return fast ? bound : -bound;
}

std::int64_t WithinDriftPpm(FaultDraw& draw, std::int64_t bound_ppm) {
  const std::int64_t bound = std::max<std::int64_t>(0, bound_ppm);
  return draw.Percent(50) ? bound : draw.Range(0, bound);
}

const std::vector<const FaultKindSpec*>& DrawOrder() {
  static const std::vector<const FaultKindSpec*> ranked = [] {
    std::vector<const FaultKindSpec*> list;
    for (const FaultKindSpec& spec : FaultCatalogue()) {
      if (spec.draw_rank >= 0) list.push_back(&spec);
    }
    std::sort(list.begin(), list.end(),
              [](const FaultKindSpec* a, const FaultKindSpec* b) { return a->draw_rank < b->draw_rank; });
    return list;
  }();
  return ranked;
}

const std::vector<std::string>& AimPoints() {
  static const std::vector<std::string> points = [] {
    std::vector<std::string> list;
    for (std::string_view point : core::fault_points::kAll) {
      if (point != core::fault_points::kDuringRelease) list.emplace_back(point);
    }
    return list;
  }();
  return points;
}

FaultDrawContext::FaultDrawContext(FaultDraw& draw_from, const Scenario& scenario_in, const NemesisConfig& config_in,
                                   const Swarm& swarm_in, std::vector<Fault>& out)
    : draw(draw_from), scenario(scenario_in), timing(scenario_in.timing), config(config_in), swarm(swarm_in),
      out_(out) {}

Nanos FaultDrawContext::OutageMax() const { return std::max<Nanos>(Seconds(1), swarm.duration_cap); }

NodeRef FaultDrawContext::Target() {
  if (draw.Percent(swarm.leader_percent)) return NodeRef{.leader = true};
  if (draw.Percent(50)) return NodeRef{.follower = true};
  return NodeRef{.node = static_cast<int>(draw.Range(1, scenario.nodes))};
}

Nanos FaultDrawContext::PauseLength(bool beyond, bool edge) {
  const Nanos budget = timing.pause_budget;
  // A pause of more than a few leases is no different to a lease protocol
  // from one of a few (every lease has run out), and one that outlasts the
  // run is never judged; the timing rules keep the budget below one lease,
  // so this caps only a budget that a loosened rule let grow.
  const Nanos within = std::min(budget, kPauseLeasesMax * timing.lease_duration);
  if (!beyond && within >= Millis(1)) return edge ? JustUnder(within) : draw.Millis(Millis(1), within);
  return draw.Millis(budget + Millis(1), budget + kPauseLeasesMax * timing.lease_duration);
}

Nanos FaultDrawContext::JustUnder(Nanos budget) {
  // Boundary-value testing, as the timing generator does for the rules
  // themselves: the gap halves from half the budget down to none, so the
  // budget itself (the worst the assumptions allow) is as likely as any
  // gap, and whole milliseconds keep scenario files exact.
  const int halvings = static_cast<int>(draw.Range(0, 16));
  const Nanos gap = halvings >= 16 ? 0 : (budget / 2) >> halvings;
  return std::max<Nanos>(Millis(1), WholeMillis(budget - gap));
}

void FaultDrawContext::AimAtEdge(Fault& fault) {
  fault.at_point = config.points.empty() ? DrawPoint() : draw.Pick(config.points);
  fault.arrival = 1;
  fault.node = NodeRef{.leader = true};  // only a holder has a lease to run out
  // Below a remainder log-uniformly small against the fault's length, from
  // half of it down to a few hundredths: the arrival right after a lease
  // check that barely passed. (Smaller bounds are rarely met at all: an
  // armed fault that never strikes is a fault lost.)
  const Nanos reach = std::max<Nanos>(Millis(1), std::min(fault.duration, timing.renew_deadline));
  const int halvings = static_cast<int>(draw.Range(1, 6));
  fault.lease_remaining_below = std::max<Nanos>(Millis(1), WholeMillis(reach >> halvings));
}

std::string FaultDrawContext::DrawPoint() {
  const std::vector<std::string>& points = AimPoints();
  return points[static_cast<std::size_t>(draw.Range(0, static_cast<std::int64_t>(points.size()) - 1))];
}

void FaultDrawContext::Aim(Fault& fault) {
  if (!config.points.empty()) {
    fault.at_point = draw.Pick(config.points);  // aimed at the scenario's chosen points, always
  } else if (draw.Percent(swarm.aim_percent)) {
    fault.at_point = DrawPoint();
  }
  if (!fault.at_point.empty()) TimeStrike(fault);
}

void FaultDrawContext::AimIfTimed(Fault& fault) {
  if (!config.timed_strikes || !draw.Percent(swarm.aim_percent)) return;
  fault.at_point = config.points.empty() ? DrawPoint() : draw.Pick(config.points);
  if (SpecOf(fault.kind).target != FaultTarget::kNode) fault.node = Target();  // whose arrival strikes it
  TimeStrike(fault);
}

void FaultDrawContext::TimeStrike(Fault& fault) {
  if (!config.timed_strikes) return;  // the nemesis' historical draws end here
  fault.arrival = static_cast<int>(draw.Range(1, 3));
  if (!draw.Percent(40)) return;
  // The moment that matters most in a lease protocol is its deadline: a
  // fault that lasts (a pause, an outage) is often made to outlast what
  // remains of the lease when it strikes, so it spans the deadline.
  if (fault.duration > 0 && draw.Percent(50)) {
    fault.lease_remaining_below = std::max<Nanos>(Millis(1), draw.Millis(Millis(1), std::min(fault.duration, timing.renew_deadline)));
    return;
  }
  // Otherwise short remainders are as likely as long ones (log-uniform):
  // the remaining lease never exceeds renew_deadline, so a larger bound
  // would always qualify.
  const int octaves = 1 + static_cast<int>(draw.Range(0, 12));
  fault.lease_remaining_below = std::max<Nanos>(Millis(1), WholeMillis(timing.renew_deadline >> octaves));
}

void FaultDrawContext::MaybeRunDownLease(const Fault& edge) {
  if (!draw.Percent(50)) return;
  const std::vector<std::string>& kinds = config.kinds;
  if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), SpecOf(FaultKind::kPartitionOneWay).name) == kinds.end()) {
    return;  // the user's list rules
  }
  Fault cut;
  cut.at = edge.at;
  cut.kind = FaultKind::kPartitionOneWay;
  cut.duration = draw.Millis(timing.renew_deadline, std::max(timing.renew_deadline, OutageMax()));
  cut.from = {NodeMember(NodeRef{.leader = true})};
  cut.to = {StoreMember()};
  Push(std::move(cut));
}

void FaultDrawContext::Link(Fault& fault) {
  const NodeRef node = Target();
  const Member service = draw.Percent(60) ? StoreMember() : Member{Member::Kind::kLedger, {}};
  if (draw.Percent(50)) {
    fault.from = {NodeMember(node)};
    fault.to = {service};
  } else {
    fault.from = {service};
    fault.to = {NodeMember(node)};
  }
}

Member FaultDrawContext::StoreMember() const {
  // A replicated store has no single server to cut off: its leader stands in.
  if (scenario.replicated.enabled) return Member{Member::Kind::kReplica, {}, kStoreLeaderReplica};
  return Member{Member::Kind::kStore, {}};
}

void FaultDrawContext::AddRestarts(Nanos at) {
  if (at > scenario.duration) return;
  for (int node = 1; node <= scenario.nodes; ++node) {
    Push(Fault{.at = at, .kind = FaultKind::kRestart, .node = NodeRef{.node = node}});
  }
}

void FaultDrawContext::AddReplicaRestarts(Nanos at) {
  if (at > scenario.duration) return;
  for (int replica = 1; replica <= scenario.replicated.store.replicas; ++replica) {
    Push(Fault{.at = at, .kind = FaultKind::kReplicaRestart, .replica = replica});
  }
}

std::vector<Fault> DrawFaults(const Scenario& scenario, const NemesisConfig& config, FaultDraw& draw) {
  std::vector<Fault> out;
  const std::vector<const FaultKindSpec*> allowed = AllowedKinds(scenario, config);
  if (allowed.empty()) return out;
  const core::TimingConfig& timing = scenario.timing;
  draw.BeginSection();
  std::vector<const FaultKindSpec*> on;
  for (const FaultKindSpec* spec : allowed) {
    if (!config.swarm || draw.Percent(50)) on.push_back(spec);
  }
  if (on.empty()) on.push_back(draw.Pick(allowed));
  Swarm swarm;
  swarm.duration_cap = draw.Percent(50) ? 2 * timing.lease_duration : 4 * timing.lease_duration;
  swarm.aim_percent = static_cast<int>(draw.Range(0, 100));
  swarm.leader_percent = static_cast<int>(draw.Range(40, 100));
  // Drawn either way, so a case takes the same choices within the
  // assumptions as beyond them (a fuzzer can flip the mode alone).
  const int beyond_percent = static_cast<int>(draw.Range(20, 100));
  swarm.beyond_percent = config.within_assumptions ? 0 : beyond_percent;
  swarm.burst_percent = config.timed_strikes && draw.Percent(50) ? static_cast<int>(draw.Range(10, 60)) : 0;
  // Edges need strikes timed by protocol state; the nemesis draws none.
  swarm.edge_percent = config.timed_strikes && draw.Percent(50) ? static_cast<int>(draw.Range(10, 80)) : 0;

  const Nanos from = std::min(config.from > 0 ? config.from : 2 * timing.lease_duration / 10, scenario.duration);
  const Nanos until = std::max(from, config.until > 0 ? config.until : scenario.duration * 3 / 4);
  const int count = static_cast<int>(draw.Range(1, config.faults_max));
  FaultDrawContext context(draw, scenario, config, swarm, out);
  std::size_t last_first = 0;  // out[last_first]: the first fault the previous draw made
  for (int i = 0; i < count; ++i) {
    draw.BeginSection();
    const FaultKindSpec* spec = draw.Pick(on);
    Fault fault;
    fault.at = draw.Millis(from, until);
    fault.kind = spec->kind;
    const bool burst = i > 0 && draw.Percent(swarm.burst_percent) && last_first < out.size();
    const std::size_t first = out.size();
    spec->draw(context, std::move(fault));
    if (burst && first < out.size()) JoinBurst(out[last_first], out[first]);
    last_first = first;
  }
  std::stable_sort(out.begin(), out.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  return out;
}

}  // namespace leasesim::runner
