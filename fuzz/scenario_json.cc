#include "fuzz/scenario_json.h"


namespace leasesim::fuzz {
namespace {

using Json = nlohmann::json;
using runner::Nanos;

std::int64_t Ms(Nanos ns) { return ns / sim::kNanosPerMilli; }
double Probability(std::uint32_t ppm) { return static_cast<double>(ppm) / 1'000'000.0; }

Json Latency(const sim::LatencyModel& model) {
  Json json = {{"base", Ms(model.base_ns)}, {"jitter", Ms(model.jitter_ns)}};
  if (model.tail_ppm > 0 || model.tail_ns > 0) {
    json["tail_p"] = Probability(model.tail_ppm);
    json["tail"] = Ms(model.tail_ns);
  }
  return json;
}

Json NodeRefJson(const runner::NodeRef& ref) {
  if (ref.leader) return "leader";
  if (ref.follower) return "follower";
  return ref.node;
}

Json MemberJson(const runner::Member& member) {
  switch (member.kind) {
    case runner::Member::Kind::kStore: return "store";
    case runner::Member::Kind::kLedger: return "ledger";
    case runner::Member::Kind::kNode: return NodeRefJson(member.node);
    default:  // replicated-store members: fuzz and the zoo never generate them
      return "r" + std::to_string(member.replica);
  }
}

Json Members(const std::vector<runner::Member>& members) {
  Json list = Json::array();
  for (const runner::Member& member : members) list.push_back(MemberJson(member));
  return list;
}

Json FaultJson(const runner::Fault& fault) {
  Json json = {{"at_ms", Ms(fault.at)}, {"kind", runner::FaultKindName(fault.kind)}};
  using runner::FaultKind;
  switch (fault.kind) {
    case FaultKind::kCrash:
    case FaultKind::kRestart:
      json["node"] = NodeRefJson(fault.node);
      break;
    case FaultKind::kPause:
    case FaultKind::kSuspend:
    case FaultKind::kIsolate:
    case FaultKind::kIsolateFromStore:
      json["node"] = NodeRefJson(fault.node);
      json["duration_ms"] = Ms(fault.duration);
      break;
    case FaultKind::kPartition: {
      json["duration_ms"] = Ms(fault.duration);
      Json groups = Json::array();
      for (const auto& group : fault.groups) groups.push_back(Members(group));
      json["groups"] = groups;
      break;
    }
    case FaultKind::kClockDrift:
      json["node"] = NodeRefJson(fault.node);
      json["drift_ppm"] = fault.drift_ppm;
      break;
    case FaultKind::kClockStep:
      json["node"] = NodeRefJson(fault.node);
      json["step_ms"] = Ms(fault.step);
      break;
    case FaultKind::kPartitionOneWay:
    case FaultKind::kClog:
      json["duration_ms"] = Ms(fault.duration);
      json["from"] = Members(fault.from);
      json["to"] = Members(fault.to);
      break;
    case FaultKind::kStoreOutage:
      json["duration_ms"] = Ms(fault.duration);
      json["mode"] = fault.outage == backends::StoreOutage::kBlackhole ? "blackhole" : "unavailable";
      break;
    case FaultKind::kStoreLatency:
      json["duration_ms"] = Ms(fault.duration);
      json["extra_ms"] = Ms(fault.extra);
      break;
    case FaultKind::kShutdown:
      json["node"] = NodeRefJson(fault.node);
      if (fault.successor != 0) json["successor"] = fault.successor;
      break;
    default:
      // Replicated-store faults (issue 8) are not written back yet: the
      // nemesis, fuzz and the zoo never generate them.
      break;
  }
  if (!fault.at_point.empty()) json["at_point"] = fault.at_point;
  return json;
}

}  // namespace

Json ScenarioToJson(const runner::Scenario& s) {
  Json json;
  json["name"] = s.name;
  if (!s.description.empty()) json["description"] = s.description;
  if (s.variant != "correct") json["variant"] = s.variant;
  json["nodes"] = s.nodes;
  json["duration_ms"] = Ms(s.duration);
  const core::TimingConfig& t = s.timing;
  Json lease = {{"duration_ms", Ms(t.lease_duration)},   {"renew_interval_ms", Ms(t.renew_interval)},
                {"renew_deadline_ms", Ms(t.renew_deadline)}, {"retry_ms", Ms(t.retry)},
                {"request_timeout_ms", Ms(t.request_timeout)}, {"drift_bound_ppm", t.drift_bound_ppm},
                {"safety_margin_ms", Ms(t.safety_margin)},  {"pause_budget_ms", Ms(t.pause_budget)}};
  if (s.lease_key != "settlement-job") lease["key"] = s.lease_key;
  if (!s.timing_by_node.empty()) {
    Json by_node = Json::array();
    for (const runner::NodeTiming& node : s.timing_by_node) {
      by_node.push_back({{"node", node.node},
                         {"duration_ms", Ms(node.timing.lease_duration)},
                         {"renew_interval_ms", Ms(node.timing.renew_interval)},
                         {"renew_deadline_ms", Ms(node.timing.renew_deadline)},
                         {"retry_ms", Ms(node.timing.retry)}});
    }
    lease["by_node"] = by_node;
  }
  json["lease"] = lease;
  json["settlement"] = {{"period_ms", Ms(s.settlement_period)},
                        {"batch_items", s.batch_items},
                        {"poll_ms", Ms(s.settlement_poll)}};
  Json store = {{"kind", s.store_kind}, {"latency_ms", Latency(s.store.service)}};
  if (s.store_kind == "stale_reads") {
    store["stale_read_p"] = Probability(s.store.stale_read_ppm);
    store["stale_lag_ms"] = Ms(s.store.stale_lag_ns_max);
  }
  json["store"] = store;
  Json network = {{"latency_ms", Latency(s.network.latency)}};
  if (s.network.loss_ppm > 0) network["loss"] = Probability(s.network.loss_ppm);
  if (s.network.duplicate_ppm > 0) network["duplicate"] = Probability(s.network.duplicate_ppm);
  if (s.network.reorder_ppm > 0 || s.network.reorder_delay_ns_max > 0) {
    network["reorder"] = {{"p", Probability(s.network.reorder_ppm)}, {"delay_ms", Ms(s.network.reorder_delay_ns_max)}};
  }
  json["network"] = network;
  if (!s.clocks.empty()) {
    Json clocks = Json::array();
    for (const runner::ClockSetting& clock : s.clocks) {
      clocks.push_back({{"node", clock.node}, {"drift_ppm", clock.drift_ppm}, {"wall_offset_ms", Ms(clock.wall_offset)}});
    }
    json["clocks"] = clocks;
  }
  if (!s.faults.empty()) {
    Json faults = Json::array();
    for (const runner::Fault& fault : s.faults) faults.push_back(FaultJson(fault));
    json["faults"] = faults;
  }
  if (s.nemesis.enabled) {
    Json nemesis = {{"faults_max", s.nemesis.faults_max}, {"within_assumptions", s.nemesis.within_assumptions}};
    if (!s.nemesis.kinds.empty()) nemesis["kinds"] = s.nemesis.kinds;
    if (!s.nemesis.swarm) nemesis["swarm"] = false;
    if (!s.nemesis.points.empty()) nemesis["points"] = s.nemesis.points;
    if (s.nemesis.from > 0) nemesis["from_ms"] = Ms(s.nemesis.from);
    if (s.nemesis.until > 0) nemesis["until_ms"] = Ms(s.nemesis.until);
    json["nemesis"] = nemesis;
  }
  Json expect = {{"violations", s.expect_violations}};
  if (s.recovery_bound > 0) expect["recovery_ms_max"] = Ms(s.recovery_bound);
  if (!s.expect_fault_points.empty()) expect["fault_points"] = s.expect_fault_points;
  json["expect"] = expect;
  return json;
}

std::string ScenarioFileText(const std::vector<runner::Scenario>& scenarios) {
  Json list = Json::array();
  for (const runner::Scenario& scenario : scenarios) list.push_back(ScenarioToJson(scenario));
  return Json{{"scenarios", list}}.dump(2) + "\n";
}

}  // namespace leasesim::fuzz
