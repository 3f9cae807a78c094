#include "runner/world_generator.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "base/prng.h"
#include "core/timing.h"
#include "runner/fault_generator.h"
#include "runner/run.h"

namespace leasesim::runner {
namespace {

TEST(WorldGenerator, EveryTimingItDrawsObeysEveryRule) {
  PrngDraw draw(7);
  std::map<Nanos, int> leases;
  for (int i = 0; i < 5000; ++i) {
    const core::TimingConfig timing = GenerateTiming(draw);
    EXPECT_TRUE(core::ValidateTiming(timing).empty()) << i;
    leases[timing.lease_duration] += 1;
  }
  EXPECT_GE(leases.size(), 6u) << "the draw should span short and long leases";
}

// Boundary-value testing against the validator itself: some drawn timings
// sit right at the edge core::ValidateTiming allows for a field (one more
// millisecond fails), some have no safety margin at all.
TEST(WorldGenerator, SomeTimingsSitAtTheEdgeTheValidatorAllows) {
  PrngDraw draw(11);
  int deadline_edge = 0, timeout_edge = 0, no_margin = 0;
  constexpr int kDraws = 2000;
  for (int i = 0; i < kDraws; ++i) {
    const core::TimingConfig t = GenerateTiming(draw);
    core::TimingConfig longer = t;
    longer.renew_deadline += sim::kNanosPerMilli;
    deadline_edge += core::ValidateTiming(longer).empty() ? 0 : 1;
    longer = t;
    longer.request_timeout += sim::kNanosPerMilli;
    timeout_edge += core::ValidateTiming(longer).empty() ? 0 : 1;
    no_margin += t.safety_margin == 0 ? 1 : 0;
  }
  EXPECT_GT(deadline_edge, kDraws / 40);
  EXPECT_GT(timeout_edge, kDraws / 40);
  EXPECT_GT(no_margin, kDraws / 40);
  EXPECT_GT(kDraws - deadline_edge, kDraws / 10) << "loose timings must stay too";
}

// Answers recorded from a PRNG, or replayed with one part redrawn: what the
// search does to a case, one section (FaultDraw::BeginSection) at a time.
class RecordedDraw final : public FaultDraw {
 public:
  explicit RecordedDraw(std::uint64_t seed) : prng_(seed) {}
  RecordedDraw(std::vector<std::uint64_t> answers, std::uint64_t seed) : answers_(std::move(answers)), prng_(seed) {}
  std::uint64_t Below(std::uint64_t bound) override {
    if (next_ >= answers_.size()) answers_.push_back(prng_.Next());
    return answers_[next_++] % bound;
  }
  void BeginSection() override { sections_.push_back(next_); }
  const std::vector<std::uint64_t>& answers() const { return answers_; }
  const std::vector<std::size_t>& sections() const { return sections_; }

 private:
  std::vector<std::uint64_t> answers_;
  std::vector<std::size_t> sections_;
  base::Prng prng_;
  std::size_t next_ = 0;
};

struct ClockView {
  std::int64_t drift_ppm = 0;
  Nanos wall_offset = 0;
  Nanos ntp_poll = 0;
  Nanos ntp_step = 0;
  bool operator==(const ClockView&) const = default;
};

std::map<int, ClockView> Clocks(const Scenario& s) {
  std::map<int, ClockView> clocks;
  for (const ClockSetting& c : s.clocks) {
    clocks[c.node] = ClockView{c.drift_ppm, c.wall_offset, c.ntp.poll, c.ntp.poll > 0 ? c.ntp.step_threshold : 0};
  }
  return clocks;
}

// The search redraws one part of a world at a time: each node's drift, wall
// offset and NTP client are parts of their own, so one of them can change
// while the timing, the network and every other node's clock stay.
TEST(WorldGenerator, EachNodesClockIsAPartThatCanBeRedrawnAlone) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RecordedDraw first(seed);
    const Scenario world = GenerateWorld(first, WorldLimits{.nodes_min = 3, .nodes_max = 3});
    ASSERT_GE(first.sections().size(), 4u + 3u * 3u);
    const std::map<int, ClockView> before = Clocks(world);
    bool changed_alone = false;
    for (std::size_t k = 0; k < first.sections().size() && !changed_alone; ++k) {
      const std::size_t end = k + 1 < first.sections().size() ? first.sections()[k + 1] : first.answers().size();
      for (std::uint64_t variant = 1; variant <= 8 && !changed_alone; ++variant) {
        std::vector<std::uint64_t> answers = first.answers();
        base::Prng redraw(seed * 100 + variant);
        for (std::size_t i = first.sections()[k]; i < end; ++i) answers[i] = redraw.Next();
        RecordedDraw again(answers, seed);
        const Scenario other = GenerateWorld(again, WorldLimits{.nodes_min = 3, .nodes_max = 3});
        const std::map<int, ClockView> after = Clocks(other);
        const bool same_rest = other.timing.lease_duration == world.timing.lease_duration &&
                               other.settlement_period == world.settlement_period &&
                               other.network.loss_ppm == world.network.loss_ppm;
        const bool node2_changed = (before.contains(2) ? before.at(2) : ClockView{}) !=
                                   (after.contains(2) ? after.at(2) : ClockView{});
        bool others_same = true;
        for (int node : {1, 3}) {
          others_same = others_same && (before.contains(node) ? before.at(node) : ClockView{}) ==
                                           (after.contains(node) ? after.at(node) : ClockView{});
        }
        changed_alone = same_rest && node2_changed && others_same;
      }
    }
    EXPECT_TRUE(changed_alone) << "seed " << seed << ": no part redraws node 2's clock alone";
  }
}

