#include "backends/lease_store.h"

#include <gtest/gtest.h>

namespace leasesim::backends {
namespace {

core::LeaseRecord Held(std::string holder, std::int64_t term) {
  return core::LeaseRecord{.holder = std::move(holder), .term = term, .duration_ns = 1};
}

TEST(LeaseStore, CreateIfAbsentThenCasOnVersion) {
  LeaseStore store;
  EXPECT_FALSE(store.Read("k").current.found);
  auto created = store.Create("k", Held("a", 1));
  ASSERT_EQ(created.status, core::StoreStatus::kOk);
  EXPECT_EQ(created.current.version, 1);
  auto again = store.Create("k", Held("b", 1));
  EXPECT_EQ(again.status, core::StoreStatus::kConflict);
  EXPECT_EQ(again.current.record.holder, "a");

  auto cas = store.CompareAndSet("k", 1, Held("a", 1));
  ASSERT_EQ(cas.status, core::StoreStatus::kOk);
  EXPECT_EQ(cas.current.version, 2);
  auto stale = store.CompareAndSet("k", 1, Held("b", 2));
  EXPECT_EQ(stale.status, core::StoreStatus::kConflict);
  EXPECT_EQ(stale.current.version, 2);
  EXPECT_EQ(store.Read("k").current.record.holder, "a");
}

TEST(LeaseStore, CasOnAnAbsentKeyConflicts) {
  LeaseStore store;
  EXPECT_EQ(store.CompareAndSet("k", 0, Held("a", 1)).status, core::StoreStatus::kConflict);
}

TEST(LeaseStore, VersionsArePerKey) {
  LeaseStore store;
  store.Create("a", Held("x", 1));
  store.Create("b", Held("y", 1));
  store.CompareAndSet("a", 1, Held("x", 1));
  EXPECT_EQ(store.Read("a").current.version, 2);
  EXPECT_EQ(store.Read("b").current.version, 1);
}

}  // namespace
}  // namespace leasesim::backends
