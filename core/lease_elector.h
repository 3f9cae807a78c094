#pragma once
// The lease protocol of one process incarnation: campaign for the lease by
// compare-and-set, renew it well inside its duration, and demote itself the
// instant validity can no longer be proven. Runs as one task; other tasks of
// the process ask ValidLease() before every side effect.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/events.h"
#include "core/metrics.h"
#include "core/protocol_rules.h"
#include "core/timing.h"

namespace leasesim::core {

struct ElectorConfig {
  std::string key;        // the store key of the job's lease record
  std::string identity;   // unique per process incarnation, never a bare host name
  std::string node_name;  // stable across incarnations; names a preferred successor
  TimingConfig timing;
};

// Every broken rule of an elector configuration (timing included).
std::vector<TimingError> ValidateElectorConfig(const ElectorConfig& config);

// A lease the process may act under: its term (the fencing token) and the
// instant its validity ends, on the boot clock.
struct LeaseGrant {
  std::int64_t term = 0;
  Nanos valid_until = 0;
};

// The lease protocol of one incarnation: its campaign and renewal loop, and
// ValidLease() for the tasks that must prove the lease before acting.
class LeaseElector {
 public:
  // `rules` must outlive the elector; services keep the default.
  LeaseElector(Env& env, ElectorConfig config, LeaseMetrics& metrics,
               const ProtocolRules& rules = CorrectRules());

  // Campaigns and leads until Release() is called (or the process dies).
  void Run();

  // Graceful handoff: stop side effects at once, then release the record with
  // a version-checked CAS (empty holder, same term) so a successor can take
  // over without waiting for expiry; `preferred_successor` (a node name, may
  // be empty) takes over first. Never frees another holder's lease. After it,
  // this elector never campaigns again.
  // `quiesce` runs after side effects were told to stop and before the
  // record is written: it waits for a side effect already past its lease
  // check (a batch in flight) to finish, so none outlives the release.
  void Release(const std::string& preferred_successor, const std::function<void()>& quiesce = {});

  // After Release: returns once Run has returned (its task noticed the
  // release and no store call of it is in flight), bounded by one sleep
  // of the task and four store calls (a take in flight and its release).
  void WaitUntilStopped();

  // The lease, if this process holds one that is valid at this instant.
  std::optional<LeaseGrant> ValidLease();

  // The ledger rejected our token: someone holds a newer term. Demote now.
  void ReportFenced();

  const std::string& identity() const { return config_.identity; }
  // Whether this process believes it leads (ValidLease may still find the
  // lease expired); reads memory only.
  bool leading() const { return leading_; }

 private:
  // Returns true once this process holds the lease; false on shutdown.
  bool Campaign();
  // Returns once this process no longer leads.
  void Lead();
  // Sleeps until the boot clock reads `target`; true when the wake-up came
  // far later than asked (a pause, or a suspend: the boot clock counts both),
  // so a side effect checked before it may have gone out late.
  bool SleepDetectingPause(Nanos target);
  // One campaign step on a record just read; true once this process leads.
  bool ConsiderRecord(const VersionedRecord& seen, Observation& watched);
  // After a wait for a change timed out: true when the campaign's next step
  // would change nothing and only wait again (ConsiderRecord on the known
  // record would emit nothing, update nothing and take nothing). Reads only.
  bool OnlyWaitAgain(const VersionedRecord& seen, const Observation& watched, Nanos heard, Nanos quiet_max);
  // Tries to take the record at `observed` with `term`; true on success.
  bool TryTake(const VersionedRecord& observed, std::int64_t term, Probe on_success);
  // One renewal attempt; false once this process no longer leads.
  bool RenewOnce(Nanos& next_attempt, bool& last_attempt_unavailable, int& consecutive_failures);
  void RenewalSucceeded(const StoreResult& result, Nanos sent, Nanos now);
  // The leader's view after a renewal conflict; false when it lost the lease.
  bool RenewalConflicted(const VersionedRecord& current, Nanos now, Nanos& next_attempt);
  void RenewalFailed(StoreStatus status, Nanos sent, Nanos now);
  void DemoteAtDeadline(bool last_attempt_unavailable);
  void BecomeLeader(std::int64_t term, std::int64_t version, Nanos sent, Nanos acquired_wall);
  void Demote(DemotionReason reason);
  // Frees the record at `version` (ours, in `term`) with a version-checked
  // CAS, naming the preferred successor Release() was given.
  void WriteRelease(std::int64_t term, std::int64_t version);
  void Emit(EventKind kind, std::string reason = {}, std::string other = {});
  // As Emit, stamped with a reading taken for the whole step.
  void EmitAt(Nanos monotonic, EventKind kind, std::string reason = {}, std::string other = {});
  // The is_leader and term gauges: each change is reported as a metric
  // event, and a change of is_leader with a snapshot of the counters, so a
  // checker knows every value they had at every instant. `monotonic` is
  // the step's one reading: on a real host the clock moves between the
  // events of a step, and a gauge stamped before the acquisition it
  // follows would say "leader" before the belief it reports began.
  void SetLeaderGauge(bool leader, Nanos monotonic);
  void SetTermGauge(std::int64_t term, Nanos monotonic);
  void EmitMetric(const char* name, std::int64_t value, Nanos monotonic);
  LeaseRecord RecordFor(std::int64_t term) const;
  Nanos JitteredRetry();
  Nanos Backoff(int failures);
  // True when the machine was suspended since the last sample for longer
  // than the pause threshold.
  bool SuspendDetected();
  Nanos PauseThreshold() const;
  void Sample();

  Env& env_;
  ElectorConfig config_;
  LeaseMetrics& metrics_;
  const ProtocolRules& rules_;

  bool leading_ = false;
  std::int64_t term_ = 0;
  std::int64_t version_ = 0;
  // On the boot clock, like every instant of the leader's renewal schedule:
  // a suspend must count against the lease, as it does at the store.
  Nanos valid_until_ = 0;  // last successful renewal sent + renew_deadline
  Nanos last_renew_sent_ = 0;
  Nanos acquired_wall_ = 0;
  std::string last_observed_holder_;
  std::int64_t takes_attempted_ = 0;  // TryTake calls: a campaign reads the record afresh after one
  bool shutting_down_ = false;
  std::string release_successor_;  // as given to Release()
  bool running_ = false;  // Run has started and not returned
  Nanos sampled_mono_ = 0;
  Nanos sampled_boot_ = 0;
};

}  // namespace leasesim::core
