// The service contract on hand-made histories: each broken behaviour (a
// job that outlives its term, a callback out of order or late, a new leader
// nobody's record named, a leader gauge that stays up past the lease, a
// counter that goes back) is caught, and its correct twin is not.

#include "checker/service_contract_checks.h"

#include <gtest/gtest.h>

#include <sstream>

#include "base/units.h"
#include "checker/checker.h"
#include "checker/history_io.h"
#include "checker/test_store_ops.h"
#include "checker/violation_kind.h"

namespace leasesim::checker {
namespace {

using base::Millis;
constexpr TimeNs kLease = Millis(2000);
constexpr TimeNs kBound = Millis(100);  // the runner's poll plus the job's longest step

StoreOp Write(std::int64_t id, const std::string& holder, std::int64_t term, TimeNs applied,
              std::int64_t expected_version) {
  const int node = holder == "n2.1" ? 2 : 1;
  return test_ops::AppliedLeaseWrite(id, node, holder, term, applied - Millis(1), applied, applied + Millis(1),
                                     expected_version, kLease);
}

CallbackRecord Callback(CallbackKind kind, std::int64_t term, TimeNs at, const std::string& leader = "") {
  return CallbackRecord{.node = 1, .process = "n1.1", .kind = kind, .term = term, .leader = leader, .at_ns = at};
}

MetricSample Metric(const std::string& name, std::int64_t value, TimeNs at) {
  return MetricSample{.node = 1, .process = "n1.1", .name = name, .value = value, .at_ns = at};
}

// Node 1 leads term 1 from 10 ms to its deadline at 1.5 s; its callbacks and
// gauges say so, correctly: started at the acquisition, job steps, stopped
// 50 ms after the lease ended.
History OneLeadership() {
  History h;
  h.node_count = 2;
  h.end_ns = Millis(10'000);
  h.assumptions.callback_bound_ns = kBound;
  h.store_ops = {Write(0, "n1.1", 1, Millis(9), 0)};
  h.beliefs = {{1, "n1.1", 1, Millis(10), Millis(1500), "deadline"}};
  h.callbacks = {Callback(CallbackKind::kNewLeader, 0, Millis(10), "n1.1"),
                 Callback(CallbackKind::kStarted, 1, Millis(10)), Callback(CallbackKind::kJobStep, 1, Millis(20)),
                 Callback(CallbackKind::kJobStep, 1, Millis(1400)), Callback(CallbackKind::kStopped, 1, Millis(1550))};
  h.metrics = {Metric("is_leader", 1, Millis(10)), Metric("term", 1, Millis(10)),
               Metric("acquisitions_total", 1, Millis(10)), Metric("is_leader", 0, Millis(1500)),
               Metric("acquisitions_total", 1, Millis(1500))};
  return h;
}

std::vector<std::string> Kinds(const History& h) {
  Verdict verdict;
  CheckLeaderCallbacks(h, verdict);
  CheckServiceMetrics(h, verdict);
  std::vector<std::string> kinds;
  for (const Violation& v : verdict.violations) kinds.push_back(v.kind);
  return kinds;
}

std::vector<std::string> Only(ViolationKind kind) { return {KindName(kind)}; }

TEST(ServiceContract, ACorrectLeadershipPasses) { EXPECT_TRUE(Kinds(OneLeadership()).empty()); }

TEST(ServiceContract, AJobThatOutlivesItsTermIntoTheNextIsCaught) {
  // The lease of term 1 lapses at 1.5 s; node 1 takes term 2 at 1.6 s
  // (another record in between). The job of term 1 goes on under term 2:
  // neither stopped for term 1 nor started for term 2 is ever reported.
  History h = OneLeadership();
  h.store_ops.push_back(Write(1, "n1.1", 2, Millis(1599), 1));
  h.beliefs.push_back({1, "n1.1", 2, Millis(1600), Millis(5000), "conflict"});
  h.callbacks.pop_back();
  h.callbacks.push_back(Callback(CallbackKind::kJobStep, 1, Millis(1700)));
  h.metrics.push_back(Metric("is_leader", 1, Millis(1600)));
  h.metrics.push_back(Metric("is_leader", 0, Millis(5000)));
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kCallbackLate));
  Verdict verdict;
  CheckLeaderCallbacks(h, verdict);
  EXPECT_NE(verdict.violations[0].message.find("term 1 ended at 1.500s, but its leadership (started at 0.010s) "
                                               "was never reported stopped"),
            std::string::npos)
      << verdict.violations[0].message;
  // Had term 1's stop been reported, term 2's start would be missing.
  h.callbacks.insert(h.callbacks.end() - 1, Callback(CallbackKind::kStopped, 1, Millis(1550)));
  EXPECT_EQ(Kinds(h), (std::vector<std::string>{KindName(ViolationKind::kJobAfterStop),
                                                 KindName(ViolationKind::kCallbackLate)}));
}

TEST(ServiceContract, AJobThatGoesOnAfterItsCheckFoundTheLeaseGoneIsCaught) {
  // The lease lapses at 1.5 s and is re-confirmed in the same term at 1.52
  // s. The job looked in between (its check failed): that leadership is
  // over. Going on under the re-confirmed lease without a stop and a new
  // start is a context outliving its leadership into the next.
  History h = OneLeadership();
  h.beliefs.push_back({1, "n1.1", 1, Millis(1520), Millis(5000), "deadline"});
  h.callbacks.pop_back();
  CallbackRecord failed = Callback(CallbackKind::kJobStep, 1, Millis(1510));
  failed.lease_valid = false;
  h.callbacks.push_back(failed);
  h.callbacks.push_back(Callback(CallbackKind::kJobStep, 1, Millis(2000)));
  h.callbacks.push_back(Callback(CallbackKind::kStopped, 1, Millis(5010)));
  h.metrics.push_back(Metric("is_leader", 1, Millis(1520)));
  h.metrics.push_back(Metric("is_leader", 0, Millis(5000)));
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kCallbackOrder));
  // Correct: stopped after the failed check, started again.
  h.callbacks.resize(h.callbacks.size() - 2);
  h.callbacks.push_back(Callback(CallbackKind::kStopped, 1, Millis(1511)));
  h.callbacks.push_back(Callback(CallbackKind::kStarted, 1, Millis(1600)));
  h.callbacks.push_back(Callback(CallbackKind::kJobStep, 1, Millis(2000)));
  h.callbacks.push_back(Callback(CallbackKind::kStopped, 1, Millis(5010)));
  EXPECT_TRUE(Kinds(h).empty());
  // The job saw the loss but the stop never came.
  h.callbacks.resize(h.callbacks.size() - 4);
  EXPECT_EQ(Kinds(h), std::vector<std::string>(2, KindName(ViolationKind::kCallbackLate)));
}

