#include "ttl_lock/ttl_lock.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <memory>
#include <utility>

#include "base/units.h"
#include "core/events.h"

namespace ttl_lock {
namespace {

using leasesim::core::Env;
using leasesim::core::EventKind;
using leasesim::core::LeaseEvent;
using leasesim::core::LeaseRecord;
using leasesim::core::LedgerStatus;
using leasesim::core::Nanos;
using leasesim::core::NodeSetup;
using leasesim::core::StoreResult;
using leasesim::core::StoreStatus;

constexpr std::int64_t kPpm = leasesim::base::kPpmOne;  // signed, for the drift arithmetic
constexpr int kWindowsPerPollMax = 100;
constexpr std::int64_t kCreate = -1;  // TryTake: no record yet

// One node incarnation of the lock: a lock task and a job task on one Env.
class TtlLockNode final : public leasesim::core::ProtocolNode {
 public:
  TtlLockNode(Env& env, NodeSetup setup, bool wall_clock_validity)
      : env_(env), setup_(std::move(setup)), wall_clock_validity_(wall_clock_validity) {}

  void Start() override {
    env_.Spawn("ttl-lock", [this] { RunLock(); });
    env_.Spawn("settlement", [this] { RunJob(); });
  }

  // Stops acting at once and lets the lease run out (no release: the
  // record is taken over once it stands still for a lease).
  void Shutdown(const std::string& preferred_successor) override {
    (void)preferred_successor;
    stopping_ = true;
    if (leading_) Demote("released");
  }

 private:
  void RunLock() {
    while (!stopping_) {
      if (Campaign()) Lead();
    }
  }

  // Reads the record until it can be taken; true once this node holds it.
  bool Campaign() {
    const Nanos timeout = setup_.timing.request_timeout;
    const StoreResult read = env_.store().Read(setup_.key, timeout);
    if (read.status != StoreStatus::kOk) return Retry();
    if (!read.current.found) return TryTake(kCreate, 1);
    const LeaseRecord& record = read.current.record;
    if (record.holder.empty()) return TryTake(read.current.version, record.term + 1);
    // Held: judged expired only once its version stood still for the
    // holder's lease, the drift allowance added, on this node's own clock.
    if (read.current.version != watched_version_) {
      watched_version_ = read.current.version;
      watched_since_ = env_.MonotonicNow();
    }
    const Nanos wait = record.duration_ns + record.duration_ns * setup_.timing.drift_bound_ppm / kPpm;
    if (env_.MonotonicNow() - watched_since_ < wait) return Retry();
    return TryTake(read.current.version, record.term + 1);
  }

  // Creates the record (kCreate) or replaces version `version` with this
  // node's, at `term`; true when it won.
  bool TryTake(std::int64_t version, std::int64_t term) {
    take_sent_boot_ = env_.BootNow();
    take_sent_wall_ = env_.WallNow();
    const Nanos timeout = setup_.timing.request_timeout;
    return Take(version == kCreate ? env_.store().Create(setup_.key, RecordFor(term), timeout)
                                   : env_.store().CompareAndSet(setup_.key, version, RecordFor(term), timeout));
  }

  bool Retry() {
    env_.SleepUntil(env_.MonotonicNow() + setup_.timing.retry);
    return false;
  }

  LeaseRecord RecordFor(std::int64_t term) const {
    return LeaseRecord{.holder = setup_.identity, .term = term, .duration_ns = setup_.timing.lease_duration};
  }

  // The outcome of a create or takeover sent at take_sent_*; true when it won.
  bool Take(const StoreResult& result) {
    if (result.status != StoreStatus::kOk) return Retry();
    term_ = result.current.record.term;
    version_ = result.current.version;
    leading_ = true;
    Extend(take_sent_boot_, take_sent_wall_);
    Report(EventKind::kAcquired);
    return true;
  }

  // Validity runs from the send of the request that won or renewed it.
  void Extend(Nanos sent_boot, Nanos sent_wall) {
    const Nanos length = setup_.timing.lease_duration -
                         setup_.timing.lease_duration * setup_.timing.drift_bound_ppm / kPpm -
                         setup_.timing.safety_margin;
    valid_until_boot_ = sent_boot + length;
    valid_until_wall_ = sent_wall + length;
  }

  // Whether this node may act now.
  bool Valid() {
    if (!leading_) return false;
    // THE MISTAKE (ttl-lock): a deadline on the wall clock, which NTP steps.
    if (wall_clock_validity_) return env_.WallNow() < valid_until_wall_;
    return env_.BootNow() < valid_until_boot_;
  }

  // The deadline the node acts by, on the boot clock, as the report needs it.
  Nanos ClaimedDeadline() {
    if (wall_clock_validity_) return env_.BootNow() + (valid_until_wall_ - env_.WallNow());
    return valid_until_boot_;
  }

