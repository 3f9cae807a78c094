#include "core/lease_elector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "base/units.h"
#include "core/events.h"
#include "core/timing_test_values.h"

namespace leasesim::core {
namespace {

using base::Millis;
using test_values::SoundTiming;

// Ends a test's otherwise endless protocol loop.
struct StopTest {};

// An in-memory linearizable store with per-key versions.
class FakeStore : public StoreClient {
 public:
  StoreResult Read(std::string_view key, Nanos) override {
    ++reads;
    if (unavailable) return {StoreStatus::kUnavailable, {}};
    return {StoreStatus::kOk, Get(key)};
  }
  StoreResult Create(std::string_view key, const LeaseRecord& record, Nanos) override {
    if (unavailable) return {StoreStatus::kUnavailable, {}};
    VersionedRecord& slot = records[std::string(key)];
    if (slot.found) return {StoreStatus::kConflict, slot};
    slot = {true, 1, record};
    return {StoreStatus::kOk, slot};
  }
  StoreResult CompareAndSet(std::string_view key, std::int64_t expected, const LeaseRecord& record,
                            Nanos) override {
    cas_terms.push_back(record.term);
    if (unavailable) return {StoreStatus::kUnavailable, {}};
    if (silent) return {StoreStatus::kTimeout, {}};
    VersionedRecord& slot = records[std::string(key)];
    if (!slot.found || slot.version != expected) return {StoreStatus::kConflict, slot};
    slot = {true, slot.version + 1, record};
    return {StoreStatus::kOk, slot};
  }
  VersionedRecord Get(std::string_view key) {
    auto it = records.find(std::string(key));
    return it == records.end() ? VersionedRecord{} : it->second;
  }
  std::map<std::string, VersionedRecord> records;
  std::vector<std::int64_t> cas_terms;
  bool unavailable = false;
  bool silent = false;  // CAS requests time out (outcome unknown)
  int reads = 0;
};

// A ledger these elector tests never reach: every call answers the default.
class NoLedger : public LedgerClient {
 public:
  LedgerResult Commit(const SettlementBatch&, Nanos) override { return {}; }
  LedgerResult LastAppliedWindow(Nanos) override { return {}; }
};

// A single-task environment: sleeping advances the clock; after `stop_at`
// the test's loop ends. Hooks let a test change the world at a given time.
class FakeEnv : public Env, public EventSink {
 public:
  Nanos MonotonicNow() override { return now; }
  Nanos BootNow() override { return now + suspended_ns; }
  // A suspend adds to the boot and wall clocks what the monotonic one missed.
  Nanos WallNow() override { return Millis(1'000'000) + now + suspended_ns + wall_offset; }
  void SleepUntil(Nanos deadline) override {
    if (deadline > now) now = deadline;
    if (on_sleep) on_sleep(now);
    if (now >= stop_at) throw StopTest{};
  }
  void Spawn(std::string_view, std::function<void()>) override {}
  StoreClient& store() override { return store_; }
  LedgerClient& ledger() override { return ledger_; }
  EventSink& events() override { return *this; }
  std::uint64_t Random() override { return 0; }
  void Emit(const LeaseEvent& event) override {
    if (event.kind == EventKind::kMetric) {
      // The gauges' story, kept apart from the protocol's.
      metrics.push_back(std::string(event.metric) + "=" + std::to_string(event.value));
      return;
    }
    std::string line = EventKindName(event.kind);
    if (!event.reason.empty()) line += ":" + event.reason;
    log.push_back(line);
    times.push_back(now);
  }

