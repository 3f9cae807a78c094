#include "runner/scenario_parser.h"

#include "core/fault_points.h"
#include "runner/replicated_parse.h"
#include "runner/nemesis.h"
#include "zoo/variants.h"

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

namespace leasesim::runner {
namespace {

using Json = nlohmann::json;

constexpr int kNodesMax = 64;
constexpr std::int64_t kDurationMsMax = 100LL * 24 * 3600 * 1000;  // 100 days
constexpr std::size_t kFaultsMax = 10'000;
constexpr std::size_t kScenariosMax = 10'000;

struct Failure {
  std::string path;
  std::string rule;
};

// Walks one JSON object, remembering which fields were read so that any
// field left over is reported as unknown rather than silently ignored.
class ObjectReader {
 public:
  ObjectReader(const Json& json, std::string path) : json_(json), path_(std::move(path)) {
    if (!json_.is_object()) throw Failure{path_, "must be an object"};
  }

  bool Has(const std::string& key) const { return json_.contains(key); }
  std::string PathOf(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const Json& Field(const std::string& key) {
    if (!json_.contains(key)) throw Failure{PathOf(key), "is required"};
    read_.insert(key);
    return json_.at(key);
  }

  std::string String(const std::string& key) {
    const Json& value = Field(key);
    if (!value.is_string()) throw Failure{PathOf(key), "must be a string"};
    return value.get<std::string>();
  }

  std::int64_t Integer(const std::string& key, std::int64_t min, std::int64_t max) {
    const Json& value = Field(key);
    if (!value.is_number_integer()) throw Failure{PathOf(key), "must be an integer"};
    const std::int64_t n = value.get<std::int64_t>();
    if (n < min || n > max) {
      throw Failure{PathOf(key), "must be in [" + std::to_string(min) + ", " + std::to_string(max) +
                                     "] (got " + std::to_string(n) + ")"};
    }
    return n;
  }

  std::int64_t IntegerOr(const std::string& key, std::int64_t min, std::int64_t max, std::int64_t fallback) {
    return Has(key) ? Integer(key, min, max) : fallback;
  }

  Nanos Millis(const std::string& key, std::int64_t min_ms) {
    return Integer(key, min_ms, kDurationMsMax) * sim::kNanosPerMilli;
  }

  // A probability written as a decimal in [0, 1], kept as parts per million.
  std::uint32_t Probability(const std::string& key) {
    const Json& value = Field(key);
    if (!value.is_number()) throw Failure{PathOf(key), "must be a number in [0, 1]"};
    const double p = value.get<double>();
    if (!(p >= 0.0 && p <= 1.0)) throw Failure{PathOf(key), "must be a probability in [0, 1]"};
    return static_cast<std::uint32_t>(std::llround(p * 1'000'000.0));
  }

  const Json& Array(const std::string& key) {
    const Json& value = Field(key);
    if (!value.is_array()) throw Failure{PathOf(key), "must be an array"};
    return value;
  }

  void Finish() const {
    for (auto it = json_.begin(); it != json_.end(); ++it) {
      if (!read_.contains(it.key())) throw Failure{PathOf(it.key()), "is not a known field"};
    }
  }

 private:
  const Json& json_;
  std::string path_;
  std::set<std::string> read_;
};

sim::LatencyModel ParseLatency(ObjectReader& parent, const std::string& key) {
  ObjectReader reader(parent.Field(key), parent.PathOf(key));
  sim::LatencyModel model;
  model.base_ns = reader.Millis("base", 0);
  model.jitter_ns = reader.Millis("jitter", 0);
  if (reader.Has("tail_p") != reader.Has("tail")) {
    throw Failure{parent.PathOf(key), "tail_p and tail must be given together"};
  }
  if (reader.Has("tail_p")) {
    model.tail_ppm = reader.Probability("tail_p");
    model.tail_ns = reader.Millis("tail", 0);
  }
  reader.Finish();
  return model;
}

NodeRef ParseNodeRef(const Json& value, const std::string& path, int nodes) {
  if (value.is_string()) {
    if (value.get<std::string>() == "leader") return NodeRef{.leader = true};
    if (value.get<std::string>() == "follower") return NodeRef{.follower = true};
    throw Failure{path, "must be a node number, \"leader\" or \"follower\""};
  }
  if (!value.is_number_integer()) throw Failure{path, "must be a node number, \"leader\" or \"follower\""};
  const std::int64_t node = value.get<std::int64_t>();
  if (node < 1 || node > nodes) {
    throw Failure{path, "names node " + std::to_string(node) + ", but the scenario has nodes 1.." +
                            std::to_string(nodes)};
  }
  return NodeRef{.leader = false, .node = static_cast<int>(node)};
}

Member ParseMember(const Json& item, const std::string& path, int nodes) {
  Member member;
  if (item.is_string() && item.get<std::string>() == "store") {
    member.kind = Member::Kind::kStore;
  } else if (item.is_string() && item.get<std::string>() == "ledger") {
    member.kind = Member::Kind::kLedger;
  } else if (const std::optional<Member> replica = ParseReplicaMember(item)) {
    member = *replica;  // "r1".., "store_leader": checked against the store in ValidateReplicated
  } else {
    member.node = ParseNodeRef(item, path, nodes);
  }
  return member;
}

std::vector<Member> ParseMembers(ObjectReader& reader, const std::string& key, int nodes) {
  const Json& list = reader.Array(key);
  if (list.empty()) throw Failure{reader.PathOf(key), "must not be empty"};
  std::vector<Member> members;
  for (std::size_t i = 0; i < list.size(); ++i) {
    members.push_back(ParseMember(list[i], reader.PathOf(key) + "[" + std::to_string(i) + "]", nodes));
  }
  return members;
}

Fault ParseFault(const Json& json, const std::string& path, const Scenario& scenario) {
  ObjectReader reader(json, path);
  Fault fault;
  fault.at = reader.Millis("at_ms", 0);
  if (fault.at > scenario.duration) {
    throw Failure{reader.PathOf("at_ms"), "must not be after the scenario's duration_ms"};
  }
  const std::string kind = reader.String("kind");
  auto node = [&] { fault.node = ParseNodeRef(reader.Field("node"), reader.PathOf("node"), scenario.nodes); };
  auto duration = [&] { fault.duration = reader.Millis("duration_ms", 1); };
  if (kind == "crash") {
    fault.kind = FaultKind::kCrash;
    node();
  } else if (kind == "restart") {
    fault.kind = FaultKind::kRestart;
    node();
    if (fault.node.is_role()) throw Failure{reader.PathOf("node"), "a restart must name a node number"};
  } else if (kind == "pause") {
    fault.kind = FaultKind::kPause;
    node();
    duration();
  } else if (kind == "suspend") {
    fault.kind = FaultKind::kSuspend;
    node();
    duration();
  } else if (kind == "partition") {
    fault.kind = FaultKind::kPartition;
    duration();
    const Json& groups = reader.Array("groups");
    if (groups.size() < 2) throw Failure{reader.PathOf("groups"), "needs at least two groups"};
    std::set<std::string> seen;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::string group_path = reader.PathOf("groups") + "[" + std::to_string(g) + "]";
      if (!groups[g].is_array() || groups[g].empty()) throw Failure{group_path, "must be a non-empty array"};
      std::vector<Member> members;
      for (std::size_t m = 0; m < groups[g].size(); ++m) {
        const Json& item = groups[g][m];
        const std::string item_path = group_path + "[" + std::to_string(m) + "]";
        const Member member = ParseMember(item, item_path, scenario.nodes);
        const std::string id = item.dump();
        if (!seen.insert(id).second) throw Failure{item_path, "appears in more than one group"};
        members.push_back(member);
      }
      fault.groups.push_back(std::move(members));
    }
  } else if (kind == "clock_drift") {
    fault.kind = FaultKind::kClockDrift;
    node();
    fault.drift_ppm = reader.Integer("drift_ppm", -500'000, 500'000);
  } else if (kind == "clock_step") {
    fault.kind = FaultKind::kClockStep;
    node();
    fault.step = reader.Integer("step_ms", -kDurationMsMax, kDurationMsMax) * sim::kNanosPerMilli;
  } else if (kind == "partition_oneway" || kind == "clog") {
    fault.kind = kind == "clog" ? FaultKind::kClog : FaultKind::kPartitionOneWay;
    duration();
    fault.from = ParseMembers(reader, "from", scenario.nodes);
    fault.to = ParseMembers(reader, "to", scenario.nodes);
  } else if (kind == "isolate") {
    fault.kind = FaultKind::kIsolate;
    node();
    duration();
  } else if (kind == "isolate_from_store") {
    fault.kind = FaultKind::kIsolateFromStore;
    node();
    duration();
  } else if (kind == "store_outage") {
    fault.kind = FaultKind::kStoreOutage;
    duration();
    const std::string mode = reader.String("mode");
    if (mode == "unavailable") {
      fault.outage = backends::StoreOutage::kUnavailable;
    } else if (mode == "blackhole") {
      fault.outage = backends::StoreOutage::kBlackhole;
    } else {
      throw Failure{reader.PathOf("mode"), "must be \"unavailable\" (requests rejected) or \"blackhole\" (never answered)"};
    }
  } else if (kind == "store_latency") {
    fault.kind = FaultKind::kStoreLatency;
    duration();
    fault.extra = reader.Millis("extra_ms", 1);
  } else if (kind == "shutdown") {
    fault.kind = FaultKind::kShutdown;
    node();
    if (reader.Has("successor")) {
      const NodeRef ref = ParseNodeRef(reader.Field("successor"), reader.PathOf("successor"), scenario.nodes);
      if (ref.is_role()) throw Failure{reader.PathOf("successor"), "must be a node number"};
      fault.successor = ref.node;
    }
  } else if (std::vector<std::string> read; ParseReplicatedFault(kind, json, path, scenario, fault, read)) {
    for (const std::string& key : read) reader.Field(key);
  } else {
    throw Failure{reader.PathOf("kind"),
                  "unknown fault kind \"" + kind +
                      "\" (known: crash, restart, pause, suspend, partition, partition_oneway, "
                      "isolate, isolate_from_store, clog, clock_drift, clock_step, store_outage, store_latency, shutdown, "
                      "replica_crash, replica_restart, replica_pause, isolate_region)"};
  }
  if (reader.Has("at_point")) {
    if (fault.kind != FaultKind::kPause && fault.kind != FaultKind::kSuspend && fault.kind != FaultKind::kCrash &&
        fault.kind != FaultKind::kReplicaCrash) {
      throw Failure{reader.PathOf("at_point"), "only pause, suspend and crash can strike at a fault point"};
    }
    fault.at_point = reader.String("at_point");
    bool known = false;
    std::string names;
    for (std::string_view point : core::fault_points::kAll) {
      known = known || point == fault.at_point;
      names += (names.empty() ? "" : ", ") + std::string(point);
    }
    if (!known) throw Failure{reader.PathOf("at_point"), "unknown fault point \"" + fault.at_point + "\" (known: " + names + ")"};
  }
  reader.Finish();
  return fault;
}

// "all", or a list of named fault points.
std::vector<std::string> ParseFaultPointList(ObjectReader& reader, const std::string& key) {
  const Json& value = reader.Field(key);
  std::vector<std::string> points;
  std::string names;
  for (std::string_view point : core::fault_points::kAll) names += (names.empty() ? "" : ", ") + std::string(point);
  if (value.is_string() && value.get<std::string>() == "all") {
    for (std::string_view point : core::fault_points::kAll) points.emplace_back(point);
    return points;
  }
  if (!value.is_array()) throw Failure{reader.PathOf(key), "must be \"all\" or a list of fault points (" + names + ")"};
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string path = reader.PathOf(key) + "[" + std::to_string(i) + "]";
    if (!value[i].is_string()) throw Failure{path, "must be a fault point name"};
    const std::string point = value[i].get<std::string>();
    bool known = false;
    for (std::string_view p : core::fault_points::kAll) known = known || p == point;
    if (!known) throw Failure{path, "unknown fault point \"" + point + "\" (known: " + names + ")"};
    points.push_back(point);
  }
  return points;
}

NemesisConfig ParseNemesis(ObjectReader& parent, const Scenario& scenario) {
  ObjectReader reader(parent.Field("nemesis"), parent.PathOf("nemesis"));
  NemesisConfig nemesis;
  nemesis.enabled = true;
  nemesis.faults_max = static_cast<int>(reader.IntegerOr("faults_max", 1, 100, nemesis.faults_max));
  if (reader.Has("within_assumptions")) {
    const Json& within = reader.Field("within_assumptions");
    if (!within.is_boolean()) throw Failure{reader.PathOf("within_assumptions"), "must be true or false"};
    nemesis.within_assumptions = within.get<bool>();
  }
  if (reader.Has("kinds")) {
    const Json& kinds = reader.Array("kinds");
    std::string names;
    for (std::string_view kind : NemesisKinds()) names += (names.empty() ? "" : ", ") + std::string(kind);
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      const std::string path = reader.PathOf("kinds") + "[" + std::to_string(i) + "]";
      if (!kinds[i].is_string()) throw Failure{path, "must be a fault kind"};
      const std::string kind = kinds[i].get<std::string>();
      bool known = false;
      for (std::string_view k : NemesisKinds()) known = known || k == kind;
      if (!known) throw Failure{path, "the nemesis does not generate \"" + kind + "\" (known: " + names + ")"};
      nemesis.kinds.push_back(kind);
    }
    if (nemesis.kinds.empty()) throw Failure{reader.PathOf("kinds"), "must not be empty"};
  }
  if (reader.Has("swarm")) {
    const Json& swarm = reader.Field("swarm");
    if (!swarm.is_boolean()) throw Failure{reader.PathOf("swarm"), "must be true or false"};
    nemesis.swarm = swarm.get<bool>();
  }
  if (reader.Has("points")) nemesis.points = ParseFaultPointList(reader, "points");
  if (reader.Has("from_ms")) nemesis.from = reader.Millis("from_ms", 0);
  if (reader.Has("until_ms")) nemesis.until = reader.Millis("until_ms", 0);
  if (nemesis.from > scenario.duration || nemesis.until > scenario.duration) {
    throw Failure{parent.PathOf("nemesis"), "from_ms and until_ms must lie within the scenario's duration_ms"};
  }
  if (nemesis.until != 0 && nemesis.until < nemesis.from) {
    throw Failure{reader.PathOf("until_ms"), "must not be before from_ms"};
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

Scenario ParseScenario(const Json& json, const std::string& path) {
  ObjectReader reader(json, path);
  Scenario scenario;
  scenario.name = reader.String("name");
  if (scenario.name.empty()) throw Failure{reader.PathOf("name"), "must not be empty"};
  for (char c : scenario.name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      throw Failure{reader.PathOf("name"), "may hold only letters, digits, '-', '_' and '.'"};
    }
  }
  if (reader.Has("description")) scenario.description = reader.String("description");
  scenario.nodes = static_cast<int>(reader.Integer("nodes", 1, kNodesMax));
  scenario.duration = reader.Millis("duration_ms", 1);

  {
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
    const std::vector<core::TimingError> errors = core::ValidateTiming(t);
    if (!errors.empty()) {
      throw Failure{lease.PathOf(TimingFieldNames().at(errors.front().field)), errors.front().rule};
    }
    if (lease.Has("by_node")) {
      // Per-node overrides of the lease timing (e.g. a node with a longer lease).
      const Json& list = lease.Array("by_node");
      std::set<int> seen;
      for (std::size_t i = 0; i < list.size(); ++i) {
        ObjectReader item(list[i], lease.PathOf("by_node") + "[" + std::to_string(i) + "]");
        const NodeRef ref = ParseNodeRef(item.Field("node"), item.PathOf("node"), scenario.nodes);
        if (ref.is_role()) throw Failure{item.PathOf("node"), "by_node names node numbers"};
        if (!seen.insert(ref.node).second) throw Failure{item.PathOf("node"), "node set twice"};
        NodeTiming node{ref.node, t};
        if (item.Has("duration_ms")) node.timing.lease_duration = item.Millis("duration_ms", 1);
        if (item.Has("renew_interval_ms")) node.timing.renew_interval = item.Millis("renew_interval_ms", 1);
        if (item.Has("renew_deadline_ms")) node.timing.renew_deadline = item.Millis("renew_deadline_ms", 1);
        if (item.Has("retry_ms")) node.timing.retry = item.Millis("retry_ms", 1);
        item.Finish();
        const std::vector<core::TimingError> node_errors = core::ValidateTiming(node.timing);
        if (!node_errors.empty()) {
          throw Failure{item.PathOf(TimingFieldNames().at(node_errors.front().field)), node_errors.front().rule};
        }
        scenario.timing_by_node.push_back(node);
      }
    }
    lease.Finish();
  }
  {
    ObjectReader settlement(reader.Field("settlement"), reader.PathOf("settlement"));
    scenario.settlement_period = settlement.Millis("period_ms", 1);
    scenario.batch_items = static_cast<int>(settlement.Integer("batch_items", 1, 10'000));
    const std::int64_t default_poll_ms = std::max<std::int64_t>(1, scenario.settlement_period / sim::kNanosPerMilli / 10);
    scenario.settlement_poll = settlement.IntegerOr("poll_ms", 1, kDurationMsMax, default_poll_ms) * sim::kNanosPerMilli;
    settlement.Finish();
  }
  if (reader.Has("regions")) ParseRegions(reader.Field("regions"), reader.PathOf("regions"), scenario);
  {
    ObjectReader store(reader.Field("store"), reader.PathOf("store"));
    scenario.store_kind = store.String("kind");
    if (scenario.store_kind == "stale_reads") {
      scenario.store.stale_read_ppm = store.Probability("stale_read_p");
      scenario.store.stale_lag_ns_max = store.Millis("stale_lag_ms", 0);
    } else if (scenario.store_kind == "replicated") {
      for (const std::string& key : ParseReplicatedStore(reader.Field("store"), reader.PathOf("store"), scenario)) {
        store.Field(key);
      }
    } else if (scenario.store_kind != "linearizable") {
      throw Failure{store.PathOf("kind"), "unknown store kind \"" + scenario.store_kind +
                                              "\" (known: linearizable, stale_reads, replicated)"};
    }
    scenario.store.service = ParseLatency(store, "latency_ms");
    store.Finish();
  }
  {
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
  if (reader.Has("clocks")) {
    const Json& clocks = reader.Array("clocks");
    std::set<int> seen;
    for (std::size_t i = 0; i < clocks.size(); ++i) {
      const std::string item_path = reader.PathOf("clocks") + "[" + std::to_string(i) + "]";
      ObjectReader clock(clocks[i], item_path);
      ClockSetting setting;
      const NodeRef ref = ParseNodeRef(clock.Field("node"), clock.PathOf("node"), scenario.nodes);
      if (ref.is_role()) throw Failure{clock.PathOf("node"), "clocks name node numbers"};
      setting.node = ref.node;
      if (!seen.insert(setting.node).second) throw Failure{clock.PathOf("node"), "node set twice"};
      setting.drift_ppm = clock.IntegerOr("drift_ppm", -500'000, 500'000, 0);
      setting.wall_offset = clock.IntegerOr("wall_offset_ms", -kDurationMsMax, kDurationMsMax, 0) * sim::kNanosPerMilli;
      clock.Finish();
      scenario.clocks.push_back(setting);
    }
  }
  if (reader.Has("faults")) {
    const Json& faults = reader.Array("faults");
    if (faults.size() > kFaultsMax) throw Failure{reader.PathOf("faults"), "has more than 10000 faults"};
    for (std::size_t i = 0; i < faults.size(); ++i) {
      scenario.faults.push_back(
          ParseFault(faults[i], reader.PathOf("faults") + "[" + std::to_string(i) + "]", scenario));
    }
  }
  if (reader.Has("variant")) {
    const std::string name = reader.String("variant");
    if (zoo::FindVariant(name) == nullptr) {
      throw Failure{reader.PathOf("variant"),
                    "unknown protocol variant \"" + name + "\" (known: " + zoo::VariantNames() + ")"};
    }
    scenario.variant = name;
  }
  if (reader.Has("nemesis")) scenario.nemesis = ParseNemesis(reader, scenario);
  if (reader.Has("expect")) {
    ObjectReader expect(reader.Field("expect"), reader.PathOf("expect"));
    if (expect.Has("fault_points")) scenario.expect_fault_points = ParseFaultPointList(expect, "fault_points");
    const Json& violations = expect.Has("violations") || !expect.Has("fault_points") ? expect.Array("violations") : Json::array();
    for (std::size_t i = 0; i < violations.size(); ++i) {
      if (!violations[i].is_string()) {
        throw Failure{expect.PathOf("violations") + "[" + std::to_string(i) + "]", "must be a violation kind"};
      }
      scenario.expect_violations.push_back(violations[i].get<std::string>());
    }
    if (expect.Has("recovery_ms_max")) scenario.recovery_bound = expect.Millis("recovery_ms_max", 1);
    expect.Finish();
  }
  ValidateReplicated(scenario, path);
  reader.Finish();
  return scenario;
}

std::pair<int, int> LineAndColumn(const std::string& text, std::size_t byte) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace

std::variant<ScenarioFile, ParseError> ParseScenarioText(const std::string& path, const std::string& text) {
  Json json;
  try {
    // Duplicate keys would silently drop what the user wrote first: refuse them.
    std::vector<std::set<std::string>> keys_by_depth;
    std::string duplicate;
    Json::parser_callback_t reject_duplicates = [&](int, Json::parse_event_t event, Json& parsed) {
      if (event == Json::parse_event_t::object_start) keys_by_depth.emplace_back();
      if (event == Json::parse_event_t::object_end && !keys_by_depth.empty()) keys_by_depth.pop_back();
      if (event == Json::parse_event_t::key && !keys_by_depth.empty()) {
        const std::string key = parsed.get<std::string>();
        if (!keys_by_depth.back().insert(key).second && duplicate.empty()) duplicate = key;
      }
      return true;
    };
    json = Json::parse(text, reject_duplicates);
    if (!duplicate.empty()) {
      return ParseError{path + ": field \"" + duplicate + "\" appears twice in one object"};
    }
  } catch (const Json::parse_error& error) {
    const auto [line, column] = LineAndColumn(text, error.byte == 0 ? 0 : error.byte - 1);
    return ParseError{path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                      ": not valid JSON: " + error.what()};
  }
  try {
    ObjectReader top(json, "");
    ScenarioFile file;
    file.path = path;
    const Json& scenarios = top.Array("scenarios");
    if (scenarios.empty()) throw Failure{"scenarios", "must hold at least one scenario"};
    if (scenarios.size() > kScenariosMax) throw Failure{"scenarios", "holds too many scenarios"};
    std::set<std::string> names;
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
      const std::string item_path = "scenarios[" + std::to_string(i) + "]";
      Scenario scenario = ParseScenario(scenarios[i], item_path);
      if (!names.insert(scenario.name).second) {
        throw Failure{item_path + ".name", "\"" + scenario.name + "\" is used by an earlier scenario"};
      }
      file.scenarios.push_back(std::move(scenario));
    }
    if (top.Has("require_fault_points")) file.require_fault_points = ParseFaultPointList(top, "require_fault_points");
    top.Finish();
    return file;
  } catch (const Failure& failure) {
    return ParseError{path + ": " + failure.path + ": " + failure.rule};
  } catch (const SpecError& failure) {  // regions and the replicated store (runner/replicated_parse.h)
    return ParseError{path + ": " + failure.path + ": " + failure.rule};
  } catch (const Json::exception& error) {
    return ParseError{path + ": " + error.what()};
  }
}

std::variant<ScenarioFile, ParseError> LoadScenarioFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ParseError{path + ": cannot be read"};
  std::ostringstream text;
  text << in.rdbuf();
  return ParseScenarioText(path, text.str());
}

}  // namespace leasesim::runner
