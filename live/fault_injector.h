#pragma once
// Injects a live run's --faults at their times: resolves each target when
// the fault fires (the lease holder, the etcd leader, or a number), strikes
// through the fault table (live/live_faults.h), schedules its heal,
// completes armed faults when the node stops itself, and keeps the fault
// log (for the history) and the failover measurements. It sees the world
// only through FaultMechanisms and is told the time, so a test can drive it.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "checker/history.h"
#include "live/live_faults.h"

namespace leasesim::live {

// A fault that took the lease holder out, at true time `at`: the start of
// a failover measurement (ended by another holder's acquisition).
struct Takeout {
  std::int64_t at = 0;
  std::string victim;  // "n2#1"
  std::string kind;    // the fault kind's name
};

// Timed actions, due by CLOCK_MONOTONIC; run in time order, ties in the
// order scheduled. An action may schedule more.
class ActionQueue {
 public:
  static constexpr std::size_t kMaxPending = 4096;
  using Action = std::function<void(std::int64_t now)>;

  void At(std::int64_t at, Action action);
  void RunDue(std::int64_t now);
  std::size_t size() const { return pending_.size(); }

 private:
  // One scheduled action; `seq` breaks ties in scheduling order.
  struct Entry {
    std::int64_t at = 0;
    std::uint64_t seq = 0;
    Action run;
  };
  std::vector<Entry> pending_;
  std::uint64_t next_seq_ = 0;
};

// What the injector needs to know of the run.
struct InjectorSettings {
  std::int64_t start_mono = 0;  // CLOCK_MONOTONIC of true time 0
  std::int64_t pause_budget_ms = 0;
  std::int64_t arm_timeout_ns = 0;  // an armed stop that has not struck by then is disarmed and skipped
};

// The run's fault injector (see the top of the file).
class FaultInjector {
 public:
  FaultInjector(FaultMechanisms& mechanisms, InjectorSettings settings, std::ostream& out);

  // Each fault fires at start + its AT.
  void Schedule(const std::vector<LiveFault>& faults);
  // Runs what is due at `now` (CLOCK_MONOTONIC): strikes, heals, armed
  // stops that struck or timed out.
  void Tick(std::int64_t now);

  const std::vector<checker::FaultRecord>& log() const { return log_; }
  const std::vector<Takeout>& takeouts() const { return takeouts_; }

 private:
  // An armed fault waiting for its node to stop itself.
  struct Armed {
    LiveFault fault;
    StruckTarget target;
    bool holder = false;  // the target held the lease when armed
    std::int64_t deadline = 0;
  };

  void Inject(const LiveFault& fault, std::int64_t now);
  bool Resolve(const LiveFault& fault, const LiveFaultSpec& spec, StruckTarget& target);
  void Struck(const LiveFaultSpec& spec, const LiveFault& fault, const StruckTarget& target,
              const std::string& description, bool holder, std::int64_t now);
  void ScheduleHeal(const LiveFaultSpec& spec, const LiveFault& fault, const StruckTarget& target,
                    std::int64_t at);
  void OnSelfStop(const Incarnation& stopped, std::int64_t now);
  void ExpireArmed(std::int64_t now);
  void Skip(const LiveFaultSpec& spec, const LiveFault& fault, std::vector<int> nodes, const std::string& reason,
            std::int64_t now);
  void Record(checker::FaultRecord record);
  std::int64_t Rel(std::int64_t mono) const { return mono - settings_.start_mono; }

  FaultMechanisms& m_;
  InjectorSettings settings_;
  std::ostream& out_;
  ActionQueue queue_;
  std::vector<Armed> armed_;
  std::vector<checker::FaultRecord> log_;
  std::vector<Takeout> takeouts_;
};

}  // namespace leasesim::live