  Nanos now = 0;
  Nanos wall_offset = 0;   // NTP steps
  Nanos suspended_ns = 0;  // time the machine spent suspended
  Nanos stop_at = Millis(60'000);
  std::function<void(Nanos)> on_sleep;
  FakeStore store_;
  NoLedger ledger_;
  std::vector<std::string> log;
  std::vector<Nanos> times;
  std::vector<std::string> metrics;  // "is_leader=1", ...
};

void RunUntilStopped(LeaseElector& elector) {
  try {
    elector.Run();
  } catch (const StopTest&) {
  }
}

TEST(LeaseElector, FirstCandidateCreatesTermOneAndRenews) {
  FakeEnv env;
  env.stop_at = Millis(10'000);
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  const VersionedRecord record = env.store_.Get("job");
  EXPECT_EQ(record.record.holder, "a#1");
  EXPECT_EQ(record.record.term, 1);
  EXPECT_GE(metrics.renewals_ok, 3);
  ASSERT_FALSE(env.log.empty());
  EXPECT_EQ(env.log[0], "acquired");
  ASSERT_TRUE(elector.ValidLease().has_value());
  EXPECT_EQ(elector.ValidLease()->term, 1);
}

TEST(LeaseElector, TakesOverOnlyAfterTheVersionStoodStillForTheHoldersDuration) {
  FakeEnv env;
  env.store_.records["job"] = {true, 5, LeaseRecord{.holder = "b#1", .term = 4, .duration_ns = Millis(10'000)}};
  Nanos took_over_at = -1;
  env.on_sleep = [&](Nanos now) {
    if (took_over_at < 0 && env.store_.Get("job").record.holder == "a#1") took_over_at = now;
  };
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  const VersionedRecord record = env.store_.Get("job");
  EXPECT_EQ(record.record.holder, "a#1");
  EXPECT_EQ(record.record.term, 5);  // term + 1
  // First saw version 5 at t=0; 10 s + 10 ms of drift allowance must pass.
  EXPECT_GE(took_over_at, Millis(10'010));
  // Never judged from the record's wall-clock timestamps (they are zero here).
}

TEST(LeaseElector, ARenewingHolderIsNeverTakenOver) {
  FakeEnv env;
  env.store_.records["job"] = {true, 1, LeaseRecord{.holder = "b#1", .term = 1, .duration_ns = Millis(10'000)}};
  env.on_sleep = [&](Nanos now) {
    // b renews every 3 s.
    if (now % Millis(3'000) < Millis(1'000)) {
      VersionedRecord& slot = env.store_.records["job"];
      if (slot.record.holder == "b#1") slot.version += 1;
    }
  };
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  EXPECT_EQ(env.store_.Get("job").record.holder, "b#1");
  EXPECT_EQ(metrics.acquisitions, 0);
}

TEST(LeaseElector, ConflictDemotesAndCampaignsAgainAfterReReading) {
  FakeEnv env;
  env.stop_at = Millis(5'000);
  env.on_sleep = [&](Nanos now) {
    if (now >= Millis(2'000)) {
      VersionedRecord& slot = env.store_.records["job"];
      if (slot.record.holder == "a#1") slot = {true, slot.version + 1, LeaseRecord{.holder = "c#1", .term = 2, .duration_ns = Millis(10'000)}};
    }
  };
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  EXPECT_EQ(metrics.demotions_for(DemotionReason::kConflict), 1);
  EXPECT_FALSE(elector.ValidLease().has_value());
  EXPECT_NE(std::find(env.log.begin(), env.log.end(), "demoted:conflict"), env.log.end());
}

TEST(LeaseElector, EachChangeOfTheLeaderAndTermGaugesIsReported) {
  // As in the conflict test: a#1 leads term 1, c#1 takes term 2 at 2 s.
  FakeEnv env;
  env.stop_at = Millis(5'000);
  env.on_sleep = [&](Nanos now) {
    if (now >= Millis(2'000)) {
      VersionedRecord& slot = env.store_.records["job"];
      if (slot.record.holder == "a#1") slot = {true, slot.version + 1, LeaseRecord{.holder = "c#1", .term = 2, .duration_ns = Millis(10'000)}};
    }
  };
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  const auto at = [&](const std::string& sample) { return std::find(env.metrics.begin(), env.metrics.end(), sample); };
  ASSERT_NE(at("term=1"), env.metrics.end());
  ASSERT_NE(at("is_leader=1"), env.metrics.end());
  ASSERT_NE(at("is_leader=0"), env.metrics.end());
  EXPECT_LT(at("is_leader=1"), at("is_leader=0"));
  // The counters' snapshot follows each change of is_leader.
  EXPECT_EQ(*(at("is_leader=1") + 1), "acquisitions_total=1");
  EXPECT_NE(at("demotions_conflict_total=1"), env.metrics.end());
  EXPECT_NE(at("term=2"), env.metrics.end());  // seen in c#1's record
  EXPECT_EQ(std::count(env.metrics.begin(), env.metrics.end(), "term=1"), 1);  // only changes
}

TEST(LeaseElector, UnavailableStoreDemotesAtTheDeadlineMeasuredFromTheSend) {
  FakeEnv env;
  env.stop_at = Millis(20'000);
  env.on_sleep = [&](Nanos now) {
    if (now >= Millis(1)) env.store_.unavailable = true;
  };
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  // Acquired by the create sent at t=0: valid until 7 s, never renewed.
  EXPECT_EQ(metrics.demotions_for(DemotionReason::kStoreUnavailable), 1);
  EXPECT_EQ(metrics.renewals_ok, 0);
  const auto demoted = std::find(env.log.begin(), env.log.end(), "demoted:store_unavailable");
  ASSERT_NE(demoted, env.log.end());
  EXPECT_EQ(env.times[static_cast<std::size_t>(demoted - env.log.begin())], Millis(7'000));
}

TEST(LeaseElector, RenewalsThatTimeOutDemoteAtTheDeadlineAndNoLater) {
  FakeEnv env;
  env.stop_at = Millis(20'000);
  env.on_sleep = [&](Nanos now) {
    if (now >= Millis(1)) env.store_.silent = true;
  };
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  EXPECT_EQ(metrics.demotions_for(DemotionReason::kDeadline), 1);
  EXPECT_GE(metrics.renewals_failed_timeout, 1);
  const auto demoted = std::find(env.log.begin(), env.log.end(), "demoted:deadline");
  ASSERT_NE(demoted, env.log.end());
  // The create was sent at t=0: renew_deadline 7 s measured from that send.
  EXPECT_EQ(env.times[static_cast<std::size_t>(demoted - env.log.begin())], Millis(7'000));
}

TEST(LeaseElector, ASuspendDetectedByTheBootClockDemotes) {
  FakeEnv env;
  env.stop_at = Millis(8'000);
  bool suspended = false;
  env.on_sleep = [&](Nanos now) {
    if (!suspended && now >= Millis(3'000)) {
      suspended = true;
      env.suspended_ns += Millis(20'000);  // 20 s passed that the monotonic clock never saw
    }
  };
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  EXPECT_EQ(metrics.demotions_for(DemotionReason::kPauseDetected), 1);
}

TEST(LeaseElector, ReleaseStopsSideEffectsThenFreesTheRecordInTheSameTerm) {
  FakeEnv env;
  env.stop_at = Millis(4'000);
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  ASSERT_TRUE(elector.ValidLease().has_value());
  const std::int64_t version = env.store_.Get("job").version;
  elector.Release("b");
  EXPECT_FALSE(elector.ValidLease().has_value());
  const VersionedRecord record = env.store_.Get("job");
  EXPECT_EQ(record.record.holder, "");
  EXPECT_EQ(record.record.term, 1);
  EXPECT_EQ(record.record.preferred_successor, "b");
  EXPECT_EQ(record.version, version + 1);
  EXPECT_EQ(metrics.demotions_for(DemotionReason::kReleased), 1);
  // Demoted strictly before the store was told.
  const auto demoted = std::find(env.log.begin(), env.log.end(), "demoted:released");
  const auto released = std::find(env.log.begin(), env.log.end(), "released");
  EXPECT_LT(demoted, released);
}

TEST(LeaseElector, ReleaseNeverFreesAnotherHoldersLease) {
  FakeEnv env;
  env.stop_at = Millis(4'000);
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  ASSERT_TRUE(elector.ValidLease().has_value());
  // Someone else took the record meanwhile (our lease would have lapsed).
  VersionedRecord& slot = env.store_.records["job"];
  slot = {true, slot.version + 1, LeaseRecord{.holder = "c#1", .term = 2, .duration_ns = Millis(10'000)}};
  elector.Release("");
  EXPECT_EQ(env.store_.Get("job").record.holder, "c#1");
  EXPECT_EQ(env.store_.Get("job").record.term, 2);
}

TEST(LeaseElector, APreferredSuccessorTakesOverAtOnceOthersWait) {
  for (const char* name : {"b", "c"}) {
    FakeEnv env;
    env.store_.records["job"] = {true, 9, LeaseRecord{.holder = "", .term = 4, .duration_ns = Millis(10'000),
                                                      .preferred_successor = "b"}};
    env.stop_at = Millis(8'000);
    LeaseMetrics metrics;
    LeaseElector elector(env, {.key = "job", .identity = std::string(name) + "#1", .node_name = name, .timing = SoundTiming()},
                         metrics);
    RunUntilStopped(elector);
    EXPECT_EQ(env.store_.Get("job").record.term, 5) << name;
    const auto acquired = std::find(env.log.begin(), env.log.end(), "acquired");
    ASSERT_NE(acquired, env.log.end());
    const Nanos took_over_at = env.times[static_cast<std::size_t>(acquired - env.log.begin())];
    if (std::string(name) == "b") {
      EXPECT_LE(took_over_at, Millis(1'000));
    } else {
      EXPECT_GE(took_over_at, Millis(3'000));
    }
  }
}

TEST(LeaseElector, ValidLeaseRefusesRightAfterASuspendEvenBeforeTheRenewalLoopWakes) {
  FakeEnv env;
  env.stop_at = Millis(1'000);
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  ASSERT_TRUE(elector.ValidLease().has_value());
  env.suspended_ns += Millis(30'000);  // the machine slept 30 s; CLOCK_MONOTONIC did not count it
  EXPECT_FALSE(elector.ValidLease().has_value());
  // Validity is counted on the boot clock: the lease ran out while asleep.
  EXPECT_EQ(metrics.demotions_for(DemotionReason::kDeadline), 1);
}

TEST(LeaseElector, ASuspendShorterThanTheLeaseButBeyondThePauseBudgetDemotes) {
  FakeEnv env;
  env.stop_at = Millis(1'000);
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  ASSERT_TRUE(elector.ValidLease().has_value());
  env.suspended_ns += Millis(800);  // past the 500 ms pause threshold, well inside the deadline
  EXPECT_FALSE(elector.ValidLease().has_value());
  EXPECT_EQ(metrics.demotions_for(DemotionReason::kPauseDetected), 1);
}

// Found by the generic search: suspends, each within the pause budget, add
// up; a lease counted on CLOCK_MONOTONIC outlived the successor's takeover.
TEST(LeaseElector, SuspendsThatAddUpPastTheDeadlineEndTheLease) {
  FakeEnv env;
  env.stop_at = Millis(1'000);
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  const std::optional<LeaseGrant> before = elector.ValidLease();
  ASSERT_TRUE(before.has_value());
  for (int i = 0; i < 20; ++i) {
    env.suspended_ns += Millis(400);  // each below the 500 ms pause threshold
    if (!elector.ValidLease()) break;
  }
  EXPECT_FALSE(elector.ValidLease().has_value());
  EXPECT_EQ(metrics.demotions_for(DemotionReason::kDeadline), 1);
  // The deadline is the boot clock's: it passed after at most renew_deadline
  // of boot time since the last renewal was sent, whatever the monotonic clock read.
  EXPECT_LE(before->valid_until, env.BootNow());
  EXPECT_GT(before->valid_until, env.MonotonicNow());
}

// The wall clock is stepped by NTP, either way; suspend detection must not
// be fooled by it: a step forward is no suspend, and a step back during a
// suspend does not hide it.
TEST(LeaseElector, WallClockStepsNeitherFakeNorHideASuspend) {
  FakeEnv env;
  env.stop_at = Millis(1'000);
  LeaseMetrics metrics;
  LeaseElector elector(env, {.key = "job", .identity = "a#1", .node_name = "a", .timing = SoundTiming()}, metrics);
  RunUntilStopped(elector);
  env.wall_offset += Millis(60'000);
  EXPECT_TRUE(elector.ValidLease().has_value());
  env.suspended_ns += Millis(800);
  env.wall_offset -= Millis(800);  // the wall clock shows no gap at all
  EXPECT_FALSE(elector.ValidLease().has_value());
  EXPECT_EQ(metrics.demotions_for(DemotionReason::kPauseDetected), 1);
}

TEST(LeaseElector, ConfigValidationRejectsABareNodeNameAsIdentity) {
  const auto errors = ValidateElectorConfig({.key = "job", .identity = "a", .node_name = "a", .timing = SoundTiming()});
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].path, "identity");
}

}  // namespace
}  // namespace leasesim::core
