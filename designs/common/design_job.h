#pragma once
// The settlement job as a service writes it on top of a leader-election
// library, shared by every reference design (designs/*), so that the
// designs differ only in how they elect and what they believe, never in
// the job they protect.
//
// Each poll the job asks the library whether this process leads now (the
// library's own answer: client-go's IsLeader(), a campaign that returned
// and a session not Done(), a Redlock whose validity has not run out, a
// ZooKeeper latch with hasLeadership()). While it does, the job settles
// every due window of the wall-clock schedule, one batch per window with
// the window's idempotency key and the design's token, asking again before
// each batch — the check people write. It writes through Env::ledger(); the
// protocol's registration says whether that ledger compares tokens
// (Protocol::ledger_checks_fence), which is how a design runs with or
// without its fencing token.

#include <cstdint>
#include <functional>
#include <string>

#include "core/env.h"
#include "core/settlement_job.h"

namespace leasesim::designs {

using core::Nanos;

// What the design tells its job, each call answering for this instant.
struct JobLeadership {
  // The library says this process leads (required).
  std::function<bool()> leading;
  // The token a batch carries: the design's natural fencing number (its
  // term), which the checker also keys beliefs by (required).
  std::function<std::int64_t()> token;
  // The boot-clock deadline the design claims for its leadership, recorded
  // with the batch; 0 when it claims none (optional).
  std::function<Nanos()> claimed_deadline;
};

// The job's loop; one per node incarnation, on a task of its own.
class DesignJob {
 public:
  DesignJob(core::Env& env, core::SettlementConfig config, std::string identity);

  // Runs until Stop(): polls, and settles due windows while leading.
  void Run(const JobLeadership& leadership);
  // The next poll ends Run; a batch in flight completes first.
  void Stop() { stopping_ = true; }
  // Stop(), then blocks the calling task until Run has returned: a graceful
  // shutdown gives leadership up only once no batch is in flight, or the
  // write would go out after the release.
  void StopAndWait();

 private:
  // Settles due windows while the library says it leads; false on a fence.
  void SettleDue(const JobLeadership& leadership);
  // Writes one window's batch; false when the job must stop this round.
  bool Settle(const JobLeadership& leadership, std::int64_t window);
  std::int64_t LastDueWindow();

  static constexpr int kWindowsPerPollMax = 1'000;

  core::Env& env_;
  core::SettlementConfig config_;
  std::string identity_;  // the holder the job's events name
  bool stopping_ = false;
  bool running_ = false;  // Run has started and not yet returned
  // The highest window this process knows settled; learned from the ledger
  // at the start of each leadership, as a restarted service would.
  bool settled_known_ = false;
  std::int64_t settled_ = -1;
};

}  // namespace leasesim::designs
