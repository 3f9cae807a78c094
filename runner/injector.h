#pragma once
// Injection: applies a scenario's fault script to an assembled world
// (runner/run_world.h) through the fault catalogue. A fault fires at its
// at_ms: roles ("leader", "follower", "store_leader") resolve then, and its
// kind's strike acts and hands back the heal, scheduled `duration` later.
// A fault with at_point is armed instead, and strikes when its node reaches
// that point — on the arrival-th arrival after arming, counting only
// arrivals with less lease left than lease_remaining_below when that is set.
// At most one armed fault strikes per arrival (in script order); the others
// keep counting and strike at a later one. BUGGIFY hiccups (the scenario's
// "buggify") pause a node at a fault-point arrival no armed fault struck.

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "base/prng.h"
#include "core/fault_points.h"
#include "runner/run_world.h"
#include "runner/scenario.h"

namespace leasesim::runner {

// The fault script of one run, fired and armed against its world.
class Injector {
 public:
  Injector(RunWorld& world, const Scenario& scenario);
  ~Injector();
  Injector(const Injector&) = delete;
  Injector& operator=(const Injector&) = delete;

  // Clock settings that break the drift bound are faults from the start.
  void LogClockSettings();
  // Schedules every fault of the script at its at_ms.
  void ScheduleScript();
  // At the end of the run: logs every armed fault that never struck.
  void LogUnstruck();

  // --- what the catalogue's strike functions use -----------------------------
  RunWorld& parts() { return parts_; }
  sim::World& world() { return parts_.world(); }
  sim::Network& network() { return parts_.network(); }
  Recorder& recorder() { return parts_.recorder(); }
  const Scenario& scenario() const { return scenario_; }
  sim::HostId HostOf(int node) const { return parts_.HostOf(node); }
  // A member of the striking fault (groups, from, to) as resolved when it struck.
  sim::HostId HostOfMember(const Member& member) const;
  int NodeOf(const Member& member) const { return resolved_.at(&member); }
  // When a crash or shutdown leaves no node process alive, no leader can
  // return until a restart: the outage is a fault lasting until then.
  void NoteIfClusterDown();
  // A restart: ends that outage once the node runs again.
  void NoteRestarted(int node);
  // The same for the replicated store: while a majority of its replicas is
  // crashed it has no quorum and answers nothing, so the run records a
  // store_quorum_lost fault from the crash that broke the quorum to the
  // restart that restores it (the liveness checks wait for faults to end).
  void NoteReplicasChanged();
  // Moves the node's wall clock; returns its offset from true time after.
  Nanos StepWallClock(int node, Nanos step);

 private:
  struct Armed {
    int node;
    const Fault* fault;
    // fault->at_point, parsed once at arming (none: a name no point has, never reached).
    std::optional<core::FaultPoint> point;
    int arrivals = 0;  // qualifying arrivals since arming
  };
  void Fire(const Fault& fault);
  bool PointReached(int node, core::FaultPoint point);
  bool Qualifies(const Armed& armed) const;
  // A BUGGIFY pause at this arrival, unless an armed fault already struck.
  bool Hiccup(int node, core::FaultPoint point, bool struck);
  // Strikes now; struck_node is the node that reached `point` (a kNode
  // fault's target then), origin words the record ("buggify hiccup").
  void Strike(const Fault& fault, std::optional<int> struck_node, std::string_view point,
              std::string_view origin);
  bool ResolveMembers(const Fault& fault);
  // A pause or suspend that starts while (or just as) another stops the
  // same node is one stop as the process sees it: judged against the pause
  // budget by the whole stretch, not by its own length.
  bool StopWithinBudget(const Fault& fault, int node, bool own_verdict);
  std::optional<int> Resolve(const NodeRef& ref) const;

  RunWorld& parts_;
  const Scenario& scenario_;
  base::Prng buggify_;
  std::vector<Armed> armed_;  // in arming order
  // Node numbers (or replicas) the striking fault's role members resolved to.
  std::map<const Member*, int> resolved_;
  std::optional<std::size_t> cluster_down_;  // the open cluster_down fault record
  std::optional<std::size_t> quorum_lost_;   // the open store_quorum_lost fault record
  // Each node's wall-clock offset from true time, from settings and steps.
  std::map<int, Nanos> wall_offset_;
  struct Stop {
    Nanos from = 0;
    Nanos until = 0;
  };
  std::map<int, Stop> stops_;  // each node's latest stretch of back-to-back stops
};

}  // namespace leasesim::runner
