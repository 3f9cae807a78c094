#pragma once
// Builds the checker's history from what the simulated backends report:
// store operations with their true invoke/complete times, ledger write
// attempts, each node's leadership beliefs (converted from the node's own
// clock to true time, exactly), and the fault log.

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/sim_observer.h"
#include "checker/history.h"
#include "core/fault_points.h"
#include "sim/world.h"

namespace leasesim::runner {

// The runner's SimObserver: turns the backends' reports into the history.
class Recorder final : public backends::SimObserver {
 public:
  // node_hosts[i] is the host of node i+1.
  Recorder(sim::World& world, std::vector<sim::HostId> node_hosts);

  std::int64_t StoreInvoked(int node, std::string_view process, backends::StoreOpKind kind,
                            const std::string& key, std::int64_t expected_version,
                            const core::LeaseRecord& value) override;
  void StoreApplied(std::int64_t op, std::int64_t applied_seq) override;
  void StoreCompleted(std::int64_t op, const core::StoreResult& result) override;
  std::int64_t WatchAnswered(int node, const std::string& process, const std::string& key,
                             std::int64_t applied_seq) override;
  std::int64_t LedgerSent(int node, const std::string& holder, const core::SettlementBatch& batch,
                          const backends::LedgerSendFacts& facts) override;
  void LedgerArrived(std::int64_t write, core::LedgerStatus status) override;
  void ProtocolEvent(int node, const core::LeaseEvent& event) override;
  bool FaultPointReached(int node, core::FaultPoint point) override;
  void ProbeReached(int node, core::Probe probe) override;

  // What the run does when a node reaches a fault point (true: it struck).
  void SetFaultPointAction(std::function<bool(int, core::FaultPoint)> action) {
    fault_point_action_ = std::move(action);
  }

  // Room for about n store ops (capped: a hint, not a bound).
  void ExpectStoreOps(std::size_t n) { history_.store_ops.reserve(std::min(n, kStoreOpsReservedMax)); }
  // The node's process died: its belief, if any, ends now.
  void NodeCrashed(int node);
  void AddFault(checker::FaultRecord fault);
  // The fault last added, and a later change to when it ended.
  std::size_t LastFaultIndex() const { return history_.faults.size() - 1; }
  void SetFaultEnd(std::size_t index, sim::Nanos end_ns) { history_.faults.at(index).end_ns = end_ns; }
  // The node that believes it holds the lease now (highest term), if any.
  std::optional<int> CurrentLeader() const;
  // How much lease the node believes it has left (its validity deadline
  // minus now, both on its own monotonic clock; negative once past it), or
  // nullopt when it believes it holds none.
  std::optional<sim::Nanos> RemainingLease(int node) const;

  // Protocol events counted by kind and reason ("renew_failed_timeout", ...),
  // and fault points reached ("fault_point_before_renew"); only counts above 0.
  std::map<std::string, std::int64_t> event_counts() const;
  // How often each coverage probe was reached, by core::Probe.
  const std::array<std::int64_t, core::kProbeNames.size()>& probe_counts() const { return probe_counts_; }

  // Closes open beliefs at the end of the run and hands the history over.
  checker::History Finish(checker::Assumptions assumptions, std::vector<std::int64_t> due_windows);

 private:
  struct OpenBelief {
    checker::LeadershipBelief belief;
    // The deadline the node claims, on its boot clock; 0 when its protocol
    // claims none (client-go's IsLeader() has none): the belief then lasts
    // until the node says it ended.
    sim::Nanos local_deadline = 0;
  };
  // When the open belief's claimed deadline passes in true time (never,
  // when it claims none).
  sim::Nanos ClaimEndsInTrueTime(int node, const OpenBelief& open) const;
  // A new store op, invoked now by the node's process, on `key`.
  checker::StoreOp& NewStoreOp(int node, std::string_view process, const std::string& key);
  std::optional<OpenBelief>& OpenBeliefOf(int node);
  const std::optional<OpenBelief>& OpenBeliefOf(int node) const;
  void CloseBelief(int node, const std::string& reason);
  void RecordClaim(int node, const core::LeaseEvent& event);
  // A callback or metric event (core::kProtocolEventKindCount and after).
  void RecordObservation(int node, const core::LeaseEvent& event);
  sim::Nanos DeadlineInTrueTime(int node, sim::Nanos local_deadline) const;

  static constexpr std::size_t kStoreOpsReservedMax = 1'000'000;
  sim::World& world_;
  std::vector<sim::HostId> node_hosts_;
  checker::History history_;
  std::vector<std::optional<OpenBelief>> open_beliefs_;  // [node - 1]
  std::array<std::int64_t, core::kProbeNames.size()> probe_counts_{};
  // Counted by id on the hot paths, named only when asked (event_counts()).
  std::int64_t renewals_ok_ = 0;
  std::array<std::int64_t, core::kFaultPointNames.size()> fault_point_counts_{};
  std::map<std::string, std::int64_t> rare_counts_;  // renewal failures by reason
  std::function<bool(int, core::FaultPoint)> fault_point_action_;
};

}  // namespace leasesim::runner
