#include "core/protocol.h"

#include <cassert>
#include <utility>

#include "core/lease_node.h"

namespace leasesim::core {

bool ProtocolRegistry::Add(Protocol protocol) {
  if (protocol.name.empty() || protocol.name.find(',') != std::string::npos) return false;
  if (!protocol.build) return false;
  if (protocols_.contains(protocol.name) || aliases_.contains(protocol.name)) return false;
  if (default_name_.empty()) default_name_ = protocol.name;
  order_.push_back(protocol.name);
  std::string name = protocol.name;
  protocols_.emplace(std::move(name), std::move(protocol));
  return true;
}

bool ProtocolRegistry::AddAlias(std::string alias, const std::string& name) {
  if (alias.empty() || protocols_.contains(alias) || aliases_.contains(alias)) return false;
  if (!protocols_.contains(name)) return false;
  aliases_.emplace(std::move(alias), name);
  return true;
}

void ProtocolRegistry::AddCombiner(ProtocolCombiner combiner) { combiners_.push_back(std::move(combiner)); }

bool ProtocolRegistry::SetDefault(const std::string& name) {
  if (!protocols_.contains(name)) return false;
  default_name_ = name;
  return true;
}

ProtocolRegistry::Lookup ProtocolRegistry::Find(std::string_view name) const {
  std::string_view target = name;
  if (const auto alias = aliases_.find(name); alias != aliases_.end()) target = alias->second;
  if (const auto found = protocols_.find(target); found != protocols_.end()) return {found->second, ""};
  for (const ProtocolCombiner& combiner : combiners_) {
    Protocol combined;
    std::string error;
    if (!combiner(name, combined, error)) continue;
    if (!error.empty()) return {std::nullopt, error};
    assert(combined.build);
    return {std::move(combined), ""};
  }
  return {std::nullopt, "unknown protocol \"" + std::string(name) + "\" (known: " + Names() + ")"};
}

std::string ProtocolRegistry::Names() const {
  std::string names;
  for (const std::string& name : order_) names += (names.empty() ? "" : ", ") + name;
  return names;
}

std::vector<const Protocol*> ProtocolRegistry::All() const {
  std::vector<const Protocol*> all;
  all.reserve(protocols_.size());
  for (const std::string& name : order_) all.push_back(&protocols_.find(name)->second);
  return all;
}

void ProtocolRegistry::Clear() {
  protocols_.clear();
  order_.clear();
  aliases_.clear();
  combiners_.clear();
  default_name_.clear();
}

ProtocolRegistry& Protocols() {
  // leasesim's own protocol is always there, and the default until a
  // program says otherwise.
  static ProtocolRegistry registry = [] {
    ProtocolRegistry fresh;
    [[maybe_unused]] const bool added = fresh.Add(LeasesimProtocol());
    assert(added);
    return fresh;
  }();
  return registry;
}

std::unique_ptr<ProtocolNode> BuildLeaseNode(Env& env, const NodeSetup& setup, const ProtocolRules& rules) {
  return std::make_unique<LeaseNode>(
      env,
      ElectorConfig{.key = setup.key, .identity = setup.identity, .node_name = setup.node_name, .timing = setup.timing},
      setup.settlement, rules);
}

Protocol LeasesimProtocol() {
  return Protocol{
      .name = std::string(kLeasesimProtocol),
      .summary = "leasesim's own protocol (core/): CAS-renewed lease record, term as fencing token",
      .build = [](Env& env, const NodeSetup& setup) { return BuildLeaseNode(env, setup, CorrectRules()); },
  };
}

}  // namespace leasesim::core