TEST(ServiceContract, AStopLaterThanTheBoundIsCaught) {
  History h = OneLeadership();
  h.callbacks.back().at_ns = Millis(1600);  // 100 ms after the lease: within the bound
  EXPECT_TRUE(Kinds(h).empty());
  h.callbacks.back().at_ns = Millis(1601);
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kCallbackLate));
  h.assumptions.pause_budget_ns = Millis(1);  // a pause within the budget may hold the runner up
  EXPECT_TRUE(Kinds(h).empty());
}

// A runner's clock slow by the drift bound takes bound / (1 - drift) of
// true time, not bound * (1 + drift): at 10%, 100 ms may take 111.11 ms
// (the generic search found a correct stop 0.1 ms past the shorter
// allowance).
TEST(ServiceContract, AStopWithinTheBoundOnTheSlowestClockPasses) {
  History h = OneLeadership();
  h.assumptions.drift_bound_ppm = 100'000;
  h.callbacks.back().at_ns = Millis(1500) + 111'111'112;  // ceil(100 ms / 0.9), in ns
  EXPECT_TRUE(Kinds(h).empty());
  h.callbacks.back().at_ns += 1;
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kCallbackLate));
}

TEST(ServiceContract, ALeaseReconfirmedInItsTermBeforeTheJobLookedIsOneLeadership) {
  History h = OneLeadership();
  h.beliefs.push_back({1, "n1.1", 1, Millis(1520), Millis(3000), "deadline"});
  h.callbacks.back().at_ns = Millis(3050);
  EXPECT_TRUE(Kinds(h).empty());
}

TEST(ServiceContract, CallbacksOutOfOrderAreCaught) {
  History twice = OneLeadership();
  twice.callbacks.insert(twice.callbacks.begin() + 2, Callback(CallbackKind::kStarted, 1, Millis(15)));
  // The first of the two is never stopped, too.
  EXPECT_EQ(Kinds(twice), (std::vector<std::string>{KindName(ViolationKind::kCallbackOrder),
                                                     KindName(ViolationKind::kCallbackLate)}));
  History unstarted = OneLeadership();
  unstarted.callbacks.push_back(Callback(CallbackKind::kStopped, 1, Millis(1560)));
  EXPECT_EQ(Kinds(unstarted), Only(ViolationKind::kCallbackOrder));
  History not_held = OneLeadership();
  not_held.callbacks[1].at_ns = Millis(5);  // before the acquisition
  EXPECT_EQ(Kinds(not_held), Only(ViolationKind::kCallbackOrder));
}