TEST(WorldGenerator, SameSeedSameWorld) {
  const Scenario a = GenerateWorld(42);
  const Scenario b = GenerateWorld(42);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.duration, b.duration);
  EXPECT_EQ(a.timing.lease_duration, b.timing.lease_duration);
  EXPECT_EQ(a.clocks.size(), b.clocks.size());
  EXPECT_EQ(RunScenario(a, 42).trace_hash, RunScenario(b, 42).trace_hash);
}

// With no fault at all, whatever world is drawn, the correct protocol
// shows no violation: the world generator alone must not raise alarms.
TEST(WorldGenerator, TheCorrectProtocolPassesInFaultFreeWorlds) {
  std::map<std::string, int> kinds;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    const RunResult result = RunScenario(GenerateWorld(seed), seed);
    for (const checker::Violation& violation : result.unexpected) {
      if (kinds[violation.kind]++ == 0) ADD_FAILURE() << "seed " << seed << ": " << violation.kind << ": " << violation.message;
    }
  }
  EXPECT_TRUE(kinds.empty());
}

// The timeout rests on the round trip's p99 (docs/TIMING.md): a world
// whose latency alone times out more than 1% of calls makes leaders flap
// without end, a misconfiguration rather than a test.
TEST(WorldGenerator, EveryWorldKeepsTheRoundTripsP99InsideTheRequestTimeout) {
  int tailed = 0;
  for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
    const Scenario world = GenerateWorld(seed);
    const std::int64_t share =
        TimeoutShareBoundPpm(world.network.latency, world.store.service, world.timing.request_timeout);
    EXPECT_LE(share + 2 * static_cast<std::int64_t>(world.network.loss_ppm), 10'000) << "seed " << seed;
    if (world.network.latency.tail_ppm >= 100'000) ++tailed;
  }
  EXPECT_GT(tailed, 100) << "heavy tails that fit inside the timeout must stay";
}

TEST(WorldGenerator, TheTimeoutShareCountsEveryCombinationOfTails) {
  const sim::LatencyModel net{.base_ns = 1'000'000, .jitter_ns = 0, .tail_ppm = 100'000, .tail_ns = 60'000'000};
  const sim::LatencyModel store{.base_ns = 1'000'000, .jitter_ns = 0, .tail_ppm = 0, .tail_ns = 0};
  // 3 ms without tails; one tail makes 63 ms, two make 123 ms.
  EXPECT_EQ(TimeoutShareBoundPpm(net, store, 200'000'000), 0);
  EXPECT_EQ(TimeoutShareBoundPpm(net, store, 100'000'000), 10'000);   // both hops: 0.1 * 0.1
  EXPECT_EQ(TimeoutShareBoundPpm(net, store, 50'000'000), 190'000);   // either hop: 1 - 0.9 * 0.9
  EXPECT_EQ(TimeoutShareBoundPpm(net, store, 2'000'000), 1'000'000);  // the base alone is too slow
}

}  // namespace
}  // namespace leasesim::runner
