#include "core/settlement_job.h"

#include <algorithm>
#include <cassert>
#include <utility>

#include "core/events.h"
#include "core/fault_points.h"

namespace leasesim::core {

SettlementJob::SettlementJob(Env& env, SettlementConfig config, LeaseMetrics& metrics, const ProtocolRules& rules)
    : env_(env), config_(std::move(config)), metrics_(metrics), rules_(rules) {
  assert(config_.period > 0);
  assert(config_.poll > 0);
  assert(config_.batch_items > 0);
  assert(config_.request_timeout > 0);
}

LeaderCallbacks SettlementJob::Callbacks() {
  return LeaderCallbacks{.on_started_leading = [this](LeaderContext& ctx) { Lead(ctx); }};
}

RunnerConfig SettlementJob::RunnerFor() const {
  return RunnerConfig{.poll = config_.poll, .quiesce_timeout = config_.request_timeout, .task_name = "settlement"};
}

void SettlementJob::Lead(LeaderContext& ctx) {
  // The runner's look just proved the lease; each later round starts with
  // a look of its own after a poll.
  for (;;) {
    SettleDueWindows(ctx);
    if (ctx.lost()) return;
    ctx.SleepUntil(env_.MonotonicNow() + config_.poll);
    if (!ctx.Valid()) return;
  }
}

std::int64_t SettlementJob::LastDueWindow() {
  // Window k covers [epoch + k*period, epoch + (k+1)*period): due once over.
  const Nanos since_epoch = env_.WallNow() - config_.schedule_epoch_wall;
  if (since_epoch < config_.period) return -1;
  return since_epoch / config_.period - 1;
}

void SettlementJob::SettleDueWindows(LeaderContext& ctx) {
  if (ctx.token() != known_term_) {
    // New leadership: learn from the ledger where the schedule stands.
    const LedgerResult last = env_.ledger().LastAppliedWindow(config_.request_timeout);
    if (last.status != LedgerStatus::kApplied) return;
    known_term_ = ctx.token();
    next_window_ = last.last_window + 1;
  }
  const std::int64_t due = LastDueWindow();
  for (int round = 0; round < kWindowsPerRoundMax && next_window_ <= due; ++round) {
    if (!SettleWindow(ctx, next_window_)) return;
    next_window_ += 1;
  }
}

bool SettlementJob::Prove(LeaderContext& ctx, LeaseCheck check, int item, SettlementBatch& batch) {
  if (!rules_.ChecksLease(check, item)) return true;
  std::optional<LeaseGrant> grant = ctx.Check();
  if (!grant) {
    if (item > 0 || check == LeaseCheck::kBeforeWrite) env_.Sometimes(Probe::kLeaseLostMidBatch);
    return false;
  }
  batch.token = grant->term;
  batch.lease_deadline = grant->valid_until;
  return true;
}

bool SettlementJob::SettleWindow(LeaderContext& ctx, std::int64_t window) {
  SettlementBatch batch;
  batch.window = window;
  batch.idempotency_key = rules_.IdempotencyKey(window);
  for (int i = 0; i < config_.batch_items; ++i) {
    // Side effects stop the instant the lease cannot be proven, including
    // in the middle of preparing a batch.
    if (!Prove(ctx, LeaseCheck::kBeforeItem, i, batch)) return false;
    batch.items.push_back(SettlementItem{window, i, (window + 1) * 100 + i});
    env_.AtFaultPoint(FaultPoint::kBetweenBatchItems);
  }
  if (!Prove(ctx, LeaseCheck::kBeforeWrite, config_.batch_items, batch)) return false;
  ctx.SetEffectInFlight(true);  // from the last check until the ledger answers
  env_.AtFaultPoint(FaultPoint::kBeforeLedgerWrite);
  const LedgerResult result = env_.ledger().Commit(batch, config_.request_timeout);
  ctx.SetEffectInFlight(false);
  return Settled(ctx, batch, result);
}

bool SettlementJob::Settled(LeaderContext& ctx, const SettlementBatch& batch, const LedgerResult& result) {
  LeaseEvent event;
  event.holder = ctx.identity();
  event.term = batch.token;
  event.monotonic_ns = env_.MonotonicNow();
  event.window = batch.window;
  switch (result.status) {
    case LedgerStatus::kApplied:
      metrics_.settlements_applied += 1;
      event.kind = EventKind::kSettled;
      env_.events().Emit(event);
      return true;
    case LedgerStatus::kDuplicate:
      env_.Sometimes(Probe::kDuplicateSuppressed);
      metrics_.duplicate_settlements_suppressed += 1;
      event.kind = EventKind::kSettled;
      event.reason = "duplicate";
      env_.events().Emit(event);
      return true;
    case LedgerStatus::kRejectedStale:
      env_.Sometimes(Probe::kFencedWrite);
      event.kind = EventKind::kFenced;
      env_.events().Emit(event);
      ctx.ReportFenced();
      known_term_ = 0;
      return false;
    case LedgerStatus::kUnavailable:
    case LedgerStatus::kTimeout:
      env_.Sometimes(Probe::kLedgerCallFailed);
      return false;  // retried next round; the idempotency key makes that safe
  }
  return false;
}

}  // namespace leasesim::core
