#pragma once
// A lease holder's identity: "n<node>#<incarnation>" — the node number and
// which life of that node's process it is (a restart is a new incarnation,
// so a restarted node never mistakes its predecessor's lease for its own).
// Written by whoever starts a node (simulated or live) and read back by
// tools that map a holder to a node.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace leasesim::base {

struct NodeIdentity {
  int node = 0;                   // 1-based
  std::uint64_t incarnation = 0;  // 1 for the first life
  friend bool operator==(const NodeIdentity&, const NodeIdentity&) = default;
};

// "n3#2".
std::string FormatNodeIdentity(int node, std::uint64_t incarnation);
inline std::string FormatNodeIdentity(const NodeIdentity& id) { return FormatNodeIdentity(id.node, id.incarnation); }

// The exact inverse: "n<digits>#<digits>" with node >= 1 and incarnation
// >= 1, no sign, no leading zeros, nothing around; anything else is nullopt.
std::optional<NodeIdentity> ParseNodeIdentity(std::string_view text);

}  // namespace leasesim::base
