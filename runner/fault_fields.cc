#include "runner/fault_fields.h"

#include <cassert>
#include <set>

#include "core/fault_points.h"
#include "runner/replicated_parse.h"

namespace leasesim::runner {

using base::InputError;
using base::ObjectReader;
namespace {

using Json = nlohmann::json;
using F = FaultField;

constexpr int kArrivalMax = 1'000'000;

std::int64_t Ms(Nanos ns) { return ns / sim::kNanosPerMilli; }

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
  if (list.empty()) throw InputError{reader.PathOf(key), "must not be empty"};
  std::vector<Member> members;
  for (std::size_t i = 0; i < list.size(); ++i) {
    members.push_back(ParseMember(list[i], reader.PathOf(key) + "[" + std::to_string(i) + "]", nodes));
  }
  return members;
}

Json MemberJson(const Member& member) {
  switch (member.kind) {
    case Member::Kind::kStore: return "store";
    case Member::Kind::kLedger: return "ledger";
    case Member::Kind::kNode: return NodeRefJson(member.node);
    case Member::Kind::kReplica: return ReplicaRefName(member.replica);
  }
  return "store";
}

Json MembersJson(const std::vector<Member>& members) {
  Json list = Json::array();
  for (const Member& member : members) list.push_back(MemberJson(member));
  return list;
}

void ParseGroups(ObjectReader& reader, const Scenario& scenario, Fault& fault) {
  const Json& groups = reader.Array("groups");
  if (groups.size() < 2) throw InputError{reader.PathOf("groups"), "needs at least two groups"};
  std::set<std::string> seen;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::string group_path = reader.PathOf("groups") + "[" + std::to_string(g) + "]";
    if (!groups[g].is_array() || groups[g].empty()) throw InputError{group_path, "must be a non-empty array"};
    std::vector<Member> members;
    for (std::size_t m = 0; m < groups[g].size(); ++m) {
      const Json& item = groups[g][m];
      const std::string item_path = group_path + "[" + std::to_string(m) + "]";
      members.push_back(ParseMember(item, item_path, scenario.nodes));
      if (!seen.insert(item.dump()).second) throw InputError{item_path, "appears in more than one group"};
    }
    fault.groups.push_back(std::move(members));
  }
}

void ParseMode(ObjectReader& reader, const Scenario&, Fault& fault) {
  const std::string mode = reader.String("mode");
  if (mode == "unavailable") {
    fault.outage = backends::StoreOutage::kUnavailable;
  } else if (mode == "blackhole") {
    fault.outage = backends::StoreOutage::kBlackhole;
  } else {
    throw InputError{reader.PathOf("mode"), "must be \"unavailable\" (requests rejected) or \"blackhole\" (never answered)"};
  }
}

void ParseSuccessor(ObjectReader& reader, const Scenario& scenario, Fault& fault) {
  if (!reader.Has("successor")) return;
  const NodeRef ref = ParseNodeRef(reader.Field("successor"), reader.PathOf("successor"), scenario.nodes);
  if (ref.is_role()) throw InputError{reader.PathOf("successor"), "must be a node number"};
  fault.successor = ref.node;
}

void ParseNodeNumber(ObjectReader& reader, const Scenario& scenario, Fault& fault) {
  fault.node = ParseNodeRef(reader.Field("node"), reader.PathOf("node"), scenario.nodes);
  if (fault.node.is_role()) throw InputError{reader.PathOf("node"), "a restart must name a node number"};
}

void ParseKvHost(ObjectReader& reader, const Scenario& scenario, Fault& fault) {
  if (scenario.kv.replicated) {
    throw InputError{reader.PathOf("kv"), "the KV store is on the replicated store, which has no KV store host: strike "
                                          "its replicas (replica_crash, replica_pause, ...)"};
  }
  if (scenario.kv.servers == 0) throw InputError{reader.PathOf("kv"), "the scenario has no KV store hosts (\"kv\")"};
  const std::string name = reader.String("kv");
  std::string names;
  for (int server = 1; server <= scenario.kv.servers; ++server) {
    if (KvHostName(server, scenario.kv.servers) == name) {
      fault.kv = server;
      return;
    }
    names += (names.empty() ? "" : ", ") + KvHostName(server, scenario.kv.servers);
  }
  throw InputError{reader.PathOf("kv"), "no KV store host \"" + name + "\" (the scenario has " + names + ")"};
}

Json ReplicaJson(int replica) { return replica > 0 ? Json(replica) : Json(ReplicaRefName(replica)); }

