#include "runner/replicated_parse.h"

#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "core/fault_points.h"

namespace leasesim::runner {
namespace {

using Json = nlohmann::json;

constexpr std::int64_t kMsMax = 100LL * 24 * 3600 * 1000;
constexpr int kReplicasMax = 7;

// A strict reader of one object: every field must be read, or it is unknown.
class Fields {
 public:
  Fields(const Json& json, std::string path) : json_(json), path_(std::move(path)) {
    if (!json_.is_object()) throw SpecError{path_, "must be an object"};
  }
  bool Has(const std::string& key) const { return json_.contains(key); }
  std::string PathOf(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  const Json& Field(const std::string& key) {
    if (!json_.contains(key)) throw SpecError{PathOf(key), "is required"};
    read_.push_back(key);
    return json_.at(key);
  }
  std::string String(const std::string& key) {
    const Json& value = Field(key);
    if (!value.is_string()) throw SpecError{PathOf(key), "must be a string"};
    return value.get<std::string>();
  }
  std::int64_t Integer(const std::string& key, std::int64_t min, std::int64_t max) {
    const Json& value = Field(key);
    if (!value.is_number_integer()) throw SpecError{PathOf(key), "must be an integer"};
    const std::int64_t n = value.get<std::int64_t>();
    if (n < min || n > max) {
      throw SpecError{PathOf(key), "must be in [" + std::to_string(min) + ", " + std::to_string(max) + "] (got " +
                                       std::to_string(n) + ")"};
    }
    return n;
  }
  sim::Nanos Millis(const std::string& key, std::int64_t min_ms) {
    return Integer(key, min_ms, kMsMax) * sim::kNanosPerMilli;
  }
  sim::LatencyModel Latency(const std::string& key) {
    Fields latency(Field(key), PathOf(key));
    sim::LatencyModel model;
    model.base_ns = latency.Millis("base", 0);
    model.jitter_ns = latency.Has("jitter") ? latency.Millis("jitter", 0) : 0;
    if (latency.Has("tail_p") != latency.Has("tail")) throw SpecError{PathOf(key), "tail_p and tail must be given together"};
    if (latency.Has("tail_p")) {
      const Json& p = latency.Field("tail_p");
      if (!p.is_number() || !(p.get<double>() >= 0.0 && p.get<double>() <= 1.0)) {
        throw SpecError{latency.PathOf("tail_p"), "must be a probability in [0, 1]"};
      }
      model.tail_ppm = static_cast<std::uint32_t>(std::llround(p.get<double>() * 1'000'000.0));
      model.tail_ns = latency.Millis("tail", 0);
    }
    latency.Finish();
    return model;
  }
  void Finish() const {
    const std::set<std::string> read(read_.begin(), read_.end());
    for (auto it = json_.begin(); it != json_.end(); ++it) {
      if (!read.contains(it.key())) throw SpecError{PathOf(it.key()), "is not a known field"};
    }
  }
  const std::vector<std::string>& read() const { return read_; }

 private:
  const Json& json_;
  std::string path_;
  std::vector<std::string> read_;
};

int RegionIndex(const RegionsSpec& regions, const Json& value, const std::string& path) {
  if (!value.is_string()) throw SpecError{path, "must be a region name"};
  const std::string name = value.get<std::string>();
  for (std::size_t i = 0; i < regions.names.size(); ++i) {
    if (regions.names[i] == name) return static_cast<int>(i);
  }
  if (regions.names.empty()) throw SpecError{path, "names region \"" + name + "\", but the scenario has no \"regions\""};
  throw SpecError{path, "names region \"" + name + "\", which \"regions.names\" does not list"};
}

// A replica reference: a number 1..N, "store_leader" or "store_follower".
int ParseReplicaRef(const Json& value, const std::string& path, bool roles_allowed) {
  if (value.is_string()) {
    const std::string name = value.get<std::string>();
    if (roles_allowed && name == "store_leader") return kStoreLeaderReplica;
    if (roles_allowed && name == "store_follower") return kStoreFollowerReplica;
    throw SpecError{path, roles_allowed ? "must be a replica number, \"store_leader\" or \"store_follower\""
                                        : "must be a replica number"};
  }
  if (!value.is_number_integer()) {
    throw SpecError{path, roles_allowed ? "must be a replica number, \"store_leader\" or \"store_follower\""
                                        : "must be a replica number"};
  }
  const std::int64_t n = value.get<std::int64_t>();
  if (n < 1 || n > kReplicasMax) throw SpecError{path, "must be a replica number 1.." + std::to_string(kReplicasMax)};
  return static_cast<int>(n);
}

}  // namespace

std::string ReplicaRefName(int replica) {
  if (replica == kStoreLeaderReplica) return "store_leader";
  if (replica == kStoreFollowerReplica) return "store_follower";
  return "r" + std::to_string(replica);
}

bool IsReplicatedFaultKind(FaultKind kind) {
  return kind == FaultKind::kReplicaCrash || kind == FaultKind::kReplicaRestart ||
         kind == FaultKind::kReplicaPause || kind == FaultKind::kIsolateRegion;
}

void ParseRegions(const Json& json, const std::string& path, Scenario& scenario) {
  Fields fields(json, path);
  RegionsSpec& regions = scenario.replicated.regions;
  const Json& names = fields.Field("names");
  if (!names.is_array() || names.empty()) throw SpecError{fields.PathOf("names"), "must be a non-empty array of names"};
  if (names.size() > 16) throw SpecError{fields.PathOf("names"), "holds more than 16 regions"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string item = fields.PathOf("names") + "[" + std::to_string(i) + "]";
    if (!names[i].is_string() || names[i].get<std::string>().empty()) throw SpecError{item, "must be a region name"};
    for (const std::string& earlier : regions.names) {
      if (earlier == names[i].get<std::string>()) throw SpecError{item, "names a region twice"};
    }
    regions.names.push_back(names[i].get<std::string>());
  }
  const std::size_t n = regions.names.size();
  const sim::LatencyModel within = fields.Latency("within_ms");
  regions.matrix.assign(n * n, sim::LatencyModel{});
  std::vector<bool> set(n * n, false);
  for (std::size_t i = 0; i < n; ++i) {
    regions.matrix[i * n + i] = within;
    set[i * n + i] = true;
  }
  if (fields.Has("between")) {
    const Json& between = fields.Field("between");
    if (!between.is_array()) throw SpecError{fields.PathOf("between"), "must be an array"};
    for (std::size_t i = 0; i < between.size(); ++i) {
      const std::string item = fields.PathOf("between") + "[" + std::to_string(i) + "]";
      Fields link(between[i], item);
      const Json& pair = link.Field("regions");
      if (!pair.is_array() || pair.size() != 2) throw SpecError{link.PathOf("regions"), "must name two regions"};
      const int a = RegionIndex(regions, pair[0], link.PathOf("regions") + "[0]");
      const int b = RegionIndex(regions, pair[1], link.PathOf("regions") + "[1]");
      if (a == b) throw SpecError{link.PathOf("regions"), "must name two different regions (within_ms is the latency inside one)"};
      const sim::LatencyModel latency = link.Latency("latency_ms");
      const std::size_t ab = static_cast<std::size_t>(a) * n + static_cast<std::size_t>(b);
      const std::size_t ba = static_cast<std::size_t>(b) * n + static_cast<std::size_t>(a);
      if (set[ab]) throw SpecError{item, "gives the latency between " + regions.names[static_cast<std::size_t>(a)] + " and " + regions.names[static_cast<std::size_t>(b)] + " twice"};
      regions.matrix[ab] = latency;
      regions.matrix[ba] = latency;
      set[ab] = set[ba] = true;
      link.Finish();
    }
  }
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (!set[a * n + b]) {
        throw SpecError{fields.PathOf("between"), "gives no latency between " + regions.names[a] + " and " + regions.names[b]};
      }
    }
  }
  regions.node_region.assign(static_cast<std::size_t>(scenario.nodes), -1);
  if (fields.Has("nodes")) {
    const Json& nodes = fields.Field("nodes");
    if (!nodes.is_array() || nodes.size() != static_cast<std::size_t>(scenario.nodes)) {
      throw SpecError{fields.PathOf("nodes"), "must list one region per node (" + std::to_string(scenario.nodes) + ")"};
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      regions.node_region[i] = RegionIndex(regions, nodes[i], fields.PathOf("nodes") + "[" + std::to_string(i) + "]");
    }
  }
  if (fields.Has("ledger")) regions.ledger_region = RegionIndex(regions, fields.Field("ledger"), fields.PathOf("ledger"));
  if (fields.Has("store")) regions.store_region = RegionIndex(regions, fields.Field("store"), fields.PathOf("store"));
  fields.Finish();
}

