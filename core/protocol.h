#pragma once
// Protocols as plug-ins: what any lease code needs to run under leasesim.
//
// A protocol is a named factory. Given one node incarnation's Env (the only
// world it sees: clocks, sleeps, tasks, the store, the fenced ledger, the
// event sink) and that node's setup, it builds the ProtocolNode that runs
// there. The simulator, replay, fuzz, explore, zoo, compare, timing --verify
// and live build every node through the registry below, so leasesim's own
// protocol (core/lease_node.h, registered as "leasesim"), each bug-zoo
// mistake and a user's own lease code are run and judged alike.
//
// What the checker needs from a protocol is one small report, written to
// the Env (docs/YOUR_PROTOCOL.md says it in full):
//  - its beliefs, as events: kAcquired when it starts believing it leads
//    (term = its fencing token; valid_until_ns = the boot-clock instant its
//    lease ends, or 0 when the design claims no deadline), kRenewed when it
//    extends a claimed deadline, kDemoted or kReleased when it stops;
//  - its side effects, as SettlementBatch commits through Env::ledger(),
//    each carrying its token and its window's idempotency key.
// Nothing else about a protocol is judged: its store records, its timers
// and its internal state are its own.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/env.h"
#include "core/settlement_job.h"
#include "core/timing.h"

namespace leasesim::core {

struct LeaseMetrics;
class LeadershipTap;

// One node incarnation's configuration, as the world gives it to a protocol.
struct NodeSetup {
  std::string node_name;  // stable across incarnations ("n1"); names a preferred successor
  std::string identity;   // unique per incarnation ("n1#3"); never a bare host name
  std::string key;        // the store key (or key prefix) of the job's lease
  TimingConfig timing;    // the lease timing the scenario gives this node
  SettlementConfig settlement;  // the job: its schedule and batch size
};

// What a protocol runs on one node incarnation. Destroyed with the process
// (a crash loses it whole), so it must not outlive its Env.
class ProtocolNode {
 public:
  virtual ~ProtocolNode() = default;
  // Spawns the node's tasks on its Env; returns at once.
  virtual void Start() = 0;
  // Graceful shutdown, on a task of the Env: side effects stop, the lease
  // is given up (to `preferred_successor`, a node name, where the design
  // has one); blocks the calling task until done.
  virtual void Shutdown(const std::string& preferred_successor) = 0;
  // Core's operator metrics, for a design that keeps them (live nodes
  // serve them at /metrics); nullptr when it keeps none.
  virtual const LeaseMetrics* exposed_metrics() const { return nullptr; }
  virtual const LeadershipTap* exposed_tap() const { return nullptr; }
};

// Which real store a protocol's KV stores play (core/kv_store.h is the
// seam; the simulated store takes each model's documented choices:
// runner/protocol_stores.h, docs/STORE_MODEL.md).
enum class KvStoreModel {
  kEtcd,       // TTL on the monotonic clock, expiry loop every 500 ms
  kRedis,      // TTL on the host's wall clock, expired on access and 10 times a second
  kZooKeeper,  // sessions on the elapsed-time clock, expired every tickTime
};

// The KV stores a protocol needs a world to offer (Env::kv): `servers`
// independent single-server stores playing `model`. A world whose scenario
// has no "kv" block of its own gets them; 0 = the design needs none.
struct KvStoreNeeds {
  int servers = 0;
  KvStoreModel model = KvStoreModel::kEtcd;
};

using ProtocolBuilder = std::function<std::unique_ptr<ProtocolNode>(Env& env, const NodeSetup& setup)>;

// A registered protocol: its name, one line on what it is, and its builder.
struct Protocol {
  std::string name;
  std::string summary;
  ProtocolBuilder build;
  // The fenced ledger the protocol writes to compares each write's token
  // with its fence (true for every design but the bug zoo's "no-fencing").
  bool ledger_checks_fence = true;
  // The KV stores its nodes use (Env::kv), when it uses any.
  KvStoreNeeds kv_stores;
  // Not empty: a known-broken protocol kept to measure the search (a bug-zoo
  // entry), and its mistake in one sentence; `leasesim zoo` hunts these.
  std::string mistake;
  // Not empty: a reference design people ship (designs/), named once for
  // its token modes (NAME and NAME-fenced share it); `leasesim designs`
  // hunts every protocol that has one, beside leasesim's own.
  std::string design;
};

// Resolves a protocol name that is no single registered entry (a
// combination such as "no-fencing,blind-write"): fills `protocol`, or
// returns an error; returns false when the name is not its to resolve.
using ProtocolCombiner =
    std::function<bool(std::string_view name, Protocol& protocol, std::string& error)>;

// Every protocol this process can run, by name, in the order added. One per
// process (Protocols()); filled at start-up by the program's main (the
// leasesim command registers its built-ins, a user's harness its own) and
// read-only after that, so sweeps on many threads may look names up.
class ProtocolRegistry {
 public:
  // Adds `protocol`; false when its name is empty, has a comma, or is taken.
  bool Add(Protocol protocol);
  // `alias` names the same protocol as `name` (which must exist).
  bool AddAlias(std::string alias, const std::string& name);
  void AddCombiner(ProtocolCombiner combiner);
  // The protocol a scenario runs when it names none (the first added
  // unless set; "" when the registry is empty).
  const std::string& default_name() const { return default_name_; }
  bool SetDefault(const std::string& name);

  // The protocol under `name` (an alias resolved; a combination through
  // the combiners), or an error naming the known protocols.
  struct Lookup {
    std::optional<Protocol> protocol;  // a copy: the registry may be read from many threads
    std::string error;
  };
  Lookup Find(std::string_view name) const;
  // The registered names, in order, aliases excluded ("a, b, c").
  std::string Names() const;
  std::vector<const Protocol*> All() const;
  // Forgets everything (tests).
  void Clear();

 private:
  std::map<std::string, Protocol, std::less<>> protocols_;
  std::vector<std::string> order_;  // names in the order added
  std::map<std::string, std::string, std::less<>> aliases_;
  std::vector<ProtocolCombiner> combiners_;
  std::string default_name_;
};

// The process's registry: leasesim's own protocol is in it from the start
// (and is the default until SetDefault names another).
ProtocolRegistry& Protocols();

// leasesim's own protocol (core/lease_node.h), as the registry holds it.
Protocol LeasesimProtocol();
// A LeaseNode for `setup` running `rules` (which must outlive it): what
// LeasesimProtocol builds with the correct rules, and the zoo with its own.
std::unique_ptr<ProtocolNode> BuildLeaseNode(Env& env, const NodeSetup& setup, const ProtocolRules& rules);
inline constexpr std::string_view kLeasesimProtocol = "leasesim";

}  // namespace leasesim::core
