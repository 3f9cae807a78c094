// The journal merge (with the ledger as the authority on what it applied)
// and the merged history as a file: written with checker::WriteHistory, it
// round-trips through checker::ReadHistory and `leasesim check` judges it.
// Journals are written by hand here: no etcd, no node process.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/figures.h"
#include "base/units.h"
#include "checker/check_command.h"
#include "checker/checker.h"
#include "checker/history_io.h"
#include "cli/commands.h"
#include "live/history_merge.h"
#include "live/live_judge.h"
#include "live/live_report.h"

namespace leasesim::live {
namespace {

using Json = nlohmann::json;
using base::Millis;
using base::kNanosPerMilli;
constexpr std::int64_t kT0 = Millis(1'000'000);  // CLOCK_MONOTONIC at the run's start

// A node's journal written by hand, one JSON line at a time.
class Journal {
 public:
  explicit Journal(std::string path) : path_(std::move(path)) {}
  Journal& Line(Json json) {
    lines_ += json.dump() + "\n";
    return *this;
  }
  void Save() const { std::ofstream(path_) << lines_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string lines_;
};

Json Event(const std::string& event, const std::string& holder, std::int64_t term, std::int64_t at_ms,
           std::int64_t valid_until_ms = 0) {
  Json json = {{"t", "ev"}, {"event", event}, {"holder", holder}, {"term", term}, {"version", 1},
               {"monotonic_ns", kT0 + at_ms * kNanosPerMilli}, {"at", kT0 + at_ms * kNanosPerMilli}};
  if (valid_until_ms > 0) json["valid_until_ns"] = kT0 + valid_until_ms * kNanosPerMilli;
  return json;
}

Json Send(std::int64_t w, const std::string& write_id, std::int64_t token, std::int64_t window, std::int64_t at_ms) {
  return {{"t", "ls"}, {"w", w}, {"write_id", write_id}, {"token", token},
          {"key", "settlement/window-" + std::to_string(window)}, {"window", window}, {"valid", true},
          {"at", kT0 + at_ms * kNanosPerMilli}};
}

Json Reply(std::int64_t w, const std::string& status, std::int64_t at_ms) {
  return {{"t", "lc"}, {"w", w}, {"status", status}, {"at", kT0 + at_ms * kNanosPerMilli}};
}

// The fixture: a scratch directory per test for journals and merged files.
class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("leasesim-merge-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  // Two nodes: n1 creates the lease, renews once, settles window 0 and is
  // killed mid-renewal at 2.5 s; n2 acquires term 2 at 7 s and demotes at 8 s.
  MergeInput CleanRun() {
    Journal n1(Path("n1.1.jsonl"));
    n1.Line({{"t", "hello"}, {"identity", "n1#1"}, {"at", kT0 + Millis(1)}})
        .Line({{"t", "si"}, {"op", 1}, {"kind", "create"}, {"key", "k"}, {"ev", 0},
               {"v", {{"holder", "n1#1"}, {"term", 1}, {"duration_ns", Millis(4000)}}}, {"at", kT0 + Millis(10)}})
        .Line({{"t", "sc"}, {"op", 1}, {"status", "ok"}, {"found", true}, {"version", 1},
               {"rv", {{"holder", "n1#1"}, {"term", 1}, {"duration_ns", Millis(4000)}}}, {"at", kT0 + Millis(14)}})
        .Line(Event("acquired", "n1#1", 1, 14, 3010))
        .Line({{"t", "si"}, {"op", 2}, {"kind", "cas"}, {"key", "k"}, {"ev", 1},
               {"v", {{"holder", "n1#1"}, {"term", 1}, {"duration_ns", Millis(4000)}}}, {"at", kT0 + Millis(1010)}})
        .Line({{"t", "sc"}, {"op", 2}, {"status", "ok"}, {"found", true}, {"version", 2},
               {"rv", {{"holder", "n1#1"}, {"term", 1}, {"duration_ns", Millis(4000)}}}, {"at", kT0 + Millis(1013)}})
        .Line(Event("renewed", "n1#1", 1, 1013, 4010))
        .Line(Send(3, "n1#1/1", 1, 0, 1500))
        .Line(Reply(3, "applied", 1504))
        // The next renewal never completes: the process was killed mid-call.
        .Line({{"t", "si"}, {"op", 4}, {"kind", "cas"}, {"key", "k"}, {"ev", 2},
               {"v", {{"holder", "n1#1"}, {"term", 1}, {"duration_ns", Millis(4000)}}}, {"at", kT0 + Millis(2010)}})
        .Save();
    Journal n2(Path("n2.1.jsonl"));
    n2.Line(Event("acquired", "n2#1", 2, 7000, 10000)).Line(Event("demoted", "n2#1", 2, 8000)).Save();

    MergeInput input;
    input.start_mono = kT0;
    input.end_mono = kT0 + Millis(20'000);
    input.node_count = 2;
    input.journals = {{1, 1, n1.path()}, {2, 1, n2.path()}};
    input.kills = {{1, 1, kT0 + Millis(2'500)}};
    input.applied = {etcd::AppliedBatch{.write_id = "n1#1/1", .token = 1, .window = 0, .revision = 9}};
    return input;
  }
  std::filesystem::path dir_;
};

TEST_F(MergeTest, BuildsBeliefsOpsAndWritesOnOneTimeLine) {
  MergeInput input = CleanRun();
  MergeOutput merged = MergeJournals(input);
  const checker::History& h = merged.history;
  EXPECT_TRUE(merged.warnings.empty());
  ASSERT_EQ(h.store_ops.size(), 3u);
  EXPECT_EQ(h.store_ops[0].kind, checker::StoreOpKind::kCreate);
  EXPECT_EQ(h.store_ops[0].invoke_ns, Millis(10));
  EXPECT_EQ(h.store_ops[0].complete_ns, Millis(14));
  EXPECT_EQ(h.store_ops[0].outcome, checker::Outcome::kOk);
  EXPECT_EQ(h.store_ops[1].version, 2);
  EXPECT_EQ(h.store_ops[2].outcome, checker::Outcome::kUnknown);
  EXPECT_EQ(h.store_ops[2].complete_ns, checker::kNeverNs);
  ASSERT_EQ(h.beliefs.size(), 2u);
  EXPECT_EQ(h.beliefs[0].holder, "n1#1");
  EXPECT_EQ(h.beliefs[0].from_ns, Millis(14));
  EXPECT_EQ(h.beliefs[0].until_ns, Millis(2'500));  // killed before its deadline (4.01 s)
  EXPECT_EQ(h.beliefs[0].end_reason, "crash");
  EXPECT_EQ(h.beliefs[1].until_ns, Millis(8'000));
  ASSERT_EQ(h.ledger_writes.size(), 1u);
  EXPECT_EQ(h.ledger_writes[0].result, checker::LedgerResult::kApplied);
  EXPECT_EQ(h.ledger_writes[0].arrived_ns, Millis(1'504));
  ASSERT_EQ(merged.renewal_latencies_ns.size(), 1u);
  EXPECT_EQ(merged.renewal_latencies_ns[0], Millis(3));
  EXPECT_TRUE(checker::CheckHistory(h).ok());
}

TEST_F(MergeTest, CallbacksAndMetricsBecomeRecordsTheCheckerJudges) {
  // n2's callbacks and gauges, journalled as core::ToJson writes them: its
  // leadership of term 2 (7 s to 8 s) is reported started and stopped, but
  // its is_leader gauge stays up 500 ms past the demotion.
  Journal n2(Path("n2.1.jsonl"));
  Json gauge_up = Event("metric", "n2#1", 2, 7000);
  gauge_up["metric"] = "is_leader";
  gauge_up["value"] = 1;
  Json started = Event("leading_started", "n2#1", 2, 7050);
  Json step = Event("job_step", "n2#1", 2, 7060);
  step["value"] = 1;
  Json stopped = Event("leading_stopped", "n2#1", 2, 8050);
  stopped["reason"] = "deadline";
  Json gauge_down = gauge_up;
  gauge_down["value"] = 0;
  gauge_down["monotonic_ns"] = kT0 + Millis(8'500);
  n2.Line(Event("acquired", "n2#1", 2, 7000, 10000)).Line(gauge_up).Line(started).Line(step);
  n2.Line(Event("demoted", "n2#1", 2, 8000)).Line(stopped).Line(gauge_down).Save();
  MergeInput input;
  input.start_mono = kT0;
  input.end_mono = kT0 + Millis(20'000);
  input.node_count = 2;
  input.journals = {{2, 1, n2.path()}};
  input.assumptions.callback_bound_ns = Millis(100);
  const checker::History h = MergeJournals(input).history;
  ASSERT_EQ(h.callbacks.size(), 3u);
  EXPECT_EQ(h.callbacks[0].kind, checker::CallbackKind::kStarted);
  EXPECT_EQ(h.callbacks[0].process, "n2#1");
  EXPECT_EQ(h.callbacks[0].at_ns, Millis(7'050));
  EXPECT_EQ(h.callbacks[1].kind, checker::CallbackKind::kJobStep);
  EXPECT_TRUE(h.callbacks[1].lease_valid);
  EXPECT_EQ(h.callbacks[2].reason, "deadline");
  ASSERT_EQ(h.metrics.size(), 2u);
  EXPECT_EQ(h.metrics[1].name, "is_leader");
  checker::Verdict verdict = checker::CheckHistory(h);
  ASSERT_EQ(verdict.violations.size(), 1u);
  EXPECT_EQ(verdict.violations[0].kind, "leader_gauge_stale");
}

// Found on real runs (every correct live run failed with both): the live
// history has no store order, so a new-leader report is judged by the
// writes sent by then; and a gauge raised in the acquiring step is stamped
// with that step's reading, not before the belief it reports.
TEST_F(MergeTest, ANewLeaderReportIsJudgedByTheWritesSentByThen) {
  MergeInput input = CleanRun();
  Journal n3(Path("n3.1.jsonl"));
  Json told = Event("new_leader_reported", "n3#1", 0, 100);
  told["other"] = "n1#1";
  Json told_wrong = Event("new_leader_reported", "n3#1", 0, 7100);
  told_wrong["other"] = "n9#1";  // never wrote a record
  n3.Line(told).Line(told_wrong).Save();
  input.journals.push_back({3, 1, n3.path()});
  input.node_count = 3;
  input.assumptions.callback_bound_ns = Millis(100);
  const checker::History h = MergeJournals(input).history;
  ASSERT_EQ(h.callbacks.size(), 2u);
  // (CleanRun's journals report no started callbacks: callback_late is
  // theirs, and not what this test is about.)
  std::vector<std::string> not_holder;
  for (const checker::Violation& v : checker::CheckHistory(h).violations) {
    if (v.kind == "new_leader_not_holder") not_holder.push_back(v.message);
  }
  ASSERT_EQ(not_holder.size(), 1u);
  EXPECT_NE(not_holder[0].find("that the new leader is n9#1"), std::string::npos) << not_holder[0];
}

TEST_F(MergeTest, TheLedgerDecidesWhatWasAppliedAndInWhichOrder) {
  // n1 (token 1) was stopped just before writing window 0; n2 (token 2)
  // took over and applied window 1; n1's late write then applied too (no
  // fencing). n1 timed out on its reply, so only the ledger knows.
  Journal n1(Path("n1.1.jsonl"));
  n1.Line(Send(1, "n1#1/1", 1, 0, 1000)).Line(Reply(1, "timeout", 12'000)).Save();
  Journal n2(Path("n2.1.jsonl"));
  n2.Line(Send(1, "n2#1/1", 2, 1, 9'000)).Line(Reply(1, "applied", 9'010)).Save();
  MergeInput input;
  input.start_mono = kT0;
  input.end_mono = kT0 + Millis(20'000);
  input.node_count = 2;
  input.journals = {{1, 1, n1.path()}, {2, 1, n2.path()}};
  input.applied = {etcd::AppliedBatch{.write_id = "n2#1/1", .token = 2, .window = 1, .revision = 20},
                   etcd::AppliedBatch{.write_id = "n1#1/1", .token = 1, .window = 0, .revision = 21}};
  MergeOutput merged = MergeJournals(input);
  const checker::History& h = merged.history;
  ASSERT_EQ(h.ledger_writes.size(), 2u);
  EXPECT_EQ(h.ledger_writes[0].result, checker::LedgerResult::kApplied);  // n1's, despite its timeout
  EXPECT_GT(h.ledger_writes[0].arrived_ns, h.ledger_writes[1].arrived_ns);  // revision order
  const checker::Verdict verdict = checker::CheckHistory(h);
  ASSERT_FALSE(verdict.ok());
  EXPECT_EQ(verdict.violations[0].kind, "stale_token_write");
}

// Found in CI: the orchestrator noted the run's end, then killed the nodes
// one by one; the leader, killed last, sent a write in between. It still
// led then (its deadline was later), so the write is inside its belief.
TEST_F(MergeTest, ALeaderAliveAtTheEndLeadsUntilItsLastLineNotTheRecordedEnd) {
  Journal n1(Path("n1.1.jsonl"));
  n1.Line(Event("acquired", "n1#1", 1, 100, 12'000)).Line(Send(1, "n1#1/1", 1, 9, 10'005)).Save();
  MergeInput input;
  input.start_mono = kT0;
  input.end_mono = kT0 + Millis(10'001);
  input.node_count = 1;
  input.journals = {{1, 1, n1.path()}};
  input.applied = {etcd::AppliedBatch{.write_id = "n1#1/1", .token = 1, .window = 9, .revision = 5}};
  const MergeOutput merged = MergeJournals(input);
  const checker::History& h = merged.history;
  ASSERT_EQ(h.beliefs.size(), 1u);
  EXPECT_EQ(h.beliefs[0].until_ns, Millis(10'005));
  EXPECT_EQ(h.beliefs[0].end_reason, "end_of_run");
  const checker::Verdict verdict = checker::CheckHistory(h);
  EXPECT_TRUE(verdict.ok()) << (verdict.violations.empty() ? "" : verdict.violations[0].message);
}


TEST_F(MergeTest, AMergedHistoryRoundTripsThroughTheHistoryFormat) {
  MergeInput input = CleanRun();
  input.faults = {{.kind = "crash", .nodes = {1}, .start_ns = Millis(2'500), .end_ns = Millis(2'500),
                   .description = "SIGKILL n1#1"}};
  input.assumptions = {.drift_bound_ppm = 1000, .pause_budget_ns = Millis(300), .lease_duration_ns = Millis(4000),
                       .renew_interval_ns = Millis(1000), .retry_ns = Millis(500), .settlement_period_ns = Millis(1000),
                       .recovery_bound_ns = Millis(9000)};
  input.due_windows = {0, 1};
  const checker::History merged = MergeJournals(input).history;
  const std::string text = checker::HistoryToJsonLines(merged);
  const checker::HistoryReadResult read = checker::ReadHistory(text);
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  EXPECT_EQ(checker::HistoryToJsonLines(read.history), text);  // nothing lost or changed
  const checker::History& h = read.history;
  EXPECT_EQ(h.node_count, 2);
  EXPECT_EQ(h.end_ns, Millis(20'000));
  EXPECT_EQ(h.assumptions.recovery_bound_ns, Millis(9000));
  EXPECT_EQ(h.due_windows, (std::vector<std::int64_t>{0, 1}));
  ASSERT_EQ(h.store_ops.size(), 3u);
  EXPECT_EQ(h.store_ops[2].outcome, checker::Outcome::kUnknown);  // killed mid-call
  EXPECT_EQ(h.store_ops[2].complete_ns, checker::kNeverNs);
  ASSERT_EQ(h.beliefs.size(), 2u);
  EXPECT_EQ(h.beliefs[0].end_reason, "crash");
  ASSERT_EQ(h.ledger_writes.size(), 1u);
  EXPECT_EQ(h.ledger_writes[0].result, checker::LedgerResult::kApplied);
  EXPECT_EQ(h.ledger_writes[0].arrived_ns, Millis(1'504));
  ASSERT_EQ(h.faults.size(), 1u);
  EXPECT_EQ(h.faults[0].description, "SIGKILL n1#1");
}

TEST_F(MergeTest, AWriteSentBeforeTheWritersOwnWallClockReachedItsWindowsEndIsSettledEarly) {
  constexpr std::int64_t kEpoch = Millis(1'700'000'000'000);  // the schedule's epoch, a wall-clock instant
  MergeInput input = CleanRun();
  input.assumptions.settlement_period_ns = Millis(1000);
  input.assumptions.settlement_epoch_wall_ns = kEpoch;
  // n2 sends window 3 (due at epoch + 4 s) at 7.5 s, its clock having read
  // only epoch + 3.2 s; window 0 (n1's) carries no reading and is not judged.
  Journal n2(Path("n2.1.jsonl"));
  Json early = Send(1, "n2#1/1", 2, 3, 7500);
  early["wall_seen_ns"] = kEpoch + Millis(3200);
  n2.Line(Event("acquired", "n2#1", 2, 7000, 10000)).Line(early).Line(Event("demoted", "n2#1", 2, 8000)).Save();
  const checker::History h = MergeJournals(input).history;
  ASSERT_EQ(h.ledger_writes.size(), 2u);
  EXPECT_EQ(h.ledger_writes[0].wall_seen_ns, checker::kNeverNs);
  EXPECT_EQ(h.ledger_writes[1].wall_seen_ns, kEpoch + Millis(3200));
  const checker::Verdict verdict = checker::CheckHistory(h);
  ASSERT_EQ(verdict.violations.size(), 1u);
  EXPECT_EQ(verdict.violations[0].kind, "settled_early");
  EXPECT_EQ(verdict.violations[0].nodes, (std::vector<int>{2}));
}

// A judged live run writes every live figure of the figure registry (a
// takeout followed by another node acquiring gives the failover ones), and
// every figure it writes is defined there: the live side of tests/figures.
TEST_F(MergeTest, AJudgedRunWritesEveryLiveFigureAndOnlyDefinedOnes) {
  const MergeInput input = CleanRun();
  FinishedRun run{.start_mono = input.start_mono, .end_mono = input.end_mono, .journals = input.journals,
                  .kills = input.kills, .applied = input.applied,
                  .takeouts = {Takeout{.at = Millis(2'500), .victim = "n1#1", .kind = "kill"}}};
  LiveOptions options;
  options.nodes = input.node_count;
  const Judgement judgement = Judge(options, run);
  for (const base::FigureDefinition& definition : base::FigureDefinitions()) {
    if (definition.source != base::FigureSource::kLive) continue;
    EXPECT_TRUE(judgement.figures.contains(std::string(definition.name))) << definition.name;
  }
  for (const auto& [figure, value] : judgement.figures) EXPECT_NE(base::FindFigure(figure), nullptr) << figure;
  EXPECT_EQ(judgement.figures.at("failovers"), 1);
  EXPECT_EQ(judgement.figures.at("failover_ms_max"), 4'500);  // killed at 2.5 s, n2 acquired at 7 s
}

// What a live run writes for a merged history, and what `leasesim check` says of it.
class CheckedFile : public MergeTest {
 protected:
  int CheckWritten(const MergeInput& input, std::string& report) {
    Judgement judgement;
    judgement.merged = MergeJournals(input);
    judgement.verdict = checker::CheckHistory(judgement.merged.history);
    LiveOptions options;
    options.out_dir = dir_.string();
    EXPECT_EQ(WriteRunFiles(options, judgement), "");
    EXPECT_TRUE(std::filesystem::exists(dir_ / kSummaryFileName));
    std::ostringstream out, err;
    const int code = cli::CheckCommand({(dir_ / kHistoryFileName).string()}, out, err);
    report = out.str() + err.str();
    return code;
  }
};

TEST_F(CheckedFile, TheCheckCommandPassesACleanLiveHistory) {
  std::string report;
  EXPECT_EQ(CheckWritten(CleanRun(), report), checker::kCheckExitOk) << report;
  EXPECT_NE(report.find("OK"), std::string::npos) << report;
}

TEST_F(CheckedFile, TheCheckCommandFailsALiveHistoryWithADualWriter) {
  // Two holders both applied a batch under term 1 (the term was not bumped).
  Journal n1(Path("n1.1.jsonl"));
  n1.Line(Send(1, "n1#1/1", 1, 0, 1000)).Line(Reply(1, "applied", 1010)).Save();
  Journal n2(Path("n2.1.jsonl"));
  n2.Line(Send(1, "n2#1/1", 1, 1, 2000)).Line(Reply(1, "applied", 2010)).Save();
  MergeInput input;
  input.start_mono = kT0;
  input.end_mono = kT0 + Millis(5'000);
  input.node_count = 2;
  input.journals = {{1, 1, n1.path()}, {2, 1, n2.path()}};
  input.applied = {etcd::AppliedBatch{.write_id = "n1#1/1", .token = 1, .window = 0, .revision = 5},
                   etcd::AppliedBatch{.write_id = "n2#1/1", .token = 1, .window = 1, .revision = 6}};
  std::string report;
  EXPECT_EQ(CheckWritten(input, report), checker::kCheckExitViolation) << report;
  EXPECT_NE(report.find("dual_writer"), std::string::npos) << report;
}

}  // namespace
}  // namespace leasesim::live
