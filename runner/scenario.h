#pragma once
// A scenario, as read from a scenario file: the world to build, the timing
// to run the protocol with, the fault script, and what the run must show.
// All times are integer nanoseconds and all probabilities integer parts per
// million here; the file writes milliseconds and decimals for people.

#include <cstdint>
#include <string>
#include <vector>

#include "core/timing.h"
#include "sim/network.h"
#include "sim/time.h"

namespace leasesim::runner {

using sim::Nanos;

// A fault's target node: a number, or whoever holds the lease when it fires.
struct NodeRef {
  bool leader = false;
  int node = 0;  // 1-based; meaningful when !leader
};

enum class FaultKind {
  kCrash,       // node
  kRestart,     // node
  kPause,       // node, duration: stop-the-world; clocks keep going
  kSuspend,     // node, duration: as pause, and the monotonic clock stops
  kPartition,   // groups, duration: no messages between groups
  kClockDrift,  // node, drift_ppm: the monotonic clock's rate from now on
  kClockStep,   // node, step: the wall clock jumps by step (may be negative)
};

const char* FaultKindName(FaultKind kind);

// A partition group member: a node number, or a service host.
struct Member {
  enum class Kind { kNode, kStore, kLedger } kind = Kind::kNode;
  int node = 0;
};

struct Fault {
  Nanos at = 0;
  FaultKind kind = FaultKind::kCrash;
  NodeRef node;
  Nanos duration = 0;          // pause, suspend, partition; 0 = until the run ends
  std::vector<std::vector<Member>> groups;  // partition
  std::int64_t drift_ppm = 0;  // clock_drift
  Nanos step = 0;              // clock_step
};

struct ClockSetting {
  int node = 0;
  std::int64_t drift_ppm = 0;
  Nanos wall_offset = 0;
};

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
  sim::LatencyModel store_latency;
  sim::NetworkConfig network;
  std::vector<ClockSetting> clocks;
  std::vector<Fault> faults;
  std::vector<std::string> expect_violations;  // kinds this scenario must not fail on
};

struct ScenarioFile {
  std::string path;
  std::vector<Scenario> scenarios;
};

}  // namespace leasesim::runner
