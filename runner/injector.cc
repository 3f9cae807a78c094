#include "runner/injector.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "runner/fault_catalogue.h"

namespace leasesim::runner {

Injector::Injector(RunWorld& parts, const Scenario& scenario)
    : parts_(parts), scenario_(scenario), buggify_(parts.world().MakePrng("buggify")) {
  for (const ClockSetting& setting : scenario.clocks) wall_offset_[setting.node] += setting.wall_offset;
  parts_.recorder().SetFaultPointAction(
      [this](int node, core::FaultPoint point) { return PointReached(node, point); });
}

Injector::~Injector() { parts_.recorder().SetFaultPointAction(nullptr); }

void Injector::LogClockSettings() {
  for (const ClockSetting& setting : scenario_.clocks) {
    if (setting.wall_offset < 0) {
      // A wall clock behind true time holds the node's settlement schedule
      // back for the whole run (as a clock_step back would).
      recorder().AddFault(checker::FaultRecord{
          .kind = std::string(FaultKindName(FaultKind::kClockStep)), .nodes = {setting.node}, .start_ns = 0,
          .end_ns = scenario_.duration,
          .description = "wall clock " + std::to_string(-setting.wall_offset / sim::kNanosPerMilli) +
                         " ms behind from the start"});
    }
    if (setting.drift_ppm == 0) continue;
    const Fault drift{.kind = FaultKind::kClockDrift, .drift_ppm = setting.drift_ppm};
    checker::FaultRecord record;
    record.kind = FaultKindName(FaultKind::kClockDrift);
    record.nodes = {setting.node};
    record.start_ns = 0;
    record.within_assumptions = WithinAssumptions(drift, scenario_.timing);
    // Drift within the bound is the normal state of a clock, not a fault
    // that never heals (which would keep the liveness checks from ever
    // judging the run): it is logged as over at once. Beyond the bound it
    // lasts the whole run.
    record.end_ns = record.within_assumptions ? 0 : scenario_.duration;
    record.description = "drift " + std::to_string(setting.drift_ppm) + " ppm from the start";
    recorder().AddFault(std::move(record));
  }
}

void Injector::ScheduleScript() {
  for (const Fault& fault : scenario_.faults) {
    world().At(fault.at, [this, &fault] { Fire(fault); });
  }
}

void Injector::Fire(const Fault& fault) {
  if (fault.at_point.empty()) {
    Strike(fault, std::nullopt, "", "");
    return;
  }
  // Armed now (a role resolves now); strikes when the node reaches the point.
  if (const std::optional<int> target = Resolve(fault.node)) {
    armed_.push_back(Armed{*target, &fault, core::ParseFaultPoint(fault.at_point)});
    return;
  }
  recorder().AddFault(checker::FaultRecord{.kind = FaultKindName(fault.kind),
                                           .start_ns = world().now(),
                                           .end_ns = world().now(),
                                           .description = "skipped: no node had the role it names when armed"});
}

bool Injector::Qualifies(const Armed& armed) const {
  if (armed.fault->lease_remaining_below <= 0) return true;
  const std::optional<Nanos> remaining = parts_.recorder().RemainingLease(armed.node);
  return remaining && *remaining < armed.fault->lease_remaining_below;
}

bool Injector::PointReached(int node, core::FaultPoint point) {
  const Fault* striking = nullptr;
  for (std::size_t i = 0; i < armed_.size();) {
    Armed& armed = armed_[i];
    if (armed.node != node || armed.point != point || !Qualifies(armed)) {
      ++i;
      continue;
    }
    armed.arrivals = std::min(armed.arrivals + 1, armed.fault->arrival);  // bounded: no need to count further
    if (striking == nullptr && armed.arrivals >= armed.fault->arrival) {
      striking = armed.fault;
      armed_.erase(armed_.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    ++i;
  }
  if (striking != nullptr) Strike(*striking, node, core::FaultPointName(point), "");
  const bool hiccup = Hiccup(node, point, striking != nullptr);
  // Either way the node yields, so the fault is in place before its next step.
  return striking != nullptr || hiccup;
}

bool Injector::Hiccup(int node, core::FaultPoint point, bool struck) {
  const BuggifyConfig& buggify = scenario_.buggify;
  if (!buggify.enabled()) return false;
  if (!buggify_.ChancePpm(buggify.probability_ppm) || struck) return false;
  const Nanos delay = buggify_.UniformRange(1, buggify.delay_max / sim::kNanosPerMilli) * sim::kNanosPerMilli;
  const Fault pause{.at = world().now(),
                    .kind = FaultKind::kPause,
                    .node = NodeRef{.node = node},
                    .duration = delay,
                    .at_point = std::string(core::FaultPointName(point))};
  Strike(pause, node, pause.at_point, "buggify hiccup");
  return true;
}

void Injector::Strike(const Fault& fault, std::optional<int> struck_node, std::string_view point,
                      std::string_view origin) {
  const FaultKindSpec& spec = SpecOf(fault.kind);
  checker::FaultRecord record;
  record.kind = std::string(spec.name);
  record.start_ns = world().now();
  record.end_ns = world().now() + fault.duration;
  record.within_assumptions = WithinAssumptions(fault, scenario_.timing);
  // Roles ("leader", "follower") resolve now, so a script stays meaningful across seeds.
  resolved_.clear();
  int node = 0;
  bool resolvable = true;
  if (spec.target == FaultTarget::kNode) {
    const std::optional<int> target = struck_node ? struck_node : Resolve(fault.node);
    resolvable = target.has_value();
    node = target.value_or(0);
    if (resolvable) record.nodes = {node};
  }
  resolvable = ResolveMembers(fault) && resolvable;
  if (!resolvable) {
    record.description = "skipped: no node had the role it names when the fault fired";
    record.end_ns = record.start_ns;
    recorder().AddFault(std::move(record));
    world().trace().Record(world().now(), -1, "fault_skipped", static_cast<std::int64_t>(fault.kind));
    return;
  }
  if (node != 0) record.within_assumptions = StopWithinBudget(fault, node, record.within_assumptions);
  world().trace().Record(world().now(), node == 0 ? -1 : HostOf(node), "fault",
                         static_cast<std::int64_t>(fault.kind), fault.duration);
  Heal heal = spec.strike(*this, fault, node, record);
  if (!origin.empty()) {
    record.description = std::string(origin) + (record.description.empty() ? "" : ", " + record.description);
  }
  if (!point.empty()) {
    record.at_point = std::string(point);
    record.description += (record.description.empty() ? "at " : " at ") + std::string(point);
  }
  if (heal) world().At(world().now() + fault.duration, std::move(heal));
  recorder().AddFault(std::move(record));
}

bool Injector::StopWithinBudget(const Fault& fault, int node, bool own_verdict) {
  if (fault.kind != FaultKind::kPause && fault.kind != FaultKind::kSuspend) return own_verdict;
  const Nanos now = world().now();
  Stop& stop = stops_[node];
  if (now > stop.until) stop.from = now;  // the node ran in between: a new stretch
  stop.until = std::max(stop.until, now + fault.duration);
  return own_verdict && stop.until - stop.from <= scenario_.timing.pause_budget;
}

bool Injector::ResolveMembers(const Fault& fault) {
  bool resolvable = true;
  auto resolve = [&](const std::vector<Member>& members) {
    for (const Member& member : members) {
      std::optional<int> target;
      if (member.kind == Member::Kind::kReplica) {
        target = parts_.replicated() ? parts_.replicated()->Resolve(member.replica) : std::nullopt;
      } else if (member.kind == Member::Kind::kNode) {
        target = Resolve(member.node);
      } else {
        continue;
      }
      if (!target) resolvable = false;
      resolved_[&member] = target.value_or(0);
    }
  };
  for (const std::vector<Member>& group : fault.groups) resolve(group);
  resolve(fault.from);
  resolve(fault.to);
  return resolvable;
}

std::optional<int> Injector::Resolve(const NodeRef& ref) const {
  if (ref.leader) return parts_.recorder().CurrentLeader();
  if (!ref.follower) return ref.node;
  const std::optional<int> leader = parts_.recorder().CurrentLeader();
  for (int node = 1; node <= scenario_.nodes; ++node) {
    if (node != leader && parts_.world().state(HostOf(node)) != sim::HostState::kCrashed) return node;
  }
  return std::nullopt;
}

sim::HostId Injector::HostOfMember(const Member& member) const {
  switch (member.kind) {
    case Member::Kind::kStore: return parts_.store_host();
    case Member::Kind::kLedger: return parts_.ledger_host();
    case Member::Kind::kReplica: return parts_.replicated()->HostOfReplica(resolved_.at(&member));
    case Member::Kind::kNode: return HostOf(resolved_.at(&member));
  }
  return parts_.store_host();
}

void Injector::NoteIfClusterDown() {
  if (cluster_down_) return;
  for (int node = 1; node <= scenario_.nodes; ++node) {
    if (world().state(HostOf(node)) != sim::HostState::kCrashed) return;
  }
  recorder().AddFault(checker::FaultRecord{.kind = "cluster_down",
                                           .start_ns = world().now(),
                                           .end_ns = scenario_.duration,
                                           .description = "every node process is down"});
  cluster_down_ = recorder().LastFaultIndex();
}

void Injector::NoteRestarted(int node) {
  if (cluster_down_ && world().running(HostOf(node))) {
    recorder().SetFaultEnd(*cluster_down_, world().now());
    cluster_down_.reset();
  }
}

void Injector::NoteReplicasChanged() {
  ReplicatedRun* run = parts_.replicated();
  if (run == nullptr || run->store() == nullptr) return;
  const int replicas = run->store()->replicas();
  int crashed = 0;
  for (int replica = 1; replica <= replicas; ++replica) {
    if (world().state(run->HostOfReplica(replica)) == sim::HostState::kCrashed) ++crashed;
  }
  const bool lost = 2 * crashed >= replicas + 1;  // no majority left up
  if (lost && !quorum_lost_) {
    recorder().AddFault(checker::FaultRecord{.kind = "store_quorum_lost",
                                             .start_ns = world().now(),
                                             .end_ns = scenario_.duration,
                                             .description = std::to_string(crashed) + " of " +
                                                            std::to_string(replicas) +
                                                            " store replicas are down: no quorum"});
    quorum_lost_ = recorder().LastFaultIndex();
  }
  if (!lost && quorum_lost_) {
    recorder().SetFaultEnd(*quorum_lost_, world().now());
    quorum_lost_.reset();
  }
}

Nanos Injector::StepWallClock(int node, Nanos step) {
  world().StepWall(HostOf(node), step);
  wall_offset_[node] += step;
  return wall_offset_[node];
}

void Injector::LogUnstruck() {
  for (const Armed& armed : armed_) {
    const Fault& fault = *armed.fault;
    std::string why = "did not reach " + fault.at_point;
    if (fault.lease_remaining_below > 0) {
      why += " with under " + std::to_string(fault.lease_remaining_below / sim::kNanosPerMilli) + " ms of lease left";
    }
    if (fault.arrival > 1) {
      why += " " + std::to_string(fault.arrival) + " times (" + std::to_string(armed.arrivals) + " after arming)";
    }
    recorder().AddFault(checker::FaultRecord{
        .kind = FaultKindName(fault.kind),
        .nodes = {armed.node},
        .start_ns = world().now(),
        .end_ns = world().now(),
        .description = "never struck: node " + std::to_string(armed.node) + " " + why});
  }
}

}  // namespace leasesim::runner
