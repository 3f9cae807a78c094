#include "fuzz/scenario_json.h"

#include "runner/fault_catalogue.h"
#include "runner/fault_fields.h"
#include "sim/time.h"

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

// Every kind writes the fields its catalogue entry lists, then the arming
// fields: what runner/fault_parse.cc reads back.
Json FaultJson(const runner::Fault& fault, const runner::Scenario& scenario) {
  const runner::FaultKindSpec& kind = runner::SpecOf(fault.kind);
  Json json = {{"at_ms", Ms(fault.at)}, {"kind", std::string(kind.name)}};
  for (runner::FaultField field : kind.fields) runner::FieldSpecOf(field).write(fault, scenario, json);
  runner::WriteArming(fault, kind, json);
  return json;
}

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

// The fault script and what generates or adds to it: nemesis, buggify.
void AddFaultsJson(const runner::Scenario& s, Json& json) {
  if (!s.faults.empty()) {
    Json faults = Json::array();
    for (const runner::Fault& fault : s.faults) faults.push_back(FaultJson(fault, s));
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
  if (s.variant != core::ProtocolVariant::kCorrect) json["variant"] = std::string(core::ProtocolVariantName(s.variant));
  json["nodes"] = s.nodes;
  json["duration_ms"] = Ms(s.duration);
  json["lease"] = LeaseJson(s);
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
