// The leader-callback contract in the simulated world, deterministically:
// two processes run their own job under one lease; the leader is cut off
// the store, must stop with the reason before its successor starts, and the
// job's last side effect comes before its stop; the cut-off process learns
// the new leader once it hears from the store again. The same seed gives
// the same sequence of callbacks.

#include "base/units.h"
#include "core/leader_election.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "backends/sim_kv_server.h"
#include "backends/sim_node.h"
#include "backends/sim_observer_test_support.h"
#include "backends/sim_services.h"

namespace leasesim::backends {
namespace {

// The lease store's calls, unrecorded.
class QuietKvObserver : public KvObserver {
 public:
  std::int64_t KvInvoked(int, std::string_view, const KvRequest&) override { return next_++; }
  void KvApplied(std::int64_t, const KvReply&) override {}
  void KvCompleted(std::int64_t, const KvReply&) override {}
  void KvLeaseExpired(const KvExpiry&) override {}

 private:
  std::int64_t next_ = 0;
};

using base::Millis;
using base::kNanosPerMilli;

// One process: its env, its election, and what its callbacks saw (as lines
// "<ms> <what>", in the order they ran).
struct Process {
  Process(sim::World& world, sim::Network& network, sim::HostId host, int node, SimKvServer& store,
          SimLedgerServer& ledger, SimObserver& observer)
      : identity("n" + std::to_string(node) + "#1"),
        env(world, network, host, node, identity, store, ledger, observer) {
    const core::TimingConfig timing{.lease_duration = Millis(4'000), .renew_interval = Millis(1'000),
                                    .renew_deadline = Millis(3'000), .retry = Millis(500),
                                    .request_timeout = Millis(600), .drift_bound_ppm = 1000,
                                    .safety_margin = Millis(500), .pause_budget = Millis(300)};
    core::LeaderCallbacks callbacks{
        .on_started_leading =
            [this, &world](core::LeaderContext& ctx) {
              Note(world, "started " + std::to_string(ctx.token()));
              for (int i = 0; i < 10'000; ++i) {
                if (!ctx.Check()) break;
                Note(world, "effect " + std::to_string(ctx.token()));
                ctx.SleepUntil(ctx.Now() + Millis(200));
              }
            },
        .on_stopped_leading =
            [this, &world](const core::StoppedLeading& stop) {
              Note(world, "stopped " + std::to_string(stop.token) + " " + core::DemotionReasonName(stop.reason));
            },
        .on_new_leader = [this, &world](const std::string& holder) { Note(world, "leader " + holder); }};
    election = std::make_unique<core::LeaderElection>(
        env, core::ElectorConfig{.key = "job", .identity = identity, .node_name = "n" + std::to_string(node),
                                 .timing = timing},
        metrics, std::move(callbacks), core::RunnerConfig{.poll = Millis(100), .quiesce_timeout = Millis(600)});
  }
  void Note(sim::World& world, const std::string& what) {
    seen.push_back(std::to_string(world.now() / kNanosPerMilli) + " " + what);
  }
  std::string identity;
  SimNodeEnv env;
  core::LeaseMetrics metrics;
  std::unique_ptr<core::LeaderElection> election;
  std::vector<std::string> seen;
};

// Both processes for 20 s; node 1 cut off the store from 5 s to 12 s.
std::pair<std::vector<std::string>, std::vector<std::string>> RunWorld(std::uint64_t seed) {
  sim::World world{seed, false};
  const sim::HostId h1 = world.AddHost({.name = "n1"});
  const sim::HostId h2 = world.AddHost({.name = "n2"});
  const sim::HostId store_host = world.AddHost({.name = "store"});
  const sim::HostId ledger_host = world.AddHost({.name = "ledger"});
  sim::Network network{world, base::Prng(seed + 1), {.latency = {.base_ns = sim::Millis(1)}}};
  NumberingObserver observer;  // keeps none of the reports: this test reads the callbacks
  QuietKvObserver store_observer;
  SimKvServer store{world, store_host, base::Prng(seed + 2), KvServerConfig{.service = {.base_ns = sim::Millis(2)}},
                    store_observer};
  SimLedgerServer ledger{world, ledger_host, base::Prng(seed + 3), {.base_ns = sim::Millis(2)}, observer, {}};
  for (sim::HostId h : {h1, h2, store_host, ledger_host}) world.Start(h);
  store.Start();
  Process a(world, network, h1, 1, store, ledger, observer);
  a.election->Start();
  world.RunUntil(sim::Millis(500));
  Process b(world, network, h2, 2, store, ledger, observer);  // joins once a leads
  b.election->Start();
  world.RunUntil(sim::Seconds(5));
  network.SetBlocked(h1, store_host, true);
  network.SetBlocked(store_host, h1, true);
  world.RunUntil(sim::Seconds(12));
  network.SetBlocked(h1, store_host, false);
  network.SetBlocked(store_host, h1, false);
  world.RunUntil(sim::Seconds(20));
  return {a.seen, b.seen};
}

TEST(LeaderCallbacksSim, ACutOffLeaderStopsWithTheReasonBeforeItsSuccessorStartsAndLearnsOfIt) {
  const auto [a, b] = RunWorld(7);
  const auto at = [](const std::vector<std::string>& seen, const std::string& what, bool last = false) {
    sim::Nanos found = -1;
    for (const std::string& line : seen) {
      const std::size_t space = line.find(' ');
      if (line.compare(space + 1, what.size(), what) != 0) continue;
      found = std::stoll(line.substr(0, space)) * kNanosPerMilli;
      if (!last) break;
    }
    return found;
  };
  // a leads first (its own acquisition reported, then started), b sees it.
  ASSERT_GE(a.size(), 3u);
  EXPECT_EQ(a[0].substr(a[0].find(' ') + 1), "leader n1#1");
  EXPECT_EQ(a[1].substr(a[1].find(' ') + 1), "started 1");
  EXPECT_GE(at(b, "leader n1#1"), 0);
  // Cut off at 5 s: a stops (its renewals time out: the deadline) ...
  const sim::Nanos stopped = at(a, "stopped 1 deadline");
  ASSERT_GE(stopped, sim::Seconds(5)) << ::testing::PrintToString(a);
  EXPECT_LE(stopped, sim::Seconds(5) + Millis(3'100));  // within its renew deadline (+ a poll)
  // ... after its last side effect, and before b starts in term 2.
  EXPECT_LT(at(a, "effect 1", /*last=*/true), stopped);
  const sim::Nanos b_started = at(b, "started 2");
  ASSERT_GE(b_started, 0) << ::testing::PrintToString(b);
  EXPECT_GT(b_started, stopped);
  EXPECT_GE(at(b, "effect 2"), b_started);
  // Healed at 12 s: a hears from the store again and learns who leads.
  EXPECT_GE(at(a, "leader n2#1"), sim::Seconds(12));
  EXPECT_LT(at(a, "started 2"), 0);  // and never ran b's term
}

TEST(LeaderCallbacksSim, TheSameSeedGivesTheSameCallbacks) {
  EXPECT_EQ(RunWorld(11), RunWorld(11));
}

}  // namespace
}  // namespace leasesim::backends