std::vector<std::string> ParseReplicatedStore(const Json& json, const std::string& path, Scenario& scenario) {
  Fields fields(json, path);
  ReplicatedSpec& spec = scenario.replicated;
  backends::ReplicatedStoreConfig& config = spec.store;
  spec.enabled = true;
  config.replicas = static_cast<int>(fields.Integer("replicas", 1, kReplicasMax));
  if (fields.Has("read_mode")) {
    const std::string mode = fields.String("read_mode");
    if (mode == "linearizable") {
      config.read_mode = backends::ReadMode::kLinearizable;
    } else if (mode == "unsafe") {
      config.read_mode = backends::ReadMode::kUnsafe;
    } else {
      throw SpecError{fields.PathOf("read_mode"),
                      "must be \"linearizable\" (the leader confirms with a quorum) or \"unsafe\" (any replica answers from its own state)"};
    }
  }
  if (fields.Has("election_timeout_ms")) {
    Fields timeout(fields.Field("election_timeout_ms"), fields.PathOf("election_timeout_ms"));
    config.election_timeout_min = timeout.Millis("min", 1);
    config.election_timeout_max = timeout.Millis("max", 1);
    if (config.election_timeout_max < config.election_timeout_min) throw SpecError{timeout.PathOf("max"), "must not be below min"};
    timeout.Finish();
  }
  if (fields.Has("heartbeat_ms")) config.heartbeat = fields.Millis("heartbeat_ms", 1);
  if (config.heartbeat >= config.election_timeout_min) {
    throw SpecError{fields.PathOf("heartbeat_ms"), "must be below election_timeout_ms.min"};
  }
  if (fields.Has("client_attempt_timeout_ms")) config.client_attempt_timeout = fields.Millis("client_attempt_timeout_ms", 1);
  if (fields.Has("initial_leader")) config.initial_leader = static_cast<int>(fields.Integer("initial_leader", 1, config.replicas));
  if (fields.Has("placement")) {
    const Json& placement = fields.Field("placement");
    if (!placement.is_array() || placement.size() != static_cast<std::size_t>(config.replicas)) {
      throw SpecError{fields.PathOf("placement"), "must list one region per replica (" + std::to_string(config.replicas) + ")"};
    }
    for (std::size_t i = 0; i < placement.size(); ++i) {
      config.replica_region.push_back(
          RegionIndex(spec.regions, placement[i], fields.PathOf("placement") + "[" + std::to_string(i) + "]"));
    }
  }
  // "kind" and "latency_ms" are the caller's.
  std::vector<std::string> read = fields.read();
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (it.key() == "kind" || it.key() == "latency_ms") continue;
    bool known = false;
    for (const std::string& key : read) known = known || key == it.key();
    if (!known) throw SpecError{fields.PathOf(it.key()), "is not a known field of a replicated store"};
  }
  return read;
}

