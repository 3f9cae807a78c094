// The search's waypoints: a case is a record holder while no later case
// has come closer on a near-miss figure, and figures that are not near
// misses never make one.

#include "fuzz/near_miss_records.h"

#include <gtest/gtest.h>

namespace leasesim::fuzz {
namespace {

TEST(NearMissRecords, ACaseHoldsARecordUntilALaterOneComesCloser) {
  NearMissRecords records;
  EXPECT_TRUE(records.Offer({{"handover_gap_min_ms", 40}, {"overlap_ms", 0}}, 0));
  EXPECT_FALSE(records.Offer({{"handover_gap_min_ms", 40}}, 1)) << "as close is not closer";
  EXPECT_TRUE(records.Offer({{"handover_gap_min_ms", 9}}, 2));
  EXPECT_EQ(records.HeldBy(0), 0);
  EXPECT_EQ(records.HeldBy(2), 1);
  EXPECT_TRUE(records.Offer({{"overlap_ms", 3}, {"stale_arrivals", 1}}, 3)) << "larger amounts are closer";
  EXPECT_FALSE(records.Offer({{"overlap_ms", 2}}, 4));
  EXPECT_EQ(records.HeldBy(3), 2);
}

TEST(NearMissRecords, ZeroMeansNothingHappenedAndOtherFiguresAreNoWaypoints) {
  NearMissRecords records;
  EXPECT_FALSE(records.Offer({{"handover_gap_min_ms", 0}, {"lease_end_margin_min_ms", 0}}, 0));
  EXPECT_FALSE(records.Offer({{"settlements_applied", 1'000}, {"probe_fenced_write", 1}}, 0));
  EXPECT_EQ(records.HeldBy(0), 0);
}

// The distances come from the figure registry: the five the checker
// derives, in the registry's order.
TEST(NearMissRecords, TheDistancesAreTheRegistrysSmallerIsCloserFigures) {
  const std::vector<std::string_view> expected = {"handover_gap_min_ms", "stale_arrival_lost_by_min_ms",
                                                  "lease_end_margin_min_ms", "takeover_margin_min_ms",
                                                  "write_lease_margin_min_ms"};
  EXPECT_EQ(DistancesToViolation(), expected);
}

}  // namespace
}  // namespace leasesim::fuzz
