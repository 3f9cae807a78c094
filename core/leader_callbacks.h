#pragma once
// Run any job under the lease, through callbacks (client-go's
// leaderelection shape): started leading, with the fencing token and a check
// to make before every side effect; stopped leading, with the reason; a new
// leader observed. LeaderRunner is the task that calls them; LeaderContext
// is what a started job holds. The contract (docs/LEADER_CALLBACKS.md):
//
//  - Every callback runs on the runner's one task, one at a time, never
//    concurrently with another callback of the same runner.
//  - on_started_leading runs within one poll of the acquisition (the runner
//    looks at the lease every `poll`). It runs the job and must return once
//    ctx.Check() (or ctx.Valid()) says the lease is gone; it may return
//    earlier (nothing more to do), and is not called again for the same
//    leadership.
//  - on_stopped_leading runs after on_started_leading has returned and after
//    that leadership ended (expired, lost, fenced, released), with the
//    reason. When it runs, no code of the job is running any more.
//  - on_new_leader runs with the lease holder's identity each time the
//    holder the elector last saw in the record differs from the one last
//    reported (this process's own identity when it acquires), at the
//    runner's next poll; changes within one poll may be coalesced.
//  - A check proves the lease at the instant it is made, not when the side
//    effect lands: the resource must still reject a stale token (fencing).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/env.h"
#include "core/events.h"
#include "core/lease_elector.h"
#include "core/leadership_tap.h"

namespace leasesim::core {

class LeaderContext;

// Why a leadership ended, as on_stopped_leading hears it.
struct StoppedLeading {
  std::int64_t token = 0;   // the term the job ran under
  DemotionReason reason = DemotionReason::kDeadline;
};

struct LeaderCallbacks {
  std::function<void(LeaderContext&)> on_started_leading;       // required
  std::function<void(const StoppedLeading&)> on_stopped_leading;  // optional
  std::function<void(const std::string& holder)> on_new_leader;   // optional
};

// How the runner enters callback code, and how that code calls back into
// the core. In simulation (fibers) both run the code inline, the default.
// With real threads the Env serialises core code under one mutex: a gate
// (etcd::RealEnv::callback_gate()) releases it around a service's callback,
// so the callback's own blocking I/O never holds up the elector's renewals,
// and takes it again for each LeaderContext call.
class CallbackGate {
 public:
  virtual ~CallbackGate() = default;
  // Called from core code: runs a service's callback.
  virtual void Outside(const std::function<void()>& callback) = 0;
  // Called from a callback: runs core code.
  virtual void Inside(const std::function<void()>& core_code) = 0;
};

struct RunnerConfig {
  Nanos poll = 0;             // how often the runner looks at the lease
  Nanos quiesce_timeout = 0;  // a graceful release waits at most this long for an effect in flight
  std::string task_name = "leader-job";
};

class LeaderRunner;

// What a started job holds: its token, the check before each side effect,
// and sleeping. Valid only inside on_started_leading.
class LeaderContext {
 public:
  LeaderContext(LeaderRunner& runner, LeaseGrant grant);
  LeaderContext(const LeaderContext&) = delete;
  LeaderContext& operator=(const LeaderContext&) = delete;

  // The fencing token: pass it to the resource with every side effect.
  std::int64_t token() const { return token_; }
  const std::string& identity() const;

  // Proves the lease at this instant: the grant (token, validity deadline
  // on the boot clock, Env::BootNow) while this process validly holds the
  // lease in this term; nullopt once
  // it does not — the job must then start no further side effect and
  // return. Never valid again after the first nullopt.
  std::optional<LeaseGrant> Check();
  bool Valid() { return Check().has_value(); }
  // True once a check failed or the token was reported fenced.
  bool lost() const { return lost_; }

  // Marks a side effect in flight, from its last check until it returns; a
  // graceful release waits for it (bounded by quiesce_timeout) before
  // freeing the record, so none outlives the release.
  void SetEffectInFlight(bool in_flight);

  // The resource rejected the token (a newer one exists): demote at once.
  void ReportFenced();

  // The monotonic clock (Env::MonotonicNow), for SleepUntil.
  Nanos Now();
  // Sleeps on the monotonic clock. A check after it is needed before acting.
  void SleepUntil(Nanos monotonic_deadline);

 private:
  friend class LeaderRunner;

  std::optional<LeaseGrant> CheckInside();

  LeaderRunner& runner_;
  std::int64_t token_;
  bool lost_ = false;
  bool slept_ = false;  // slept since the last check
  // The check that found the lease gone saw it held in a newer term, and
  // was the job's first after a sleep (a fresh look): the runner takes the
  // next leadership from it at once instead of looking again a poll later.
  std::optional<LeaseGrant> next_;
};

// The task that runs the callbacks. One per elector.
class LeaderRunner {
 public:
  // `gate` may be null (inline); it must outlive the runner.
  LeaderRunner(Env& env, LeaseElector& elector, LeadershipTap& tap, LeaderCallbacks callbacks,
               RunnerConfig config, CallbackGate* gate = nullptr);

  // Runs forever on its own task: waits for leadership, runs the job.
  void Run();

  // Returns once no side effect marked in flight is running (bounded by
  // quiesce_timeout). A graceful release waits here after demoting.
  void WaitUntilQuiet();

  const RunnerConfig& config() const { return config_; }

 private:
  friend class LeaderContext;

  // Runs one leadership from `grant`; returns the grant of the next one
  // when the job's last, fresh look already saw it; nullopt otherwise.
  std::optional<LeaseGrant> Lead(LeaseGrant grant);
  // The job returned while its leadership was still valid: wait it out.
  void WaitForEnd(LeaderContext& ctx);
  void ReportNewLeader();
  // Tells the Env's EventSink what the callbacks did (core/events.h), so a
  // checker can hold them to the contract above.
  void Report(EventKind kind, std::int64_t term, const char* reason = "", const std::string& holder = {},
              std::int64_t value = 0);
  void Outside(const std::function<void()>& callback);
  void Inside(const std::function<void()>& core_code);

  static constexpr int kLeadershipsPerLookMax = 4;

  Env& env_;
  LeaseElector& elector_;
  LeadershipTap& tap_;
  LeaderCallbacks callbacks_;
  RunnerConfig config_;
  CallbackGate* gate_;
  bool in_flight_ = false;
  std::int64_t reported_holder_changes_ = 0;
  std::string reported_holder_;
  // The last report, when it was a job step: a run of checks of one term
  // with one answer is reported once, at its first (the judge needs no
  // more; a report per check cost the simulated hour 9% more instructions).
  bool last_report_was_step_ = false;
  std::int64_t last_step_term_ = 0;
  std::int64_t last_step_answer_ = 0;
};

}  // namespace leasesim::core
