#pragma once
// The named points in the protocol where a test world may strike (pause,
// suspend or crash the process exactly there). Reached through
// Env::FaultPoint, so the core stays free of simulation.

#include <array>
#include <string_view>

namespace leasesim::core::fault_points {

inline constexpr std::string_view kBeforeLedgerWrite = "before_ledger_write";  // after the lease check
inline constexpr std::string_view kBetweenBatchItems = "between_batch_items";
inline constexpr std::string_view kBeforeRenew = "before_renew";
inline constexpr std::string_view kAfterCasReply = "after_cas_reply";
inline constexpr std::string_view kDuringRelease = "during_release";

inline constexpr std::array<std::string_view, 5> kAll = {
    kBeforeLedgerWrite, kBetweenBatchItems, kBeforeRenew, kAfterCasReply, kDuringRelease};

}  // namespace leasesim::core::fault_points
