#pragma once
// The lease protocol of one process incarnation: campaign for the lease by
// compare-and-set, renew it well inside its duration, and demote itself the
// instant validity can no longer be proven. Runs as one task; other tasks of
// the process ask ValidLease() before every side effect.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/env.h"
#include "core/events.h"
#include "core/metrics.h"
#include "core/protocol_variant.h"
#include "core/timing.h"

namespace leasesim::core {

struct ElectorConfig {
  std::string key;        // the store key of the job's lease record
  std::string identity;   // unique per process incarnation, never a bare host name
  std::string node_name;  // stable across incarnations; names a preferred successor
  TimingConfig timing;
  // kCorrect in every real service; the others are the bug zoo (see
  // core/protocol_variant.h), each a small marked branch below.
  ProtocolVariant variant = ProtocolVariant::kCorrect;
};

// Every broken rule of an elector configuration (timing included).
std::vector<TimingError> ValidateElectorConfig(const ElectorConfig& config);

// A lease the process may act under: its term (the fencing token) and the
// monotonic instant its validity ends.
struct LeaseGrant {
  std::int64_t term = 0;
  Nanos valid_until = 0;
};

class LeaseElector {
 public:
  LeaseElector(Env& env, ElectorConfig config, LeaseMetrics& metrics);

  // Campaigns and leads until Release() is called (or the process dies).
  void Run();

  // Graceful handoff: stop side effects at once, then release the record with
  // a version-checked CAS (empty holder, same term) so a successor can take
  // over without waiting for expiry; `preferred_successor` (a node name, may
  // be empty) takes over first. Never frees another holder's lease. After it,
  // this elector never campaigns again.
  void Release(const std::string& preferred_successor);

  // The lease, if this process holds one that is valid at this instant.
  std::optional<LeaseGrant> ValidLease();

  // The ledger rejected our token: someone holds a newer term. Demote now.
  void ReportFenced();

  const std::string& identity() const { return config_.identity; }

 private:
  // Returns true once this process holds the lease; false on shutdown.
  bool Campaign();
  // Returns once this process no longer leads.
  void Lead();
  // Sleeps; true when the wake-up came far later than asked or the machine
  // was suspended meanwhile, so the lease may have lapsed unnoticed.
  bool SleepDetectingPause(Nanos target);
  // Tries to take the record at `observed` with `term`; true on success.
  bool TryTake(const VersionedRecord& observed, std::int64_t term);
  // BUG ZOO (kBlindWrite, kReleaseWithoutVersionCheck): an unconditional
  // write emulated over the store's CAS API: on a conflict, write again over
  // whatever version is there now.
  StoreResult Overwrite(const VersionedRecord& observed, const LeaseRecord& record);
  bool Is(ProtocolVariant variant) const { return config_.variant == variant; }
  void BecomeLeader(std::int64_t term, std::int64_t version, Nanos sent, Nanos acquired_wall);
  void Demote(DemotionReason reason);
  void Emit(EventKind kind, std::string reason = {}, std::string other = {});
  LeaseRecord RecordFor(std::int64_t term) const;
  Nanos JitteredRetry();
  Nanos Backoff(int failures);
  // True when wall time ran ahead of monotonic time by more than the safety
  // margin since the last sample: the machine was suspended meanwhile.
  bool SuspendDetected();
  Nanos PauseThreshold() const;
  void Sample();

  Env& env_;
  ElectorConfig config_;
  LeaseMetrics& metrics_;

  bool leading_ = false;
  std::int64_t term_ = 0;
  std::int64_t version_ = 0;
  Nanos valid_until_ = 0;       // monotonic: last successful renewal sent + renew_deadline
  Nanos last_renew_sent_ = 0;
  Nanos acquired_wall_ = 0;
  std::string last_observed_holder_;
  bool shutting_down_ = false;
  Nanos sampled_mono_ = 0;
  Nanos sampled_wall_ = 0;
  Nanos unseen_since_renewal_ = 0;  // time the monotonic clock missed since the last renewal (suspends)
};

}  // namespace leasesim::core
