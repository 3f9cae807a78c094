// TappedEnv hides nothing of the Env it wraps but the store and the events
// it taps: a protocol built over it still polls the inner Env's way and
// still reaches the inner Env's KV stores.

#include "core/leadership_tap.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string_view>

#include "core/kv_store.h"

namespace leasesim::core {
namespace {

// A KV client that is only compared by address here.
class UnusedKvClient final : public KvClient {
 public:
  KvTxnResult Txn(const KvTxn&, Nanos) override { return {}; }
  KvWatchResult Watch(const KvKeys&, std::int64_t, Nanos) override { return {}; }
  KvLeaseResult LeaseGrant(Nanos, Nanos) override { return {}; }
  KvLeaseResult LeaseKeepAlive(KvLeaseId, Nanos) override { return {}; }
  KvLeaseResult LeaseRevoke(KvLeaseId, Nanos) override { return {}; }
};

// An Env with two KV stores whose SleepInSteps is its own (counted), as a
// simulator's is.
class KvEnv final : public Env {
 public:
  Nanos MonotonicNow() override { return now_; }
  Nanos BootNow() override { return now_; }
  Nanos WallNow() override { return now_; }
  void SleepUntil(Nanos deadline) override { now_ = deadline; }
  void SleepInSteps(Nanos period, const std::function<bool()>& done) override {
    ++own_sleeps;
    Env::SleepInSteps(period, done);
  }
  void Spawn(std::string_view, std::function<void()>) override {}
  StoreClient& store() override { std::abort(); }
  LedgerClient& ledger() override { std::abort(); }
  EventSink& events() override { std::abort(); }
  int kv_servers() const override { return 2; }
  KvClient& kv(int server) override { return server == 0 ? first : second; }
  std::uint64_t Random() override { return 4; }

  int own_sleeps = 0;
  UnusedKvClient first;
  UnusedKvClient second;

 private:
  Nanos now_ = 0;
};

TEST(TappedEnv, PassesTheInnerEnvsKvStoresThrough) {
  KvEnv inner;
  LeadershipTap tap(inner);
  TappedEnv tapped(inner, tap);
  ASSERT_EQ(tapped.kv_servers(), 2);
  EXPECT_EQ(&tapped.kv(0), &inner.first);
  EXPECT_EQ(&tapped.kv(1), &inner.second);
}

TEST(TappedEnv, PollsTheInnerEnvsWay) {
  KvEnv inner;
  LeadershipTap tap(inner);
  TappedEnv tapped(inner, tap);
  int polls = 0;
  tapped.SleepInSteps(10, [&polls] { return ++polls == 3; });
  EXPECT_EQ(inner.own_sleeps, 1);
  EXPECT_EQ(polls, 3);
  EXPECT_EQ(tapped.MonotonicNow(), 30);
}

}  // namespace
}  // namespace leasesim::core
