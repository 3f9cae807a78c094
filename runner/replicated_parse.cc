#include "runner/replicated_parse.h"

#include <nlohmann/json.hpp>

namespace leasesim::runner {
namespace {

using Json = nlohmann::json;
using base::InputError;
using base::ObjectReader;

constexpr int kReplicasMax = 7;
constexpr std::size_t kRegionsMax = 16;

int RegionIndex(const RegionsSpec& regions, const Json& value, const std::string& path) {
  if (!value.is_string()) throw InputError{path, "must be a region name"};
  const std::string name = value.get<std::string>();
  for (std::size_t i = 0; i < regions.names.size(); ++i) {
    if (regions.names[i] == name) return static_cast<int>(i);
  }
  if (regions.names.empty()) throw InputError{path, "names region \"" + name + "\", but the scenario has no \"regions\""};
  throw InputError{path, "names region \"" + name + "\", which \"regions.names\" does not list"};
}

// A replica reference: a number 1..N, "store_leader" or "store_follower".
int ParseReplicaRef(const Json& value, const std::string& path, bool roles_allowed) {
  const char* rule = roles_allowed ? "must be a replica number, \"store_leader\" or \"store_follower\""
                                   : "must be a replica number";
  if (value.is_string()) {
    const std::string name = value.get<std::string>();
    if (roles_allowed && name == "store_leader") return kStoreLeaderReplica;
    if (roles_allowed && name == "store_follower") return kStoreFollowerReplica;
    throw InputError{path, rule};
  }
  if (!value.is_number_integer()) throw InputError{path, rule};
  const std::int64_t n = value.get<std::int64_t>();
  if (n < 1 || n > kReplicasMax) throw InputError{path, "must be a replica number 1.." + std::to_string(kReplicasMax)};
  return static_cast<int>(n);
}

void ParseRegionNames(ObjectReader& fields, RegionsSpec& regions) {
  const std::string path = fields.PathOf("names");
  const Json& names = fields.Field("names");
  if (!names.is_array() || names.empty()) throw InputError{path, "must be a non-empty array of names"};
  if (names.size() > kRegionsMax) throw InputError{path, "holds more than 16 regions"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string item = base::IndexPath(path, i);
    if (!names[i].is_string() || names[i].get<std::string>().empty()) throw InputError{item, "must be a region name"};
    for (const std::string& earlier : regions.names) {
      if (earlier == names[i].get<std::string>()) throw InputError{item, "names a region twice"};
    }
    regions.names.push_back(names[i].get<std::string>());
  }
}

// "between": the latency of each pair of distinct regions, given once per pair.
void ParseBetween(ObjectReader& fields, RegionsSpec& regions, std::vector<bool>& set) {
  const std::size_t n = regions.names.size();
  const Json& between = fields.Array("between");
  for (std::size_t i = 0; i < between.size(); ++i) {
    const std::string item = base::IndexPath(fields.PathOf("between"), i);
    ObjectReader link(between[i], item);
    const Json& pair = link.Field("regions");
    if (!pair.is_array() || pair.size() != 2) throw InputError{link.PathOf("regions"), "must name two regions"};
    const int a = RegionIndex(regions, pair[0], link.PathOf("regions") + "[0]");
    const int b = RegionIndex(regions, pair[1], link.PathOf("regions") + "[1]");
    if (a == b) throw InputError{link.PathOf("regions"), "must name two different regions (within_ms is the latency inside one)"};
    const sim::LatencyModel latency = ParseLatency(link, "latency_ms");
    const std::size_t ab = static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b);
    const std::size_t ba = static_cast<std::size_t>(b) * n + static_cast<std::size_t>(a);
    if (set[ab]) {
      throw InputError{item, "gives the latency between " + regions.names[static_cast<std::size_t>(a)] + " and " +
                                regions.names[static_cast<std::size_t>(b)] + " twice"};
    }
    regions.matrix[ab] = latency;
    regions.matrix[ba] = latency;
    set[ab] = set[ba] = true;
    link.Finish();
  }
}

void ParseLatencyMatrix(ObjectReader& fields, RegionsSpec& regions) {
  const std::size_t n = regions.names.size();
  const sim::LatencyModel within = ParseLatency(fields, "within_ms");
  regions.matrix.assign(n * n, sim::LatencyModel{});
  std::vector<bool> set(n * n, false);
  for (std::size_t i = 0; i < n; ++i) {
    regions.matrix[i * n + i] = within;
    set[i * n + i] = true;
  }
  if (fields.Has("between")) ParseBetween(fields, regions, set);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (!set[a * n + b]) {
        throw InputError{fields.PathOf("between"), "gives no latency between " + regions.names[a] + " and " + regions.names[b]};
      }
    }
  }
}