TEST(ServiceContract, JobCodeAfterItsStopIsCaught) {
  History h = OneLeadership();
  h.callbacks.push_back(Callback(CallbackKind::kJobStep, 1, Millis(1550)));  // after the stop, same instant
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kJobAfterStop));
}

TEST(ServiceContract, ANewLeaderNoRecordNamedIsCaught) {
  History h = OneLeadership();
  h.callbacks.push_back(Callback(CallbackKind::kNewLeader, 0, Millis(1200), "n2.1"));
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kNewLeaderNotHolder));
  // Once n2.1's record is applied, naming it is right; long after its
  // record was replaced, it is not.
  h.store_ops.push_back(Write(1, "n2.1", 2, Millis(1100), 1));
  EXPECT_TRUE(Kinds(h).empty());
  h.store_ops.push_back(Write(2, "n1.1", 3, Millis(1150), 2));
  h.callbacks.back().at_ns = Millis(1150) + 2 * kBound + Millis(1);
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kNewLeaderNotHolder));
}

TEST(ServiceContract, ALeaderGaugeUpPastTheLeaseIsCaught) {
  // The elector backs off past its deadline: is_leader stays 1 until it wakes.
  History h = OneLeadership();
  h.metrics[3].at_ns = Millis(1501);  // the 1 ms a step of the protocol may take
  EXPECT_TRUE(Kinds(h).empty());
  h.metrics[3].at_ns = Millis(1800);
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kLeaderGaugeStale));
  Verdict verdict;
  CheckServiceMetrics(h, verdict);
  EXPECT_NE(verdict.violations[0].message.find("300.000 ms of a leader that was none"), std::string::npos)
      << verdict.violations[0].message;
  // While its host is paused nothing answers: down at once when it resumes.
  h.faults.push_back(FaultRecord{.kind = "pause", .nodes = {1}, .start_ns = Millis(1400), .end_ns = Millis(1800)});
  EXPECT_TRUE(Kinds(h).empty());
}

// A pause may end at the very instant the next one strikes (the process
// reached another fault point on resuming): it never ran in between, so the
// gauge may stay up through both, in either order of the fault records.
TEST(ServiceContract, ALeaderGaugeStaysUpThroughBackToBackPauses) {
  History h = OneLeadership();
  h.metrics[3].at_ns = Millis(1800);
  h.faults.push_back(FaultRecord{.kind = "pause", .nodes = {1}, .start_ns = Millis(1400), .end_ns = Millis(1600)});
  h.faults.push_back(FaultRecord{.kind = "pause", .nodes = {1}, .start_ns = Millis(1600), .end_ns = Millis(1800)});
  EXPECT_TRUE(Kinds(h).empty());
  std::swap(h.faults[h.faults.size() - 2], h.faults.back());
  EXPECT_TRUE(Kinds(h).empty());
  h.faults.back().end_ns = Millis(1550);  // a gap between them: it ran, and could have lowered it
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kLeaderGaugeStale));
}

// A timer fires when its clock reads the deadline whatever the rate did
// meanwhile (sim/ re-keys timers on a rate change): a drift change in the
// lease excuses no late answer.
TEST(ServiceContract, ALeaderGaugeLateAfterADriftChangeIsStale) {
  History h = OneLeadership();
  h.metrics[3].at_ns = Millis(1800);
  h.assumptions.lease_duration_ns = Millis(1000);
  h.faults.push_back(FaultRecord{.kind = "clock_drift", .nodes = {1}, .start_ns = Millis(1000), .end_ns = Millis(1000)});
  Verdict verdict;
  CheckServiceMetrics(h, verdict);
  EXPECT_TRUE(verdict.notes.empty());
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kLeaderGaugeStale));
}

// A suspend in the lease put the elector's monotonic timer off; a pause
// over the lease's end does not bring it back: the gauge may still lag
// past the pause's end by the suspended time.
TEST(ServiceContract, APauseOverTheLeasesEndKeepsTheLagAnEarlierSuspendAllowed) {
  History h = OneLeadership();
  h.assumptions.lease_duration_ns = kLease;
  h.faults.push_back(FaultRecord{.kind = "pause", .nodes = {1}, .start_ns = Millis(1400), .end_ns = Millis(1600)});
  h.metrics[3].at_ns = Millis(1700);
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kLeaderGaugeStale));  // a pause alone: due when it ends
  h.faults.push_back(FaultRecord{.kind = "suspend", .nodes = {1}, .start_ns = Millis(1000), .end_ns = Millis(1300)});
  EXPECT_TRUE(Kinds(h).empty());
}

