#pragma once
// A scenario, as read from a scenario file: the world to build, the timing
// to run the protocol with, the fault script, and what the run must show.
// All times are integer nanoseconds and all probabilities integer parts per
// million here; the file writes milliseconds and decimals for people.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/sim_kv_server.h"
#include "backends/sim_services.h"
#include "checker/fault_kind.h"
#include "core/protocol.h"
#include "core/timing.h"
#include "runner/replicated_spec.h"
#include "sim/network.h"
#include "sim/time_sync.h"
#include "sim/time.h"

namespace leasesim::runner {

using sim::Nanos;

// A fault's target node: a number, or a role resolved when the fault fires:
// "leader" (whoever believes it holds the lease) or "follower" (the
// lowest-numbered running node that does not).
struct NodeRef {
  bool leader = false;
  bool follower = false;
  int node = 0;  // 1-based; meaningful when neither role is set
  bool is_role() const { return leader || follower; }
  bool operator==(const NodeRef&) const = default;
};

// The fault kinds are the one vocabulary of faults (checker/fault_kind.h):
// a scenario's "kind", the catalogue's entries (runner/fault_catalogue.h),
// a live run's faults and a history's fault records all use its words.
using checker::FaultKind;
using checker::FaultKindName;
using checker::kFaultKindCount;

// A partition group member: a node number, or a service host.
struct Member {
  enum class Kind { kNode, kStore, kLedger, kReplica } kind = Kind::kNode;
  NodeRef node;  // kind == kNode
  int replica = 0;  // kind == kReplica: a number or kStoreLeaderReplica
  bool operator==(const Member&) const = default;
};

struct Fault {
  Nanos at = 0;
  FaultKind kind = FaultKind::kCrash;
  NodeRef node;
  Nanos duration = 0;          // pause, suspend, partition; 0 = until the run ends
  std::vector<std::vector<Member>> groups;  // partition
  std::int64_t drift_ppm = 0;  // clock_drift
  Nanos step = 0;              // clock_step
  std::vector<Member> from;    // partition_oneway, clog
  std::vector<Member> to;      // partition_oneway, clog
  backends::StoreOutage outage = backends::StoreOutage::kNone;  // store_outage
  Nanos extra = 0;             // store_latency
  int successor = 0;           // shutdown: preferred successor's node number, 0 = none
  // When set, the fault is armed at `at` and strikes when `node` (its
  // target, or for kinds without one the node whose arrival triggers it;
  // a role resolves when armed) reaches this named point of the protocol.
  std::string at_point;
  int arrival = 1;                // strike on the arrival-th qualifying arrival after arming
  Nanos lease_remaining_below = 0;  // > 0: only arrivals with less lease left (the node's own clock) qualify
  int replica = 0;   // replica_*: see FaultKind
  int region = -1;   // isolate_region
  int kv = 1;        // kv_*: the KV store host, 1-based (KvHostName)
  bool operator==(const Fault&) const = default;
};

// BUGGIFY-style scheduler hiccups: at every fault-point arrival, with this
// probability, the node is paused for a delay drawn uniformly in
// [1 ms, delay_max] from the run's "buggify" PRNG. Off when probability is 0.
struct BuggifyConfig {
  std::uint32_t probability_ppm = 0;
  Nanos delay_max = 0;
  bool enabled() const { return probability_ppm > 0 && delay_max > 0; }
  bool operator==(const BuggifyConfig&) const = default;
};

struct ClockSetting {
  int node = 0;
  std::int64_t drift_ppm = 0;  // the oscillator's rate error: every clock of the node
  Nanos wall_offset = 0;
  sim::TimeSyncConfig ntp;     // the node's NTP client (sim/time_sync.h); poll 0 = none
};

// A node whose lease timing differs from the scenario's (lease.by_node).
struct NodeTiming {
  int node = 0;
  core::TimingConfig timing;  // the scenario's timing with the node's overrides
};

// The seeded fault generator (runner/nemesis.h): its faults are drawn from
// the run's seed, and added to the hand-written list (or used alone).
struct NemesisConfig {
  bool enabled = false;
  int faults_max = 4;               // each run draws 1..faults_max faults
  bool within_assumptions = true;   // false: pauses, clogs and drift may exceed the stated bounds
  std::vector<std::string> kinds;   // the fault kinds it may draw from; empty = every kind
  bool swarm = true;                // draw which of those kinds are on per run; false = all on
  std::vector<std::string> points;  // fault points pauses/suspends/crashes aim at; empty = all but during_release
  Nanos from = 0;                   // faults start in [from, until]; until 0 = 3/4 of the run
  Nanos until = 0;
  // Strikes timed by protocol state: any kind may be aimed at a fault point,
  // at its k-th arrival, or only when the node's lease is running short.
  bool timed_strikes = false;
};

// The KV store hosts a scenario offers its protocol (core::Env::kv; the
// "kv" object, docs/SCENARIOS.md): `servers` independent single-server
// stores on hosts of their own, each as `server` configures it. None by
// default: a world without them is built and costs exactly as before.
struct KvSpec {
  int servers = 0;
  backends::KvServerConfig server;  // service latency, TTL clock, expiry loop, compaction window
  // "replicated": the one KV store is the scenario's replicated store
  // (store kind "replicated"), served by its Raft replicas with etcd's
  // lessor, rather than a single server on a host of its own; `server`
  // does not apply.
  bool replicated = false;
  // The KV store hosts of their own (the targets of the kv_* faults): none
  // when the KV store is the replicated store, whose replica faults strike it.
  int hosts() const { return replicated ? 0 : servers; }
};

// A KV store host's name: "kv" when the world has one store, else
// "kv1".."kvN" (`server` 1-based).
inline std::string KvHostName(int server, int servers) {
  return servers == 1 ? std::string("kv") : "kv" + std::to_string(server);
}

struct Scenario {
  std::string name;
  std::string description;
  int nodes = 0;
  Nanos duration = 0;
  std::string lease_key = "settlement-job";
  core::TimingConfig timing;
  Nanos settlement_period = 0;
  int batch_items = 0;
  Nanos settlement_poll = 0;
  backends::StoreServerConfig store;  // also the ledger's service latency
  std::string store_kind = "linearizable";
  sim::NetworkConfig network;
  std::vector<ClockSetting> clocks;
  std::vector<Fault> faults;
  // The protocol every node runs, by its registered name (core/protocol.h;
  // a zoo combination may join names with ','). A file that names none
  // runs the registry's default.
  std::string protocol = std::string(core::kLeasesimProtocol);
  std::vector<NodeTiming> timing_by_node;  // lease.by_node
  NemesisConfig nemesis;
  BuggifyConfig buggify;      // off by default
  ReplicatedSpec replicated;  // store kind "replicated", and "regions"
  KvSpec kv;                  // "kv": KV store hosts for the protocol (none by default)
  // expect.fault_points: every run must reach each of these named points at
  // least once, or it fails with a fault_point_not_reached violation.
  std::vector<std::string> expect_fault_points;
  std::vector<std::string> expect_violations;  // kinds this scenario must not fail on
  Nanos recovery_bound = 0;  // expect.recovery_ms_max; 0 = derived from the timing
};

struct ScenarioFile {
  std::string path;
  std::string file_digest;  // SHA-256 of the file's bytes, 64 hex digits (base/sha256.h); empty when not read from text
  std::vector<Scenario> scenarios;
  // "require_fault_points": the suite fails unless each of these points
  // fired at least once over all its runs (FaultPointsNeverFired in run.h).
  std::vector<std::string> require_fault_points;
  // "require_probes": likewise for coverage probes (core/probes.h): the
  // suite fails unless each was reached in some run (ProbesNeverReached).
  std::vector<std::string> require_probes;
  // Per scenario name, the SHA-256 (64 hex digits) of its JSON object with
  // keys sorted and no white space (what `protocol` overrides from the
  // command line do not change), so tools can tell whether two outputs ran
  // the same scenario. Empty when the file was not read from text.
  std::map<std::string, std::string> scenario_digests;
};

}  // namespace leasesim::runner