void ParseReadMode(ObjectReader& fields, backends::ReplicatedStoreConfig& config) {
  const std::string mode = fields.String("read_mode");
  const std::optional<backends::ReadMode> parsed = backends::kReadModeNames.Parse(mode);
  if (!parsed) {
    throw InputError{fields.PathOf("read_mode"),
                    "must be \"linearizable\" (the leader confirms with a quorum) or \"unsafe\" (any replica answers "
                    "from its own state), got \"" + mode + "\""};
  }
  config.read_mode = *parsed;
}

void ParseElectionTimeout(ObjectReader& fields, backends::ReplicatedStoreConfig& config) {
  ObjectReader timeout = fields.Object("election_timeout_ms");
  config.election_timeout_min = timeout.Millis("min", 1);
  config.election_timeout_max = timeout.Millis("max", 1);
  if (config.election_timeout_max < config.election_timeout_min) throw InputError{timeout.PathOf("max"), "must not be below min"};
  timeout.Finish();
}

void CheckMembers(const std::vector<Member>& members, const ReplicatedSpec& spec, const std::string& where) {
  for (const Member& member : members) {
    if (member.kind == Member::Kind::kReplica) {
      if (!spec.enabled) throw InputError{where, "names a store replica, but the store is not of kind \"replicated\""};
      if (member.replica > spec.store.replicas) {
        throw InputError{where, "names replica r" + std::to_string(member.replica) + ", but the store has " +
                                   std::to_string(spec.store.replicas)};
      }
    }
    if (member.kind == Member::Kind::kStore && spec.enabled) {
      throw InputError{where, "names \"store\", but a replicated store has replicas: name them (\"r1\", ...) or \"store_leader\""};
    }
  }
}

}  // namespace

sim::LatencyModel ParseLatency(ObjectReader& parent, const std::string& key) {
  ObjectReader latency = parent.Object(key);
  sim::LatencyModel model;
  model.base_ns = latency.Millis("base", 0);
  model.jitter_ns = latency.MillisOr("jitter", 0, 0);
  if (latency.Has("tail_p") != latency.Has("tail")) throw InputError{parent.PathOf(key), "tail_p and tail must be given together"};
  if (latency.Has("tail_p")) {
    model.tail_ppm = latency.Probability("tail_p");
    model.tail_ns = latency.Millis("tail", 0);
  }
  latency.Finish();
  return model;
}

std::string ReplicaRefName(int replica) {
  if (replica == kStoreLeaderReplica) return "store_leader";
  if (replica == kStoreFollowerReplica) return "store_follower";
  return "r" + std::to_string(replica);
}

void ParseRegions(const Json& json, const std::string& path, Scenario& scenario) {
  ObjectReader fields(json, path);
  RegionsSpec& regions = scenario.replicated.regions;
  ParseRegionNames(fields, regions);
  ParseLatencyMatrix(fields, regions);
  regions.node_region.assign(static_cast<std::size_t>(scenario.nodes), -1);
  if (fields.Has("nodes")) {
    const Json& nodes = fields.Field("nodes");
    if (!nodes.is_array() || nodes.size() != static_cast<std::size_t>(scenario.nodes)) {
      throw InputError{fields.PathOf("nodes"), "must list one region per node (" + std::to_string(scenario.nodes) + ")"};
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      regions.node_region[i] = RegionIndex(regions, nodes[i], base::IndexPath(fields.PathOf("nodes"), i));
    }
  }
  if (fields.Has("ledger")) regions.ledger_region = RegionIndex(regions, fields.Field("ledger"), fields.PathOf("ledger"));
  if (fields.Has("store")) regions.store_region = RegionIndex(regions, fields.Field("store"), fields.PathOf("store"));
  fields.Finish();
}

