#include "runner/scenario_parser.h"

#include "base/sha256.h"
#include "base/strict_json.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/fault_fields.h"
#include "runner/fault_parse.h"
#include "runner/nemesis.h"
#include "runner/protocol_stores.h"
#include "runner/replicated_parse.h"

namespace leasesim::runner {

using base::InputError;
using base::ObjectReader;
namespace {

using Json = nlohmann::json;

constexpr int kNodesMax = 64;
constexpr std::size_t kFaultsMax = 10'000;
constexpr int kKvServersMax = 16;  // Redlock uses 5; a bound keeps a typo from building thousands of hosts
constexpr std::size_t kScenariosMax = 10'000;

NemesisConfig ParseNemesis(ObjectReader& parent, const Scenario& scenario) {
  ObjectReader reader(parent.Field("nemesis"), parent.PathOf("nemesis"));
  NemesisConfig nemesis;
  nemesis.enabled = true;
  nemesis.faults_max = static_cast<int>(reader.IntegerOr("faults_max", 1, 100, nemesis.faults_max));
  if (reader.Has("within_assumptions")) nemesis.within_assumptions = reader.Bool("within_assumptions");
  if (reader.Has("kinds")) {
    const Json& kinds = reader.Array("kinds");
    std::string names;
    for (std::string_view kind : NemesisKinds()) names += (names.empty() ? "" : ", ") + std::string(kind);
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      const std::string path = reader.PathOf("kinds") + "[" + std::to_string(i) + "]";
      if (!kinds[i].is_string()) throw InputError{path, "must be a fault kind"};
      const std::string kind = kinds[i].get<std::string>();
      bool known = false;
      for (std::string_view k : NemesisKinds()) known = known || k == kind;
      if (!known) throw InputError{path, "the nemesis does not generate \"" + kind + "\" (known: " + names + ")"};
      nemesis.kinds.push_back(kind);
    }
    if (nemesis.kinds.empty()) throw InputError{reader.PathOf("kinds"), "must not be empty"};
  }
  if (reader.Has("swarm")) nemesis.swarm = reader.Bool("swarm");
  if (reader.Has("timed_strikes")) nemesis.timed_strikes = reader.Bool("timed_strikes");
  if (reader.Has("points")) nemesis.points = ParseFaultPointList(reader, "points");
  if (reader.Has("from_ms")) nemesis.from = reader.Millis("from_ms", 0);
  if (reader.Has("until_ms")) nemesis.until = reader.Millis("until_ms", 0);
  if (nemesis.from > scenario.duration || nemesis.until > scenario.duration) {
    throw InputError{parent.PathOf("nemesis"), "from_ms and until_ms must lie within the scenario's duration_ms"};
  }
  if (nemesis.until != 0 && nemesis.until < nemesis.from) {
    throw InputError{reader.PathOf("until_ms"), "must not be before from_ms"};
  }
  reader.Finish();
  return nemesis;
}

const std::map<std::string, std::string>& TimingFieldNames() {
  static const std::map<std::string, std::string> names = {
      {"lease_duration", "duration_ms"},     {"renew_interval", "renew_interval_ms"},
      {"renew_deadline", "renew_deadline_ms"}, {"retry", "retry_ms"},
      {"request_timeout", "request_timeout_ms"}, {"drift_bound_ppm", "drift_bound_ppm"},
      {"safety_margin", "safety_margin_ms"}, {"pause_budget", "pause_budget_ms"}};
  return names;
}

void ThrowIfUnsound(const ObjectReader& reader, const core::TimingConfig& timing) {
  const std::vector<core::TimingError> errors = core::ValidateTiming(timing);
  if (!errors.empty()) throw InputError{reader.PathOf(TimingFieldNames().at(errors.front().path)), errors.front().rule};
}

// lease.by_node: per-node overrides of the lease timing (e.g. a node with a longer lease).
void ParseTimingByNode(ObjectReader& lease, Scenario& scenario) {
  const Json& list = lease.Array("by_node");
  std::set<int> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    ObjectReader item(list[i], lease.PathOf("by_node") + "[" + std::to_string(i) + "]");
    const NodeRef ref = ParseNodeRef(item.Field("node"), item.PathOf("node"), scenario.nodes);
    if (ref.is_role()) throw InputError{item.PathOf("node"), "by_node names node numbers"};
    if (!seen.insert(ref.node).second) throw InputError{item.PathOf("node"), "node set twice"};
    NodeTiming node{ref.node, scenario.timing};
    if (item.Has("duration_ms")) node.timing.lease_duration = item.Millis("duration_ms", 1);
    if (item.Has("renew_interval_ms")) node.timing.renew_interval = item.Millis("renew_interval_ms", 1);
    if (item.Has("renew_deadline_ms")) node.timing.renew_deadline = item.Millis("renew_deadline_ms", 1);
    if (item.Has("retry_ms")) node.timing.retry = item.Millis("retry_ms", 1);
    item.Finish();
    ThrowIfUnsound(item, node.timing);
    scenario.timing_by_node.push_back(node);
  }
}

