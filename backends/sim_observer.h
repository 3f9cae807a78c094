#pragma once
// What the simulated backends report as they run, so a recorder (the
// scenario runner) can build the history the checker judges. backends/ does
// not know the checker; the runner implements this interface.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/env.h"
#include "core/events.h"
#include "core/fault_points.h"

namespace leasesim::backends {

using Nanos = std::int64_t;

enum class StoreOpKind { kRead, kCreate, kCas };

// What the writer's own host knew when it sent a settlement batch.
struct LedgerSendFacts {
  // How far past its own lease deadline (its own clock) it was at send time,
  // 0 when its lease was valid.
  Nanos late_ns = 0;
  // How long (its own clock) it stood still between the protocol's last
  // point before a write and this send: a pause there.
  Nanos stalled_ns = 0;
  // The latest reading of its wall clock it had taken (the schedule it saw).
  Nanos wall_seen_ns = 0;
};

// The recorder's interface: one call per thing the simulated backends did.
class SimObserver {
 public:
  virtual ~SimObserver() = default;
  // A client sent a store operation; returns an id for the later calls.
  virtual std::int64_t StoreInvoked(int node, std::string_view process, StoreOpKind kind,
                                    const std::string& key, std::int64_t expected_version,
                                    const core::LeaseRecord& value) = 0;
  // The store applied (or evaluated) the operation, in this global order.
  virtual void StoreApplied(std::int64_t op, std::int64_t applied_seq) = 0;
  // The client learned the outcome; kTimeout means unknown.
  virtual void StoreCompleted(std::int64_t op, const core::StoreResult& result) = 0;
  // The store answered a watch (StoreClient::WaitForChange) on `key`: a read
  // invoked and applied now, in this global order, that no client call made
  // (it has no latency of its own). Returns an id for StoreCompleted.
  virtual std::int64_t WatchAnswered(int node, const std::string& process, const std::string& key,
                                     std::int64_t applied_seq) = 0;

  // A node sent a settlement batch; returns an id for LedgerArrived.
  virtual std::int64_t LedgerSent(int node, const std::string& holder, const core::SettlementBatch& batch,
                                  const LedgerSendFacts& facts) = 0;
  virtual void LedgerArrived(std::int64_t write, core::LedgerStatus status) = 0;

  // A protocol event from a node (acquired, renewed, demoted, ...).
  virtual void ProtocolEvent(int node, const core::LeaseEvent& event) = 0;

  // A node reached a fault point. The observer may pause, suspend or
  // crash the node's host right here; it returns true when it did, and the
  // node then yields so the fault takes effect at exactly this point.
  virtual bool FaultPointReached(int node, core::FaultPoint point) = 0;

  // A node ran one of the protocol's rare paths (a coverage probe).
  virtual void ProbeReached(int node, core::Probe probe) = 0;
};

}  // namespace leasesim::backends
