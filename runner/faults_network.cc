// Network faults of the catalogue: partition, partition_oneway, clog,
// isolate, isolate_from_store, and kv_isolate (a KV store host cut off) —
// how each strikes and heals, and how the
// generator draws it.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "base/units.h"
#include "core/fault_points.h"
#include "runner/fault_kinds.h"

namespace leasesim::runner::fault_kinds {
namespace {

using base::Millis;
using base::Seconds;

using Links = std::vector<std::pair<sim::HostId, sim::HostId>>;

// Blocks the links now; the heal unblocks the same links.
Heal Block(Injector& injector, Links links) {
  sim::Network& network = injector.network();
  for (const auto& [from, to] : links) network.SetBlocked(from, to, true);
  return [&network, links = std::move(links)] {
    for (const auto& [from, to] : links) network.SetBlocked(from, to, false);
  };
}

// Every from -> to link between distinct hosts; the record names the nodes among `from`.
Links Directed(Injector& injector, const Fault& fault, checker::FaultRecord& record) {
  Links links;
  for (const Member& from : fault.from) {
    for (const Member& to : fault.to) {
      const sim::HostId a = injector.HostOfMember(from);
      const sim::HostId b = injector.HostOfMember(to);
      if (a != b) links.emplace_back(a, b);
    }
  }
  for (const Member& member : fault.from) {
    if (member.kind == Member::Kind::kNode) record.nodes.push_back(injector.NodeOf(member));
  }
  return links;
}

Member NodeMember(NodeRef ref) { return Member{Member::Kind::kNode, ref}; }

// Links degrade before they fail (gray failure): a congested link first
// delays, then drops. Sometimes a cut of `node` from the store comes after
// such an onset timed by the protocol: the store's replies to a renewal or
// an acquisition are held back, up to just inside the request timeout, and
// the cut begins the moment that (slow but successful) reply arrives.
void MaybeGrayOnset(FaultDrawContext& context, Fault& cut, NodeRef node) {
  if (!context.config.timed_strikes || !context.draw.Percent(25)) return;
  const std::vector<std::string>& kinds = context.config.kinds;
  if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), "clog") == kinds.end()) return;  // the user's list rules
  const Nanos timeout = context.timing.request_timeout;
  Fault onset;
  onset.at = cut.at;
  onset.kind = FaultKind::kClog;
  onset.from = {context.StoreMember()};
  onset.to = {NodeMember(node)};
  onset.duration = context.draw.Millis(Millis(1), std::max(Millis(1), timeout - Millis(1)));
  onset.node = node;
  onset.at_point = std::string(context.draw.Percent(50) ? core::fault_points::kBeforeRenew
                                                        : core::fault_points::kBeforeAcquire);
  cut.node = node;
  cut.at_point = std::string(core::fault_points::kAfterCasReply);
  cut.arrival = 1;
  cut.lease_remaining_below = 0;
  context.Push(std::move(onset));
}

}  // namespace

Heal StrikePartition(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  Links cut;
  for (std::size_t a = 0; a < fault.groups.size(); ++a) {
    for (std::size_t b = 0; b < fault.groups.size(); ++b) {
      if (a == b) continue;
      for (const Member& from : fault.groups[a]) {
        for (const Member& to : fault.groups[b]) cut.emplace_back(injector.HostOfMember(from), injector.HostOfMember(to));
      }
    }
  }
  for (const Member& member : fault.groups[0]) {
    if (member.kind == Member::Kind::kNode) record.nodes.push_back(injector.NodeOf(member));
  }
  return Block(injector, std::move(cut));
}

Heal StrikeOneWay(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  return Block(injector, Directed(injector, fault, record));
}

Heal StrikeClog(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  // Held messages are delivered when the clog ends: the network heals it.
  for (const auto& [from, to] : Directed(injector, fault, record)) {
    injector.network().ClogUntil(from, to, injector.world().now() + fault.duration);
  }
  return {};
}

namespace {

// Every link into and out of `host`.
Links AllLinksOf(Injector& injector, sim::HostId host) {
  Links links;
  for (sim::HostId other = 0; other < injector.world().host_count(); ++other) {
    if (other == host) continue;
    links.emplace_back(host, other);
    links.emplace_back(other, host);
  }
  return links;
}

}  // namespace

Heal StrikeIsolate(Injector& injector, const Fault&, int node, checker::FaultRecord&) {
  return Block(injector, AllLinksOf(injector, injector.HostOf(node)));
}

Heal StrikeKvIsolate(Injector& injector, const Fault& fault, int, checker::FaultRecord& record) {
  const sim::HostId host = injector.parts().kv_host(fault.kv - 1);
  record.description = injector.world().host_name(host) + " isolated";
  return Block(injector, AllLinksOf(injector, host));
}

Heal StrikeIsolateFromStore(Injector& injector, const Fault&, int node, checker::FaultRecord&) {
  const sim::HostId host = injector.HostOf(node);
  const sim::HostId store = injector.parts().store_host();
  return Block(injector, Links{{host, store}, {store, host}});
}

void DrawPartition(FaultDrawContext& context, Fault fault) {
  fault.duration = context.draw.Millis(Seconds(1), context.OutageMax());
  std::vector<Member> rest;
  const NodeRef alone = context.Target();
  if (!alone.is_role()) {
    for (int node = 1; node <= context.scenario.nodes; ++node) {
      if (node != alone.node) rest.push_back(NodeMember(NodeRef{.node = node}));
    }
  }
  rest.push_back(context.StoreMember());
  if (context.draw.Percent(70)) rest.push_back(Member{Member::Kind::kLedger, {}});
  fault.groups = {{NodeMember(alone)}, rest};
  context.AimIfTimed(fault);
  MaybeGrayOnset(context, fault, alone);
  context.Push(std::move(fault));
}

void DrawOneWay(FaultDrawContext& context, Fault fault) {
  fault.duration = context.draw.Millis(Seconds(1), context.OutageMax());
  context.Link(fault);
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

// A clog only delays messages: the lease protocol never assumes a bound on
// network delay (validity counts from the send), so any clog stays within
// its assumptions. Most are about a request timeout long — a reply that
// comes back just in time, at the moment drawn — some much longer.
void DrawClog(FaultDrawContext& context, Fault fault) {
  const Nanos timeout = context.timing.request_timeout;
  fault.duration = context.draw.Percent(70) ? context.draw.Millis(Millis(1), timeout + timeout / 2)
                                            : context.draw.Millis(Millis(1), context.OutageMax());
  if (context.Edge()) fault.duration = context.JustUnder(timeout);  // the reply held to just inside the timeout
  context.Link(fault);
  context.AimIfTimed(fault);
  context.Push(std::move(fault));
}

void DrawIsolation(FaultDrawContext& context, Fault fault) {
  fault.node = context.Target();
  fault.duration = context.draw.Millis(Seconds(1), context.OutageMax());
  context.AimIfTimed(fault);
  MaybeGrayOnset(context, fault, fault.node);
  context.Push(std::move(fault));
}

}  // namespace leasesim::runner::fault_kinds