void ParseLease(ObjectReader& reader, Scenario& scenario) {
  ObjectReader lease(reader.Field("lease"), reader.PathOf("lease"));
  if (lease.Has("key")) scenario.lease_key = lease.String("key");
  core::TimingConfig& t = scenario.timing;
  t.lease_duration = lease.Millis("duration_ms", 1);
  t.renew_interval = lease.Millis("renew_interval_ms", 1);
  t.renew_deadline = lease.Millis("renew_deadline_ms", 1);
  t.retry = lease.Millis("retry_ms", 1);
  t.request_timeout = lease.Millis("request_timeout_ms", 1);
  t.drift_bound_ppm = lease.Integer("drift_bound_ppm", 0, 99'999);
  t.safety_margin = lease.Millis("safety_margin_ms", 0);
  t.pause_budget = lease.Has("pause_budget_ms") ? lease.Millis("pause_budget_ms", 0) : 0;
  ThrowIfUnsound(lease, t);
  if (lease.Has("by_node")) ParseTimingByNode(lease, scenario);
  lease.Finish();
}

void ParseSettlement(ObjectReader& reader, Scenario& scenario) {
  ObjectReader settlement(reader.Field("settlement"), reader.PathOf("settlement"));
  scenario.settlement_period = settlement.Millis("period_ms", 1);
  scenario.batch_items = static_cast<int>(settlement.Integer("batch_items", 1, 10'000));
  const std::int64_t default_poll_ms = std::max<std::int64_t>(1, scenario.settlement_period / sim::kNanosPerMilli / 10);
  scenario.settlement_poll = settlement.IntegerOr("poll_ms", 1, base::kMillisMax, default_poll_ms) * sim::kNanosPerMilli;
  settlement.Finish();
}

void ParseStore(ObjectReader& reader, Scenario& scenario) {
  ObjectReader store(reader.Field("store"), reader.PathOf("store"));
  scenario.store_kind = store.String("kind");
  if (scenario.store_kind == "stale_reads") {
    scenario.store.stale_read_ppm = store.Probability("stale_read_p");
    scenario.store.stale_lag_ns_max = store.Millis("stale_lag_ms", 0);
  } else if (scenario.store_kind == "replicated") {
    ParseReplicatedStore(store, scenario);
  } else if (scenario.store_kind != "linearizable") {
    throw InputError{store.PathOf("kind"), "unknown store kind \"" + scenario.store_kind +
                                            "\" (known: linearizable, stale_reads, replicated)"};
  }
  scenario.store.service = ParseLatency(store, "latency_ms");
  store.Finish("a " + scenario.store_kind + " store");
}

// "kv": {"replicated": true}: the one KV store is the scenario's replicated
// store (docs/SCENARIOS.md, "kv"). A single server's knobs do not apply:
// its TTLs are the replicated store's lessor's (etcd's).
void ParseReplicatedKv(ObjectReader& kv, Scenario& scenario) {
  if (!scenario.replicated.enabled) {
    throw InputError{kv.PathOf("replicated"), "needs \"store\": {\"kind\": \"replicated\"}, the store it puts the KV "
                                           "store on"};
  }
  if (kv.Has("servers") && kv.Integer("servers", 0, kKvServersMax) != 1) {
    throw InputError{kv.PathOf("servers"), "must be 1 with \"replicated\": the replicated store is one KV store"};
  }
  for (const char* knob : {"model", "ttl_clock", "expire_on_access", "expiry_period_ms", "lease_ttl_min_ms",
                           "lease_ttl_max_ms", "compaction_window", "latency_ms"}) {
    if (kv.Has(knob)) {
      throw InputError{kv.PathOf(knob), "is a single KV server's; with \"replicated\" the replicated store's "
                                     "settings (\"store\") apply"};
    }
  }
  scenario.kv.servers = 1;
  scenario.kv.replicated = true;
  kv.Finish();
}

// "kv": the KV store hosts (scenario.h KvSpec; docs/SCENARIOS.md).
void ParseKv(ObjectReader& reader, Scenario& scenario) {
  ObjectReader kv(reader.Field("kv"), reader.PathOf("kv"));
  if (kv.Has("replicated") && kv.Bool("replicated")) return ParseReplicatedKv(kv, scenario);
  KvSpec& spec = scenario.kv;
  spec.servers = static_cast<int>(kv.Integer("servers", 1, kKvServersMax));
  // "model" gives the real store's documented choices; the fields after it
  // override them one by one.
  core::KvStoreModel model = core::KvStoreModel::kEtcd;
  if (kv.Has("model") && !KvStoreModelNamed(kv.String("model"), model)) {
    throw InputError{kv.PathOf("model"), "must be \"etcd\", \"redis\" or \"zookeeper\""};
  }
  spec.server = KvServerOf(model, kv.Has("latency_ms") ? ParseLatency(kv, "latency_ms") : scenario.store.service);
  if (kv.Has("ttl_clock")) {
    const std::string clock = kv.String("ttl_clock");
    if (clock == "monotonic") {
      spec.server.ttl_clock = backends::KvTtlClock::kMonotonic;
    } else if (clock == "wall") {
      spec.server.ttl_clock = backends::KvTtlClock::kWall;
    } else {
      throw InputError{kv.PathOf("ttl_clock"), "must be \"monotonic\" (etcd, ZooKeeper) or \"wall\" (Redis)"};
    }
  }
  if (kv.Has("expire_on_access")) spec.server.expire_on_access = kv.Bool("expire_on_access");
  spec.server.expiry_period =
      kv.IntegerOr("expiry_period_ms", 1, 3'600'000, spec.server.expiry_period / sim::kNanosPerMilli) *
      sim::kNanosPerMilli;
  spec.server.lease_ttl_min =
      kv.IntegerOr("lease_ttl_min_ms", 0, 3'600'000, spec.server.lease_ttl_min / sim::kNanosPerMilli) *
      sim::kNanosPerMilli;
  spec.server.lease_ttl_max =
      kv.IntegerOr("lease_ttl_max_ms", 0, 3'600'000, spec.server.lease_ttl_max / sim::kNanosPerMilli) *
      sim::kNanosPerMilli;
  if (spec.server.lease_ttl_max > 0 && spec.server.lease_ttl_max < spec.server.lease_ttl_min) {
    throw InputError{kv.PathOf("lease_ttl_max_ms"), "must be 0 (no bound) or at least lease_ttl_min_ms"};
  }
  spec.server.state.history_revisions = kv.IntegerOr("compaction_window", 1, 1'000'000'000, 1000);
  kv.Finish();
}

void ParseNetwork(ObjectReader& reader, Scenario& scenario) {
  ObjectReader network(reader.Field("network"), reader.PathOf("network"));
  scenario.network.latency = ParseLatency(network, "latency_ms");
  if (network.Has("loss")) scenario.network.loss_ppm = network.Probability("loss");
  if (network.Has("duplicate")) scenario.network.duplicate_ppm = network.Probability("duplicate");
  if (network.Has("reorder")) {
    ObjectReader reorder(network.Field("reorder"), network.PathOf("reorder"));
    scenario.network.reorder_ppm = reorder.Probability("p");
    scenario.network.reorder_delay_ns_max = reorder.Millis("delay_ms", 0);
    reorder.Finish();
  }
  network.Finish();
}

void ParseClocks(ObjectReader& reader, Scenario& scenario) {
  const Json& clocks = reader.Array("clocks");
  std::set<int> seen;
  for (std::size_t i = 0; i < clocks.size(); ++i) {
    ObjectReader clock(clocks[i], reader.PathOf("clocks") + "[" + std::to_string(i) + "]");
    ClockSetting setting;
    const NodeRef ref = ParseNodeRef(clock.Field("node"), clock.PathOf("node"), scenario.nodes);
    if (ref.is_role()) throw InputError{clock.PathOf("node"), "clocks name node numbers"};
    setting.node = ref.node;
    if (!seen.insert(setting.node).second) throw InputError{clock.PathOf("node"), "node set twice"};
    setting.drift_ppm = clock.IntegerOr("drift_ppm", -500'000, 500'000, 0);
    setting.wall_offset = clock.IntegerOr("wall_offset_ms", -base::kMillisMax, base::kMillisMax, 0) * sim::kNanosPerMilli;
    if (clock.Has("ntp")) {
      ObjectReader ntp(clock.Field("ntp"), clock.PathOf("ntp"));
      setting.ntp.poll = ntp.Integer("poll_ms", 1, 3'600'000) * sim::kNanosPerMilli;
      setting.ntp.step_threshold = ntp.IntegerOr("step_threshold_ms", 1, 3'600'000, 128) * sim::kNanosPerMilli;
      ntp.Finish();
    }
    clock.Finish();
    scenario.clocks.push_back(setting);
  }
}

void ParseFaults(ObjectReader& reader, Scenario& scenario) {
  const Json& faults = reader.Array("faults");
  if (faults.size() > kFaultsMax) throw InputError{reader.PathOf("faults"), "has more than 10000 faults"};
  for (std::size_t i = 0; i < faults.size(); ++i) {
    scenario.faults.push_back(ParseFault(faults[i], reader.PathOf("faults") + "[" + std::to_string(i) + "]", scenario));
  }
}

void ParseExpect(ObjectReader& reader, Scenario& scenario) {
  ObjectReader expect(reader.Field("expect"), reader.PathOf("expect"));
  if (expect.Has("fault_points")) scenario.expect_fault_points = ParseFaultPointList(expect, "fault_points");
  const Json& violations = expect.Has("violations") || !expect.Has("fault_points") ? expect.Array("violations") : Json::array();
  for (std::size_t i = 0; i < violations.size(); ++i) {
    if (!violations[i].is_string()) {
      throw InputError{expect.PathOf("violations") + "[" + std::to_string(i) + "]", "must be a violation kind"};
    }
    scenario.expect_violations.push_back(violations[i].get<std::string>());
  }
  if (expect.Has("recovery_ms_max")) scenario.recovery_bound = expect.Millis("recovery_ms_max", 1);
  expect.Finish();
}

void ParseIdentity(ObjectReader& reader, Scenario& scenario) {
  scenario.name = reader.String("name");
  if (scenario.name.empty()) throw InputError{reader.PathOf("name"), "must not be empty"};
  for (char c : scenario.name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      throw InputError{reader.PathOf("name"), "may hold only letters, digits, '-', '_' and '.'"};
    }
  }
  if (reader.Has("description")) scenario.description = reader.String("description");
  scenario.nodes = static_cast<int>(reader.Integer("nodes", 1, kNodesMax));
  scenario.duration = reader.Millis("duration_ms", 1);
}

// "protocol": a registered protocol's name (core/protocol.h); "variant" is
// its older spelling, kept so that files written before it still run.
void ParseProtocol(ObjectReader& reader, Scenario& scenario) {
  if (reader.Has("protocol") && reader.Has("variant")) {
    throw InputError{reader.PathOf("variant"), "give \"protocol\" or its old name \"variant\", not both"};
  }
  const char* field = reader.Has("variant") ? "variant" : "protocol";
  if (!reader.Has(field)) {
    SetScenarioProtocol(scenario, core::Protocols().default_name());
    return;
  }
  const std::string name = reader.String(field);
  if (const std::string problem = core::Protocols().Find(name).error; !problem.empty()) {
    throw InputError{reader.PathOf(field), problem};
  }
  SetScenarioProtocol(scenario, name);
}

Scenario ParseScenario(const Json& json, const std::string& path) {
  ObjectReader reader(json, path);
  Scenario scenario;
  ParseIdentity(reader, scenario);
  ParseLease(reader, scenario);
  ParseSettlement(reader, scenario);
  if (reader.Has("regions")) ParseRegions(reader.Field("regions"), reader.PathOf("regions"), scenario);
  ParseStore(reader, scenario);
  if (reader.Has("kv")) ParseKv(reader, scenario);
  ParseProtocol(reader, scenario);  // after "kv" (its own stores win), before the faults that name them
  ParseNetwork(reader, scenario);
  if (reader.Has("clocks")) ParseClocks(reader, scenario);
  if (reader.Has("faults")) ParseFaults(reader, scenario);
  if (reader.Has("nemesis")) scenario.nemesis = ParseNemesis(reader, scenario);
  if (reader.Has("buggify")) scenario.buggify = ParseBuggify(reader);
  if (reader.Has("expect")) ParseExpect(reader, scenario);
  ValidateReplicated(scenario, path);
  reader.Finish();
  return scenario;
}

}  // namespace

std::variant<ScenarioFile, InputError> ParseScenarioText(const std::string& path, const std::string& text) {
  // The one strict reader (base/strict_json.h): not JSON, or a key repeated
  // in one object (which would silently drop what the user wrote first).
  std::variant<Json, InputError> parsed = base::ParseStrictJson(text);
  if (const InputError* error = std::get_if<InputError>(&parsed)) return *error;
  const Json json = std::get<Json>(std::move(parsed));
  try {
    ObjectReader top(json, "");
    ScenarioFile file;
    file.path = path;
    file.file_digest = base::Sha256Hex(text);
    const Json& scenarios = top.Array("scenarios");
    if (scenarios.empty()) throw InputError{"scenarios", "must hold at least one scenario"};
    if (scenarios.size() > kScenariosMax) throw InputError{"scenarios", "holds too many scenarios"};
    std::set<std::string> names;
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
      const std::string item_path = "scenarios[" + std::to_string(i) + "]";
      Scenario scenario = ParseScenario(scenarios[i], item_path);
      if (!names.insert(scenario.name).second) {
        throw InputError{item_path + ".name", "\"" + scenario.name + "\" is used by an earlier scenario"};
      }
      file.scenario_digests[scenario.name] = base::Sha256Hex(scenarios[i].dump());
      file.scenarios.push_back(std::move(scenario));
    }
    if (top.Has("require_fault_points")) file.require_fault_points = ParseFaultPointList(top, "require_fault_points");
    if (top.Has("require_probes")) file.require_probes = ParseProbeList(top, "require_probes");
    top.Finish();
    return file;
  } catch (const InputError& error) {
    return error;
  } catch (const Json::exception& error) {
    return InputError{"", error.what()};
  }
}

std::variant<ScenarioFile, InputError> LoadScenarioFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InputError{"", "cannot be read"};
  std::ostringstream text;
  text << in.rdbuf();
  return ParseScenarioText(path, text.str());
}

}  // namespace leasesim::runner
