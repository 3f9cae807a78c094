#include "fuzz/scenario_json.h"

#include <algorithm>

#include "base/units.h"
#include "runner/fault_catalogue.h"
#include "runner/fault_fields.h"

namespace leasesim::fuzz {
namespace {

using Json = nlohmann::json;
using runner::Nanos;

std::int64_t Ms(Nanos ns) { return ns / base::kNanosPerMilli; }
double Probability(std::uint32_t ppm) { return static_cast<double>(ppm) / base::kPpmOne; }

Json Latency(const sim::LatencyModel& model) {
  Json json = {{"base", Ms(model.base_ns)}, {"jitter", Ms(model.jitter_ns)}};
  if (model.tail_ppm > 0 || model.tail_ns > 0) {
    json["tail_p"] = Probability(model.tail_ppm);
    json["tail"] = Ms(model.tail_ns);
  }
  return json;
}

}  // namespace

// Every kind writes the fields its catalogue entry lists, then the arming
// fields: what runner/fault_parse.cc reads back.
Json FaultToJson(const runner::Fault& fault, const runner::Scenario& scenario) {
  const runner::FaultKindSpec& kind = runner::SpecOf(fault.kind);
  Json json = {{"at_ms", Ms(fault.at)}, {"kind", std::string(kind.name)}};
  for (runner::FaultField field : kind.fields) runner::FieldSpecOf(field).write(fault, scenario, json);
  runner::WriteArming(fault, kind, json);
  return json;
}

namespace {

Json LeaseJson(const runner::Scenario& s) {
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
  return lease;
}

// "regions", as runner/replicated_parse.cc reads it. Node placements are
// written only when complete (the reader wants one per node or none).
Json RegionsJson(const runner::RegionsSpec& regions) {
  const std::size_t n = regions.names.size();
  Json json = {{"names", regions.names}, {"within_ms", Latency(regions.matrix.at(0))}};
  Json between = Json::array();
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = a + 1; b < n; ++b) {
      between.push_back({{"regions", {regions.names[a], regions.names[b]}},
                         {"latency_ms", Latency(regions.matrix[a * n + b])}});
    }
  }
  if (!between.empty()) json["between"] = between;
  auto name = [&](int region) { return regions.names.at(static_cast<std::size_t>(region)); };
  const std::vector<int>& nodes = regions.node_region;
  if (!nodes.empty() && std::all_of(nodes.begin(), nodes.end(), [](int region) { return region >= 0; })) {
    Json list = Json::array();
    for (int region : nodes) list.push_back(name(region));
    json["nodes"] = list;
  }
  if (regions.ledger_region >= 0) json["ledger"] = name(regions.ledger_region);
  if (regions.store_region >= 0) json["store"] = name(regions.store_region);
  return json;
}

// The KV store hosts ("kv"), every field written (docs/SCENARIOS.md).
Json KvJson(const runner::KvSpec& kv) {
  if (kv.replicated) return Json{{"replicated", true}};
  return Json{{"servers", kv.servers},
              {"ttl_clock", kv.server.ttl_clock == backends::KvTtlClock::kWall ? "wall" : "monotonic"},
              {"expire_on_access", kv.server.expire_on_access},
              {"expiry_period_ms", Ms(kv.server.expiry_period)},
              {"lease_ttl_min_ms", Ms(kv.server.lease_ttl_min)},
              {"lease_ttl_max_ms", Ms(kv.server.lease_ttl_max)},
              {"compaction_window", kv.server.state.history_revisions},
              {"latency_ms", Latency(kv.server.service)}};
}

// The store: its kind, that kind's own fields, and its latency.
Json StoreJson(const runner::Scenario& s) {
  Json store = {{"kind", s.store_kind}, {"latency_ms", Latency(s.store.service)}};
  if (s.store_kind == "stale_reads") {
    store["stale_read_p"] = Probability(s.store.stale_read_ppm);
    store["stale_lag_ms"] = Ms(s.store.stale_lag_ns_max);
  }
  if (s.store_kind != "replicated") return store;
  const backends::ReplicatedStoreConfig& config = s.replicated.store;
  store["replicas"] = config.replicas;
  store["read_mode"] = config.read_mode == backends::ReadMode::kUnsafe ? "unsafe" : "linearizable";
  store["election_timeout_ms"] = {{"min", Ms(config.election_timeout_min)}, {"max", Ms(config.election_timeout_max)}};
  store["heartbeat_ms"] = Ms(config.heartbeat);
  store["client_attempt_timeout_ms"] = Ms(config.client_attempt_timeout);
  if (config.initial_leader > 0) store["initial_leader"] = config.initial_leader;
  if (!config.replica_region.empty()) {
    Json placement = Json::array();
    for (int region : config.replica_region) {
      placement.push_back(s.replicated.regions.names.at(static_cast<std::size_t>(region)));
    }
    store["placement"] = placement;
  }
  return store;
}

// The fault script and what generates or adds to it: nemesis, buggify.
void AddFaultsJson(const runner::Scenario& s, Json& json) {
  if (!s.faults.empty()) {
    Json faults = Json::array();
    for (const runner::Fault& fault : s.faults) faults.push_back(FaultToJson(fault, s));
    json["faults"] = faults;
  }
  if (s.nemesis.enabled) {
    Json nemesis = {{"faults_max", s.nemesis.faults_max}, {"within_assumptions", s.nemesis.within_assumptions}};
    if (!s.nemesis.kinds.empty()) nemesis["kinds"] = s.nemesis.kinds;
    if (!s.nemesis.swarm) nemesis["swarm"] = false;
    if (!s.nemesis.points.empty()) nemesis["points"] = s.nemesis.points;
    if (s.nemesis.from > 0) nemesis["from_ms"] = Ms(s.nemesis.from);
    if (s.nemesis.until > 0) nemesis["until_ms"] = Ms(s.nemesis.until);
    if (s.nemesis.timed_strikes) nemesis["timed_strikes"] = true;
    json["nemesis"] = nemesis;
  }
  if (s.buggify.probability_ppm > 0 || s.buggify.delay_max > 0) {
    json["buggify"] = {{"probability", Probability(s.buggify.probability_ppm)}, {"delay_ms_max", Ms(s.buggify.delay_max)}};
  }
}

}  // namespace

Json ScenarioToJson(const runner::Scenario& s) {
  Json json;
  json["name"] = s.name;
  if (!s.description.empty()) json["description"] = s.description;
  json["protocol"] = s.protocol;
  json["nodes"] = s.nodes;
  json["duration_ms"] = Ms(s.duration);
  json["lease"] = LeaseJson(s);
  json["settlement"] = {{"period_ms", Ms(s.settlement_period)},
                        {"batch_items", s.batch_items},
                        {"poll_ms", Ms(s.settlement_poll)}};
  if (s.replicated.regions.enabled()) json["regions"] = RegionsJson(s.replicated.regions);
  json["store"] = StoreJson(s);
  if (s.kv.servers > 0) json["kv"] = KvJson(s.kv);
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
      Json entry = {{"node", clock.node}, {"drift_ppm", clock.drift_ppm}, {"wall_offset_ms", Ms(clock.wall_offset)}};
      if (clock.ntp.poll > 0) {
        entry["ntp"] = {{"poll_ms", Ms(clock.ntp.poll)}, {"step_threshold_ms", Ms(clock.ntp.step_threshold)}};
      }
      clocks.push_back(entry);
    }
    json["clocks"] = clocks;
  }
  AddFaultsJson(s, json);
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
