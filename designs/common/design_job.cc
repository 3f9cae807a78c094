#include "designs/common/design_job.h"

#include <cassert>
#include <string>
#include <utility>

#include "core/events.h"

namespace leasesim::designs {

DesignJob::DesignJob(core::Env& env, core::SettlementConfig config, std::string identity)
    : env_(env), config_(std::move(config)), identity_(std::move(identity)) {
  assert(config_.poll > 0);
  assert(config_.period > 0);
  assert(config_.batch_items >= 1);
}

void DesignJob::Run(const JobLeadership& leadership) {
  assert(leadership.leading);
  assert(leadership.token);
  running_ = true;
  while (!stopping_) {
    env_.SleepUntil(env_.MonotonicNow() + config_.poll);
    if (stopping_) break;
    if (!leadership.leading()) {
      settled_known_ = false;  // learned again from the ledger when leading
      continue;
    }
    SettleDue(leadership);
  }
  running_ = false;
}

void DesignJob::StopAndWait() {
  stopping_ = true;
  if (!running_) return;
  env_.SleepInSteps(config_.poll, [this] { return !running_; });
}

void DesignJob::SettleDue(const JobLeadership& leadership) {
  if (!settled_known_) {
    const core::LedgerResult last = env_.ledger().LastAppliedWindow(config_.request_timeout);
    if (last.status != core::LedgerStatus::kApplied) return;
    settled_ = last.last_window;
    settled_known_ = true;
  }
  const std::int64_t due = LastDueWindow();
  for (int round = 0; round < kWindowsPerPollMax && settled_ < due; ++round) {
    if (stopping_ || !leadership.leading()) return;
    if (!Settle(leadership, settled_ + 1)) return;
  }
}

bool DesignJob::Settle(const JobLeadership& leadership, std::int64_t window) {
  core::SettlementBatch batch{
      .token = leadership.token(), .idempotency_key = "window-" + std::to_string(window), .window = window};
  for (int item = 0; item < config_.batch_items; ++item) {
    batch.items.push_back({window, item, (window + 1) * 100 + item});
    env_.AtFaultPoint(core::FaultPoint::kBetweenBatchItems);
  }
  if (!leadership.leading()) return false;  // the check right before the write
  batch.lease_deadline = leadership.claimed_deadline ? leadership.claimed_deadline() : 0;
  env_.AtFaultPoint(core::FaultPoint::kBeforeLedgerWrite);
  const core::LedgerResult result = env_.ledger().Commit(batch, config_.request_timeout);
  switch (result.status) {
    case core::LedgerStatus::kApplied:
    case core::LedgerStatus::kDuplicate:
      settled_ = window;
      env_.events().Emit(core::LeaseEvent{.kind = core::EventKind::kSettled,
                                          .holder = identity_,
                                          .term = batch.token,
                                          .monotonic_ns = env_.MonotonicNow(),
                                          .reason = result.status == core::LedgerStatus::kDuplicate ? "duplicate" : "",
                                          .window = window});
      return true;
    case core::LedgerStatus::kRejectedStale:
      // A newer token is at the ledger: the service stops writing this
      // round and learns the ledger's state again when it next leads.
      settled_known_ = false;
      env_.events().Emit(core::LeaseEvent{.kind = core::EventKind::kFenced,
                                          .holder = identity_,
                                          .term = batch.token,
                                          .monotonic_ns = env_.MonotonicNow(),
                                          .window = window});
      return false;
    case core::LedgerStatus::kUnavailable:
    case core::LedgerStatus::kTimeout:
      return false;  // the window's key makes the retry next poll safe
  }
  return false;
}

// Window k covers [epoch + k*period, epoch + (k+1)*period) of wall time.
std::int64_t DesignJob::LastDueWindow() {
  const Nanos since_epoch = env_.WallNow() - config_.schedule_epoch_wall;
  if (since_epoch < config_.period) return -1;
  return since_epoch / config_.period - 1;
}

}  // namespace leasesim::designs