void ParseReplicatedStore(ObjectReader& fields, Scenario& scenario) {
  ReplicatedSpec& spec = scenario.replicated;
  backends::ReplicatedStoreConfig& config = spec.store;
  spec.enabled = true;
  config.replicas = static_cast<int>(fields.Integer("replicas", 1, kReplicasMax));
  if (fields.Has("read_mode")) ParseReadMode(fields, config);
  if (fields.Has("election_timeout_ms")) ParseElectionTimeout(fields, config);
  config.heartbeat = fields.MillisOr("heartbeat_ms", 1, config.heartbeat);
  if (config.heartbeat >= config.election_timeout_min) {
    throw InputError{fields.PathOf("heartbeat_ms"), "must be below election_timeout_ms.min"};
  }
  config.client_attempt_timeout = fields.MillisOr("client_attempt_timeout_ms", 1, config.client_attempt_timeout);
  if (fields.Has("initial_leader")) config.initial_leader = static_cast<int>(fields.Integer("initial_leader", 1, config.replicas));
  if (fields.Has("placement")) {
    const Json& placement = fields.Field("placement");
    if (!placement.is_array() || placement.size() != static_cast<std::size_t>(config.replicas)) {
      throw InputError{fields.PathOf("placement"), "must list one region per replica (" + std::to_string(config.replicas) + ")"};
    }
    for (std::size_t i = 0; i < placement.size(); ++i) {
      config.replica_region.push_back(RegionIndex(spec.regions, placement[i], base::IndexPath(fields.PathOf("placement"), i)));
    }
  }
}

void ParseReplicaField(ObjectReader& reader, bool roles, const Scenario& scenario, Fault& fault) {
  if (!scenario.replicated.enabled) {
    throw InputError{reader.PathOf("kind"),
                     "\"" + std::string(FaultKindName(fault.kind)) + "\" needs a store of kind \"replicated\""};
  }
  fault.replica = ParseReplicaRef(reader.Field("replica"), reader.PathOf("replica"), roles);
  if (fault.replica > scenario.replicated.store.replicas) {
    throw InputError{reader.PathOf("replica"), "names replica " + std::to_string(fault.replica) + ", but the store has " +
                                                   std::to_string(scenario.replicated.store.replicas)};
  }
}

void ParseRegionField(ObjectReader& reader, const Scenario& scenario, Fault& fault) {
  fault.region = RegionIndex(scenario.replicated.regions, reader.Field("region"), reader.PathOf("region"));
}

std::optional<Member> ParseReplicaMember(const Json& item) {
  if (!item.is_string()) return std::nullopt;
  const std::string name = item.get<std::string>();
  Member member;
  member.kind = Member::Kind::kReplica;
  if (name == "store_leader") {
    member.replica = kStoreLeaderReplica;
    return member;
  }
  if (name.size() == 2 && name[0] == 'r' && name[1] >= '1' && name[1] <= '0' + kReplicasMax) {
    member.replica = name[1] - '0';
    return member;
  }
  return std::nullopt;
}

void ValidateReplicated(const Scenario& scenario, const std::string& path) {
  const ReplicatedSpec& spec = scenario.replicated;
  for (std::size_t i = 0; i < scenario.faults.size(); ++i) {
    const Fault& fault = scenario.faults[i];
    const std::string where = base::IndexPath(path + ".faults", i);
    for (const std::vector<Member>& group : fault.groups) CheckMembers(group, spec, where);
    CheckMembers(fault.from, spec, where);
    CheckMembers(fault.to, spec, where);
    if (spec.enabled && (fault.kind == FaultKind::kStoreOutage || fault.kind == FaultKind::kStoreLatency ||
                         fault.kind == FaultKind::kIsolateFromStore)) {
      throw InputError{where, std::string("\"") + FaultKindName(fault.kind) +
                                 "\" acts on the single store server; with a replicated store crash, pause or partition replicas instead"};
    }
  }
}

}  // namespace leasesim::runner
