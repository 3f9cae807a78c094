#pragma once
// What every reference design does alike around its library: reporting the
// library's answer as beliefs (docs/YOUR_PROTOCOL.md), and registering
// itself in its token modes.

#include <cstdint>
#include <string>

#include "core/env.h"
#include "core/protocol.h"

namespace leasesim::designs {

// A design's belief as the checker reads it: an event each time the
// library's answer ("this process leads") changes. No deadline is claimed
// (valid_until 0): the libraries modelled so far expose none.
class BeliefReport {
 public:
  BeliefReport(core::Env& env, std::string identity) : env_(env), identity_(std::move(identity)) {}
  // The library's answer now: `leading` under token `term`. When it ended,
  // `reason` says why; `released` when by a graceful stop (kReleased). A
  // new token while leading ends the belief under the old one and starts
  // one under the new (the checker keys beliefs and writes by token).
  void Note(bool leading, std::int64_t term, const std::string& reason, bool released);

 private:
  core::Env& env_;
  std::string identity_;
  bool reported_leading_ = false;
  std::int64_t reported_term_ = 0;
};

// Registers `design` twice: under its name, with a ledger that only
// deduplicates by window (no token), and as "<design>-fenced", with a
// ledger that compares the design's token. Both share Protocol::design.
void RegisterTokenModes(core::ProtocolRegistry& registry, const std::string& design, const std::string& summary,
                        const core::ProtocolBuilder& build, core::KvStoreNeeds kv_stores);

}  // namespace leasesim::designs
