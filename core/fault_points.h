#pragma once
// The named points in the protocol where a test world may strike (pause,
// suspend or crash the process exactly there, or start any other fault).
// Reached through Env::AtFaultPoint, so the core stays free of simulation.
// The names are the scenario files' vocabulary; they are defined here once.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace leasesim::core {

enum class FaultPoint {
  kBeforeLedgerWrite,  // after the job's last lease check, before its write
  kBetweenBatchItems,  // the job has prepared one item of a batch
  kBeforeRenew,        // the leader is about to send a renewal
  kAfterCasReply,      // a take or renewal write has just returned
  kDuringRelease,      // side effects stopped, the release not yet written
  kBeforeAcquire,      // a candidate is about to write the record to take the lease
};

inline constexpr std::array<std::string_view, 6> kFaultPointNames = {
    "before_ledger_write", "between_batch_items", "before_renew", "after_cas_reply", "during_release",
    "before_acquire"};
static_assert(kFaultPointNames.size() == static_cast<std::size_t>(FaultPoint::kBeforeAcquire) + 1,
              "every fault point has exactly one name");

constexpr std::string_view FaultPointName(FaultPoint point) {
  return kFaultPointNames[static_cast<std::size_t>(point)];
}

constexpr std::optional<FaultPoint> ParseFaultPoint(std::string_view name) {
  for (std::size_t i = 0; i < kFaultPointNames.size(); ++i) {
    if (kFaultPointNames[i] == name) return static_cast<FaultPoint>(i);
  }
  return std::nullopt;
}

// The names as constants, for code that speaks the scenario vocabulary.
namespace fault_points {
inline constexpr std::string_view kBeforeAcquire = FaultPointName(FaultPoint::kBeforeAcquire);
inline constexpr std::string_view kAfterCasReply = FaultPointName(FaultPoint::kAfterCasReply);
inline constexpr std::string_view kBeforeRenew = FaultPointName(FaultPoint::kBeforeRenew);
inline constexpr std::string_view kBetweenBatchItems = FaultPointName(FaultPoint::kBetweenBatchItems);
inline constexpr std::string_view kBeforeLedgerWrite = FaultPointName(FaultPoint::kBeforeLedgerWrite);
inline constexpr std::string_view kDuringRelease = FaultPointName(FaultPoint::kDuringRelease);
inline constexpr const std::array<std::string_view, 6>& kAll = kFaultPointNames;
}  // namespace fault_points

}  // namespace leasesim::core