// One entry per FaultField, in enum order (checked below).
constexpr FaultFieldSpec kFields[] = {
    {F::kNode, "node", "a node number, \"leader\" or \"follower\" (resolved when the fault strikes)",
     [](ObjectReader& r, const Scenario& s, Fault& f) { f.node = ParseNodeRef(r.Field("node"), r.PathOf("node"), s.nodes); },
     [](const Fault& f, const Scenario&, Json& j) { j["node"] = NodeRefJson(f.node); }},
    {F::kNodeNumber, "node", "a node number", &ParseNodeNumber,
     [](const Fault& f, const Scenario&, Json& j) { j["node"] = NodeRefJson(f.node); }},
    {F::kDuration, "duration_ms", "how long it lasts, ms (>= 1)",
     [](ObjectReader& r, const Scenario&, Fault& f) { f.duration = r.Millis("duration_ms", 1); },
     [](const Fault& f, const Scenario&, Json& j) { j["duration_ms"] = Ms(f.duration); }},
    {F::kGroups, "groups", "two or more disjoint member lists", &ParseGroups,
     [](const Fault& f, const Scenario&, Json& j) {
       Json groups = Json::array();
       for (const auto& group : f.groups) groups.push_back(MembersJson(group));
       j["groups"] = groups;
     }},
    {F::kFrom, "from", "a non-empty member list",
     [](ObjectReader& r, const Scenario& s, Fault& f) { f.from = ParseMembers(r, "from", s.nodes); },
     [](const Fault& f, const Scenario&, Json& j) { j["from"] = MembersJson(f.from); }},
    {F::kTo, "to", "a non-empty member list",
     [](ObjectReader& r, const Scenario& s, Fault& f) { f.to = ParseMembers(r, "to", s.nodes); },
     [](const Fault& f, const Scenario&, Json& j) { j["to"] = MembersJson(f.to); }},
    {F::kDriftPpm, "drift_ppm", "the clock's rate error from now on, ppm, in [-500000, 500000]",
     [](ObjectReader& r, const Scenario&, Fault& f) { f.drift_ppm = r.Integer("drift_ppm", -500'000, 500'000); },
     [](const Fault& f, const Scenario&, Json& j) { j["drift_ppm"] = f.drift_ppm; }},
    {F::kStep, "step_ms", "the wall clock's jump, ms (negative: backwards)",
     [](ObjectReader& r, const Scenario&, Fault& f) {
       f.step = r.Integer("step_ms", -base::kMillisMax, base::kMillisMax) * sim::kNanosPerMilli;
     },
     [](const Fault& f, const Scenario&, Json& j) { j["step_ms"] = Ms(f.step); }},
    {F::kMode, "mode", "\"unavailable\" (rejected at once) or \"blackhole\" (never answered)", &ParseMode,
     [](const Fault& f, const Scenario&, Json& j) {
       j["mode"] = f.outage == backends::StoreOutage::kBlackhole ? "blackhole" : "unavailable";
     }},
    {F::kExtra, "extra_ms", "added to every store request, ms (>= 1)",
     [](ObjectReader& r, const Scenario&, Fault& f) { f.extra = r.Millis("extra_ms", 1); },
     [](const Fault& f, const Scenario&, Json& j) { j["extra_ms"] = Ms(f.extra); }},
    {F::kSuccessor, "successor", "optional: the node number the lease is handed to first", &ParseSuccessor,
     [](const Fault& f, const Scenario&, Json& j) {
       if (f.successor != 0) j["successor"] = f.successor;
     }},
    {F::kReplica, "replica", "a replica number, \"store_leader\" or \"store_follower\"",
     [](ObjectReader& r, const Scenario& s, Fault& f) { ParseReplicaField(r, true, s, f); },
     [](const Fault& f, const Scenario&, Json& j) { j["replica"] = ReplicaJson(f.replica); }},
    {F::kReplicaNumber, "replica", "a replica number",
     [](ObjectReader& r, const Scenario& s, Fault& f) { ParseReplicaField(r, false, s, f); },
     [](const Fault& f, const Scenario&, Json& j) { j["replica"] = ReplicaJson(f.replica); }},
    {F::kRegion, "region", "a region name from \"regions\"", &ParseRegionField,
     [](const Fault& f, const Scenario& s, Json& j) {
       j["region"] = s.replicated.regions.names.at(static_cast<std::size_t>(f.region));
     }},
    {F::kKv, "kv", "a KV store host: \"kv\" (one store) or \"kv1\", \"kv2\".. (several)", &ParseKvHost,
     [](const Fault& f, const Scenario& s, Json& j) { j["kv"] = KvHostName(f.kv, s.kv.servers); }},
};

