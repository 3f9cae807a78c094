#pragma once
// For the simulated backends' tests: a SimObserver that numbers the store's
// reports and answers every other report (the ledger's, the protocol's, the
// fault points and probes) with nothing. A test that records some of them
// overrides those; one that reads something else (the callbacks) uses it
// as it is.

#include <cstdint>
#include <string>
#include <string_view>

#include "backends/sim_observer.h"

namespace leasesim::backends {

class NumberingObserver : public SimObserver {
 public:
  std::int64_t StoreInvoked(int, std::string_view, StoreOpKind, const std::string&, std::int64_t,
                            const core::LeaseRecord&) override {
    return next_op_++;
  }
  void StoreApplied(std::int64_t, std::int64_t) override {}
  std::int64_t WatchAnswered(int, const std::string&, const std::string&, std::int64_t) override {
    return next_op_++;
  }
  void StoreCompleted(std::int64_t, const core::StoreResult&) override {}
  std::int64_t LedgerSent(int, const std::string&, const core::SettlementBatch&, const LedgerSendFacts&) override {
    return 0;
  }
  void LedgerArrived(std::int64_t, core::LedgerStatus) override {}
  void ProtocolEvent(int, const core::LeaseEvent&) override {}
  bool FaultPointReached(int, core::FaultPoint) override { return false; }
  void ProbeReached(int, core::Probe) override {}

 private:
  std::int64_t next_op_ = 0;
};

}  // namespace leasesim::backends