// A node with a lease of its own (lease.by_node) arms its timers across
// that span: a suspend further back than the stated lease still delays them.
TEST(ServiceContract, ASuspendCountsOverTheNodesOwnLease) {
  History h = OneLeadership();
  h.assumptions.lease_duration_ns = Millis(200);
  h.faults.push_back(FaultRecord{.kind = "suspend", .nodes = {1}, .start_ns = Millis(1000), .end_ns = Millis(1250)});
  h.metrics[3].at_ns = Millis(1700);  // the lease ended at 1500 ms
  h.store_ops[0].value.duration_ns = Millis(200);
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kLeaderGaugeStale));
  h.store_ops[0].value.duration_ns = Millis(1000);  // its own lease reaches back past the suspend
  EXPECT_TRUE(Kinds(h).empty());
}

TEST(ServiceContract, ALeaderGaugeMayLagTheLeaseByTheTimeItsHostWasSuspended) {
  // A suspend of 300 ms ended before the deadline: the monotonic clock
  // stood still, so the elector's timer fires 300 ms late, and no later.
  History h = OneLeadership();
  h.assumptions.lease_duration_ns = kLease;
  h.faults.push_back(FaultRecord{.kind = "suspend", .nodes = {1}, .start_ns = Millis(1000), .end_ns = Millis(1300)});
  h.metrics[3].at_ns = Millis(1800);
  EXPECT_TRUE(Kinds(h).empty());
  h.metrics[3].at_ns = Millis(1802);  // the suspend, and the 1 ms a step may take
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kLeaderGaugeStale));
  // A clock slow by the drift bound (10%) makes up the 300 ms it lost in
  // 333.3 ms of true time.
  h.assumptions.drift_bound_ppm = 100'000;
  h.metrics[3].at_ns = Millis(1834);
  EXPECT_TRUE(Kinds(h).empty());
  h.metrics[3].at_ns = Millis(1836);
  EXPECT_EQ(Kinds(h), Only(ViolationKind::kLeaderGaugeStale));
}

TEST(ServiceContract, ALeaderGaugeOfACrashedProcessEndsWithIt) {
  History h = OneLeadership();
  h.metrics.erase(h.metrics.begin() + 3);
  h.beliefs[0].until_ns = Millis(700);
  h.beliefs[0].end_reason = "crash";
  h.callbacks.pop_back();
  h.callbacks.pop_back();
  h.faults.push_back(FaultRecord{.kind = "crash", .nodes = {1}, .start_ns = Millis(700), .end_ns = Millis(700)});
  EXPECT_TRUE(Kinds(h).empty());
}

TEST(ServiceContract, MetricsThatGoBackAreCaught) {
  History term = OneLeadership();
  term.metrics.push_back(Metric("term", 0, Millis(2000)));
  EXPECT_EQ(Kinds(term), Only(ViolationKind::kMetricRegressed));
  History counter = OneLeadership();
  counter.metrics.push_back(Metric("acquisitions_total", 0, Millis(2000)));
  EXPECT_EQ(Kinds(counter), Only(ViolationKind::kMetricRegressed));
  // A new incarnation starts its counters afresh.
  History restarted = OneLeadership();
  restarted.metrics.push_back(MetricSample{.node = 1, .process = "n1.2", .name = "acquisitions_total", .at_ns = Millis(3000)});
  EXPECT_TRUE(Kinds(restarted).empty());
}

TEST(ServiceContract, AProtocolThatReportsNothingIsNotJudged) {
  History h = OneLeadership();
  h.callbacks.clear();
  h.metrics.clear();
  h.beliefs.push_back({1, "n1.1", 2, Millis(3000), Millis(6000), "deadline"});
  EXPECT_TRUE(Kinds(h).empty());
}

TEST(ServiceContract, CallbacksAndMetricsSurviveTheHistoryFile) {
  History h = OneLeadership();
  h.metrics[3].at_ns = Millis(1800);  // broken, so the verdict shows the records were read
  std::stringstream file;
  WriteHistory(h, file);
  const HistoryReadResult read = ReadHistory(file.str());
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  EXPECT_EQ(read.history.callbacks.size(), h.callbacks.size());
  EXPECT_EQ(read.history.metrics.size(), h.metrics.size());
  EXPECT_EQ(read.history.assumptions.callback_bound_ns, kBound);
  EXPECT_EQ(read.history.callbacks[0].leader, "n1.1");
  EXPECT_EQ(Kinds(read.history), Only(ViolationKind::kLeaderGaugeStale));
  bool found = false;
  for (const Violation& v : CheckHistory(read.history).violations) found |= v.kind == KindName(ViolationKind::kLeaderGaugeStale);
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace leasesim::checker