// Function addresses are not constants under AddressSanitizer (GCC will not
// fold `&f == nullptr` there), so the compile-time check is the order; the
// reader and writer of each entry are asserted where an entry is looked up.
constexpr bool OneEntryPerFieldInOrder() {
  int index = 0;
  for (const FaultFieldSpec& spec : kFields) {
    if (static_cast<int>(spec.field) != index++) return false;
  }
  return index == kFaultFieldCount;
}
static_assert(OneEntryPerFieldInOrder(), "every FaultField needs one entry, in enum order");

std::string FaultPointNames() {
  std::string names;
  for (std::string_view point : core::fault_points::kAll) names += (names.empty() ? "" : ", ") + std::string(point);
  return names;
}

}  // namespace

const FaultFieldSpec& FieldSpecOf(FaultField field) {
  const FaultFieldSpec& spec = kFields[static_cast<std::size_t>(field)];
  assert(spec.parse != nullptr);
  assert(spec.write != nullptr);
  return spec;
}

NodeRef ParseNodeRef(const Json& value, const std::string& path, int nodes) {
  if (value.is_string()) {
    if (value.get<std::string>() == "leader") return NodeRef{.leader = true};
    if (value.get<std::string>() == "follower") return NodeRef{.follower = true};
    throw InputError{path, "must be a node number, \"leader\" or \"follower\""};
  }
  if (!value.is_number_integer()) throw InputError{path, "must be a node number, \"leader\" or \"follower\""};
  const std::int64_t node = value.get<std::int64_t>();
  if (node < 1 || node > nodes) {
    throw InputError{path, "names node " + std::to_string(node) + ", but the scenario has nodes 1.." +
                            std::to_string(nodes)};
  }
  return NodeRef{.leader = false, .node = static_cast<int>(node)};
}

Json NodeRefJson(const NodeRef& ref) {
  if (ref.leader) return "leader";
  if (ref.follower) return "follower";
  return ref.node;
}

void ParseArming(ObjectReader& reader, const FaultKindSpec& kind, const Scenario& scenario, Fault& fault) {
  // Kinds that target no node take one only to say whose arrival strikes them.
  const bool trigger_node = kind.target != FaultTarget::kNode;
  const std::string name(kind.name);
  if (!reader.Has("at_point")) {
    for (const char* key : {"arrival", "lease_remaining_below_ms"}) {
      if (reader.Has(key)) throw InputError{reader.PathOf(key), "needs at_point: it times a strike at a fault point"};
    }
    if (trigger_node && reader.Has("node")) {
      throw InputError{reader.PathOf("node"),
                    "a " + name + " fault takes a node only with at_point (the node whose arrival strikes it)"};
    }
    return;
  }
  if (!kind.armable) {
    throw InputError{reader.PathOf("at_point"), "a " + name + " cannot strike at a fault point: its node is down and reaches none"};
  }
  fault.at_point = reader.String("at_point");
  bool known = false;
  for (std::string_view point : core::fault_points::kAll) known = known || point == fault.at_point;
  if (!known) {
    throw InputError{reader.PathOf("at_point"),
                  "unknown fault point \"" + fault.at_point + "\" (known: " + FaultPointNames() + ")"};
  }
  if (trigger_node) {
    fault.node = reader.Has("node") ? ParseNodeRef(reader.Field("node"), reader.PathOf("node"), scenario.nodes)
                                    : NodeRef{.leader = true};
  }
  fault.arrival = static_cast<int>(reader.IntegerOr("arrival", 1, kArrivalMax, 1));
  if (reader.Has("lease_remaining_below_ms")) {
    fault.lease_remaining_below = reader.Millis("lease_remaining_below_ms", 1);
  }
}

void WriteArming(const Fault& fault, const FaultKindSpec& kind, Json& json) {
  if (fault.at_point.empty()) return;
  json["at_point"] = fault.at_point;
  if (kind.target != FaultTarget::kNode) json["node"] = NodeRefJson(fault.node);
  if (fault.arrival != 1) json["arrival"] = fault.arrival;
  if (fault.lease_remaining_below > 0) json["lease_remaining_below_ms"] = Ms(fault.lease_remaining_below);
}

}  // namespace leasesim::runner
