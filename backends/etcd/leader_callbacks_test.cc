// The leader-callback API on real threads (RealEnv over an in-memory store,
// two "processes" sharing it): what a service relies on — the token it is
// started with, stopped with the reason and only after the job returned,
// new leaders reported, its own blocking I/O never stalling renewals, a
// release waiting for the side effect in flight.

#include "core/leader_callbacks.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "backends/etcd/memory_backends_test_util.h"
#include "backends/etcd/etcd_test_values.h"
#include "backends/etcd/real_env.h"
#include "base/units.h"
#include "core/leader_election.h"

namespace leasesim::etcd {
namespace {

using test_values::FastTiming;
using base::Millis;

// Swallows protocol events: these tests judge the callbacks, not the events.
class NullSink final : public core::EventSink {
 public:
  void Emit(const core::LeaseEvent&) override {}
};

// Waits (really) until `done` holds, at most `limit`.
template <typename Pred>
bool WaitFor(Pred done, std::chrono::milliseconds limit = std::chrono::milliseconds(3000)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// What a service's callbacks observed, written from the runner's thread.
struct Seen {
  std::mutex mu;
  std::vector<std::int64_t> started_tokens;
  std::vector<core::StoppedLeading> stopped;
  std::vector<std::string> leaders;
  std::atomic<bool> job_running{false};
  bool stopped_while_job_ran = false;

  core::LeaderCallbacks Callbacks() {
    return core::LeaderCallbacks{
        .on_started_leading =
            [this](core::LeaderContext& ctx) {
              {
                std::lock_guard<std::mutex> lock(mu);
                started_tokens.push_back(ctx.token());
              }
              job_running = true;
              // The job: act while the lease can be proven.
              for (int i = 0; i < 100'000 && ctx.Valid(); ++i) ctx.SleepUntil(ctx.Now() + Millis(5));
              job_running = false;
            },
        .on_stopped_leading =
            [this](const core::StoppedLeading& stop) {
              std::lock_guard<std::mutex> lock(mu);
              if (job_running) stopped_while_job_ran = true;
              stopped.push_back(stop);
            },
        .on_new_leader =
            [this](const std::string& holder) {
              std::lock_guard<std::mutex> lock(mu);
              leaders.push_back(holder);
            }};
  }
  template <typename Fn>
  auto Read(Fn fn) {
    std::lock_guard<std::mutex> lock(mu);
    return fn();
  }
};

// One process: its view of the store, its Env, its election.
struct Process {
  Process(MemoryStore& shared, MemoryLedger& ledger, const std::string& identity, core::LeaderCallbacks callbacks)
      : view(shared), env(view, ledger, sink) {
    election = std::make_unique<core::LeaderElection>(
        env, core::ElectorConfig{.key = "lease/job", .identity = identity, .timing = FastTiming()}, metrics,
        std::move(callbacks), core::RunnerConfig{.poll = Millis(5), .quiesce_timeout = Millis(500)},
        &env.callback_gate());
  }
  StoreView view;
  NullSink sink;
  core::LeaseMetrics metrics;
  RealEnv env;
  std::unique_ptr<core::LeaderElection> election;
};

TEST(LeaderCallbacks, StartedWithTheTokenStoppedWithTheReasonAfterTheJobAndOthersSeeTheLeader) {
  MemoryStore shared;
  MemoryLedger ledger;
  Seen a_seen, b_seen;
  Process a(shared, ledger, "a#1", a_seen.Callbacks());
  a.election->Start();
  ASSERT_TRUE(WaitFor([&] { return a_seen.Read([&] { return a_seen.started_tokens.size(); }) == 1; }));
  Process b(shared, ledger, "b#1", b_seen.Callbacks());
  b.election->Start();
  ASSERT_TRUE(WaitFor([&] { return b_seen.Read([&] { return b_seen.leaders.size(); }) == 1; }));
  EXPECT_EQ(b_seen.Read([&] { return b_seen.leaders[0]; }), "a#1");
  EXPECT_EQ(a_seen.Read([&] { return a_seen.leaders[0]; }), "a#1");  // its own acquisition
  EXPECT_TRUE(b_seen.Read([&] { return b_seen.started_tokens.empty(); }));

  a.view.down = true;  // a loses the store: it must stop before its deadline, b takes over after expiry
  ASSERT_TRUE(WaitFor([&] { return a_seen.Read([&] { return a_seen.stopped.size(); }) == 1; }));
  const core::StoppedLeading stop = a_seen.Read([&] { return a_seen.stopped[0]; });
  EXPECT_EQ(stop.token, a_seen.Read([&] { return a_seen.started_tokens[0]; }));
  // No renewal succeeded before the deadline. Who notices first is a race
  // between real threads: the renew loop, which knows the store refused
  // (kStoreUnavailable), or the job's own ctx.Valid() poll, which sees the
  // deadline pass (kDeadline); under load the job won 4 runs in 40 here.
  EXPECT_TRUE(stop.reason == core::DemotionReason::kStoreUnavailable ||
              stop.reason == core::DemotionReason::kDeadline)
      << core::DemotionReasonName(stop.reason);
  EXPECT_FALSE(a_seen.Read([&] { return a_seen.stopped_while_job_ran; }));
  ASSERT_TRUE(WaitFor([&] { return b_seen.Read([&] { return b_seen.started_tokens.size(); }) == 1; }));
  EXPECT_GT(b_seen.Read([&] { return b_seen.started_tokens[0]; }), stop.token);
  a.view.down = false;
  ASSERT_TRUE(WaitFor([&] { return a_seen.Read([&] { return a_seen.leaders.size(); }) == 2; }));
  EXPECT_EQ(a_seen.Read([&] { return a_seen.leaders[1]; }), "b#1");
  b.env.Stop();
  a.env.Stop();
}

TEST(LeaderCallbacks, TheJobsOwnBlockingIoDoesNotStallRenewals) {
  MemoryStore shared;
  MemoryLedger ledger;
  std::atomic<int> valid_after_block{-1};
  std::atomic<std::int64_t> renewals_during_block{0};
  core::LeaderCallbacks callbacks{.on_started_leading = [&](core::LeaderContext& ctx) {
    if (!ctx.Valid()) return;
    // Blocking I/O of the service, longer than the lease: outside the core
    // mutex (the gate), so the elector keeps renewing meanwhile.
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    valid_after_block = ctx.Valid() ? 1 : 0;
  }};
  Process a(shared, ledger, "a#1", std::move(callbacks));
  a.election->Start();
  std::int64_t renewals_before = 0;
  ASSERT_TRUE(WaitFor([&] {
    std::int64_t acquisitions = 0;
    a.env.WithCoreLock([&] {
      renewals_before = a.metrics.renewals_ok;
      acquisitions = a.metrics.acquisitions;
    });
    return acquisitions == 1;
  }));
  ASSERT_TRUE(WaitFor([&] { return valid_after_block.load() >= 0; }));
  a.env.WithCoreLock([&] { renewals_during_block = a.metrics.renewals_ok - renewals_before; });
  a.env.Stop();
  EXPECT_EQ(valid_after_block.load(), 1);
  EXPECT_GE(renewals_during_block.load(), 3);  // ~ one per 50 ms over 600 ms
}

TEST(LeaderCallbacks, AReleaseWaitsForTheSideEffectInFlightAndReportsReleased) {
  MemoryStore shared;
  MemoryLedger ledger;
  std::atomic<bool> in_effect{false};
  std::atomic<std::int64_t> effect_ended{0};
  std::atomic<int> effects_after_stop{0};
  std::atomic<bool> stop_reported{false};
  core::StoppedLeading stopped;
  core::LeaderCallbacks callbacks{
      .on_started_leading =
          [&](core::LeaderContext& ctx) {
            for (int i = 0; i < 1'000 && ctx.Valid(); ++i) {
              ctx.SetEffectInFlight(true);
              in_effect = true;
              std::this_thread::sleep_for(std::chrono::milliseconds(80));  // the write
              effect_ended = std::chrono::steady_clock::now().time_since_epoch().count();
              in_effect = false;
              ctx.SetEffectInFlight(false);
              if (stop_reported) effects_after_stop += 1;
              ctx.SleepUntil(ctx.Now() + Millis(2));
            }
          },
      .on_stopped_leading =
          [&](const core::StoppedLeading& stop) {
            stopped = stop;
            stop_reported = true;
          }};
  Process a(shared, ledger, "a#1", std::move(callbacks));
  a.election->Start();
  ASSERT_TRUE(WaitFor([&] { return in_effect.load(); }));
  std::atomic<bool> released{false};
  a.env.Spawn("shutdown", [&] {
    a.election->Shutdown("");
    released = true;
  });
  ASSERT_TRUE(WaitFor([&] { return released.load() && stop_reported.load(); }));
  a.env.Stop();
  ASSERT_NE(a.view.released_at.load(), 0);
  EXPECT_GE(a.view.released_at.load(), effect_ended.load());  // the write in flight finished first
  EXPECT_EQ(stopped.reason, core::DemotionReason::kReleased);
  EXPECT_EQ(effects_after_stop.load(), 0);
}

TEST(LeaderCallbacks, AFencedTokenEndsTheLeadershipAndAnEarlyReturnWaitsForTheEnd) {
  MemoryStore shared;
  MemoryLedger ledger;
  std::atomic<int> starts{0};
  std::atomic<int> stops{0};
  std::atomic<int> valid_after_fenced{-1};
  core::DemotionReason first_reason = core::DemotionReason::kDeadline;
  core::LeaderCallbacks callbacks{
      .on_started_leading =
          [&](core::LeaderContext& ctx) {
            if (starts.fetch_add(1) == 0) {
              ctx.ReportFenced();  // the resource saw a newer token
              valid_after_fenced = ctx.Valid() ? 1 : 0;
            }
            // Later leaderships: nothing to do, return at once while leading.
          },
      .on_stopped_leading =
          [&](const core::StoppedLeading& stop) {
            if (stops.load() == 0) first_reason = stop.reason;
            stops += 1;
          }};
  Process a(shared, ledger, "a#1", std::move(callbacks));
  a.election->Start();
  // Fenced, it campaigns again and re-adopts its own record: a second start.
  ASSERT_TRUE(WaitFor([&] { return starts.load() == 2; }));
  EXPECT_EQ(valid_after_fenced.load(), 0);
  EXPECT_EQ(first_reason, core::DemotionReason::kFenced);
  // The second job returned at once, but it still leads: no stop yet.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(stops.load(), 1);
  a.view.down = true;
  ASSERT_TRUE(WaitFor([&] { return stops.load() == 2; }));
  a.env.Stop();
}

}  // namespace
}  // namespace leasesim::etcd