bool ParseReplicatedFault(const std::string& kind, const Json& json, const std::string& path,
                          const Scenario& scenario, Fault& fault, std::vector<std::string>& read) {
  if (kind != "replica_crash" && kind != "replica_restart" && kind != "replica_pause" && kind != "isolate_region") {
    return false;
  }
  Fields fields(json, path);
  if (kind == "isolate_region") {
    fault.kind = FaultKind::kIsolateRegion;
    fault.region = RegionIndex(scenario.replicated.regions, fields.Field("region"), fields.PathOf("region"));
    fault.duration = fields.Millis("duration_ms", 1);
  } else {
    if (!scenario.replicated.enabled) {
      throw SpecError{fields.PathOf("kind"), "\"" + kind + "\" needs a store of kind \"replicated\""};
    }
    const bool restart = kind == "replica_restart";
    fault.replica = ParseReplicaRef(fields.Field("replica"), fields.PathOf("replica"), !restart);
    if (fault.replica > scenario.replicated.store.replicas) {
      throw SpecError{fields.PathOf("replica"), "names replica " + std::to_string(fault.replica) + ", but the store has " +
                                                    std::to_string(scenario.replicated.store.replicas)};
    }
    if (kind == "replica_crash") fault.kind = FaultKind::kReplicaCrash;
    if (restart) fault.kind = FaultKind::kReplicaRestart;
    if (kind == "replica_pause") {
      fault.kind = FaultKind::kReplicaPause;
      fault.duration = fields.Millis("duration_ms", 1);
    }
    if (kind == "replica_crash" && fields.Has("at_point")) {
      // Strikes when the lease node (default: the lease leader) reaches the point.
      fault.at_point = fields.String("at_point");
      bool known = false;
      for (std::string_view point : core::fault_points::kAll) known = known || point == fault.at_point;
      if (!known) throw SpecError{fields.PathOf("at_point"), "unknown fault point \"" + fault.at_point + "\""};
      fault.node = NodeRef{.leader = true};
      if (fields.Has("node")) {
        const Json& node = fields.Field("node");
        if (node.is_string() && node.get<std::string>() == "leader") {
          fault.node = NodeRef{.leader = true};
        } else if (node.is_number_integer() && node.get<std::int64_t>() >= 1 && node.get<std::int64_t>() <= scenario.nodes) {
          fault.node = NodeRef{.node = static_cast<int>(node.get<std::int64_t>())};
        } else {
          throw SpecError{fields.PathOf("node"), "must be \"leader\" or a node number"};
        }
      }
    }
  }
  // at_ms and kind are the caller's.
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (it.key() == "at_ms" || it.key() == "kind") continue;
    bool known = false;
    for (const std::string& key : fields.read()) known = known || key == it.key();
    if (!known) throw SpecError{fields.PathOf(it.key()), "is not a known field of a " + kind + " fault"};
  }
  read = fields.read();
  return true;
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
    const std::string where = path + ".faults[" + std::to_string(i) + "]";
    auto check_members = [&](const std::vector<Member>& members) {
      for (const Member& member : members) {
        if (member.kind == Member::Kind::kReplica) {
          if (!spec.enabled) throw SpecError{where, "names a store replica, but the store is not of kind \"replicated\""};
          if (member.replica > spec.store.replicas) {
            throw SpecError{where, "names replica r" + std::to_string(member.replica) + ", but the store has " +
                                       std::to_string(spec.store.replicas)};
          }
        }
        if (member.kind == Member::Kind::kStore && spec.enabled) {
          throw SpecError{where, "names \"store\", but a replicated store has replicas: name them (\"r1\", ...) or \"store_leader\""};
        }
      }
    };
    for (const std::vector<Member>& group : fault.groups) check_members(group);
    check_members(fault.from);
    check_members(fault.to);
    if (spec.enabled && (fault.kind == FaultKind::kStoreOutage || fault.kind == FaultKind::kStoreLatency ||
                         fault.kind == FaultKind::kIsolateFromStore)) {
      throw SpecError{where, std::string("\"") + FaultKindName(fault.kind) +
                                 "\" acts on the single store server; with a replicated store crash, pause or partition replicas instead"};
    }
  }
}

}  // namespace leasesim::runner