  void Report(EventKind kind, std::string reason = "") {
    LeaseEvent event{.kind = kind, .holder = setup_.identity, .term = term_, .version = version_};
    event.monotonic_ns = env_.MonotonicNow();
    event.boot_ns = env_.BootNow();
    if (kind == EventKind::kAcquired || kind == EventKind::kRenewed) event.valid_until_ns = ClaimedDeadline();
    event.reason = std::move(reason);
    env_.events().Emit(event);
  }

  void Demote(const std::string& reason) {
    leading_ = false;
    Report(EventKind::kDemoted, reason);
  }

  // Renews every renew interval until the lease can no longer be proven.
  void Lead() {
    Nanos next_renewal = env_.MonotonicNow() + setup_.timing.renew_interval;
    while (leading_ && !stopping_) {
      const Nanos left = ClaimedDeadline() - env_.BootNow();
      env_.SleepUntil(std::min(next_renewal, env_.MonotonicNow() + std::max<Nanos>(left, 1)));
      if (!leading_ || stopping_) return;
      if (!Valid()) return Demote("deadline");
      if (env_.MonotonicNow() < next_renewal) continue;
      const Nanos sent_boot = env_.BootNow();
      const Nanos sent_wall = env_.WallNow();
      const StoreResult renewed =
          env_.store().CompareAndSet(setup_.key, version_, RecordFor(term_), setup_.timing.request_timeout);
      if (renewed.status == StoreStatus::kConflict) return Demote("conflict");
      if (renewed.status == StoreStatus::kOk) {
        version_ = renewed.current.version;
        Extend(sent_boot, sent_wall);
        Report(EventKind::kRenewed);
        next_renewal = env_.MonotonicNow() + setup_.timing.renew_interval;
      } else {
        next_renewal = env_.MonotonicNow() + setup_.timing.retry;  // unknown: try again while valid
      }
    }
  }

  // Window k covers [epoch + k*period, epoch + (k+1)*period) of wall time.
  std::int64_t LastDueWindow() {
    const Nanos since_epoch = env_.WallNow() - setup_.settlement.schedule_epoch_wall;
    if (since_epoch < setup_.settlement.period) return -1;
    return since_epoch / setup_.settlement.period - 1;
  }

  void RunJob() {
    while (!stopping_) {
      env_.SleepUntil(env_.MonotonicNow() + setup_.settlement.poll);
      if (!Valid()) {
        settled_known_ = false;  // learn again from the ledger when leading
        continue;
      }
      if (!settled_known_) {
        const auto last = env_.ledger().LastAppliedWindow(setup_.settlement.request_timeout);
        if (last.status != LedgerStatus::kApplied) continue;
        settled_ = last.last_window;
        settled_known_ = true;
      }
      const std::int64_t due = LastDueWindow();
      for (int round = 0; round < kWindowsPerPollMax && settled_ < due && Valid(); ++round) {
        if (!Settle(settled_ + 1)) break;
      }
    }
  }

  // Writes one window's batch under the lease; false when the job must stop.
  bool Settle(std::int64_t window) {
    leasesim::core::SettlementBatch batch{.token = term_, .idempotency_key = "window-" + std::to_string(window),
                                          .window = window};
    for (int i = 0; i < setup_.settlement.batch_items; ++i) batch.items.push_back({window, i, (window + 1) * 100 + i});
    if (!Valid()) return false;  // proven right before the write
    batch.lease_deadline = ClaimedDeadline();
    env_.AtFaultPoint(leasesim::core::FaultPoint::kBeforeLedgerWrite);
    const auto result = env_.ledger().Commit(batch, setup_.settlement.request_timeout);
    if (result.status == LedgerStatus::kApplied || result.status == LedgerStatus::kDuplicate) {
      settled_ = window;
      return true;
    }
    if (result.status == LedgerStatus::kRejectedStale && leading_) Demote("fenced");
    return false;
  }

  Env& env_;
  const NodeSetup setup_;
  const bool wall_clock_validity_;
  bool leading_ = false;
  bool stopping_ = false;
  std::int64_t term_ = 0;
  std::int64_t version_ = 0;
  Nanos valid_until_boot_ = 0;
  Nanos valid_until_wall_ = 0;
  Nanos take_sent_boot_ = 0;
  Nanos take_sent_wall_ = 0;
  std::int64_t watched_version_ = -1;
  Nanos watched_since_ = 0;
  bool settled_known_ = false;
  std::int64_t settled_ = -1;
};

}  // namespace

leasesim::core::Protocol TtlLockProtocol(std::string name, bool wall_clock_validity) {
  return leasesim::core::Protocol{
      .name = std::move(name),
      .summary = wall_clock_validity ? "ttl-lock as shipped: the holder's lease measured on the wall clock"
                                     : "ttl-lock with its lease measured on the boot clock",
      .build = [wall_clock_validity](Env& env, const NodeSetup& setup) -> std::unique_ptr<leasesim::core::ProtocolNode> {
        return std::make_unique<TtlLockNode>(env, setup, wall_clock_validity);
      },
  };
}

}  // namespace ttl_lock
