// A protocol in a simulated world using the KV store (core::Env::kv) end to
// end: the scenario's "kv" hosts, the node's KV clients across the
// simulated network, crash and restart of the client, the runner's
// recording of every KV op (store-side expiries included) and the
// judgement's KV linearizability check, which a history with a fact taken
// away fails.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <variant>

#include "base/figures.h"
#include "checker/checker.h"
#include "checker/history_io.h"
#include "checker/kv_history_io.h"
#include "core/protocol.h"
#include "runner/fault_catalogue.h"
#include "runner/nemesis.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "runner/test_scenarios.h"

namespace leasesim::runner {
namespace {

using testing::ParsedScenario;
using testing::ScenarioErrorOf;
using testing::ScenarioJson;

// A test-only protocol: each node keeps a key ("keeper/<node>") attached
// to a TTL lease on every KV store, keeps the lease alive, re-creates both
// when the store ended them, and reads everyone's keys. It claims no
// leadership and writes no ledger: only its KV history is judged.
class KvKeeper final : public core::ProtocolNode {
 public:
  KvKeeper(core::Env& env, const core::NodeSetup& setup) : env_(env), setup_(setup) {}

  void Start() override {
    for (int server = 0; server < env_.kv_servers(); ++server) {
      env_.Spawn("keeper", [this, server] { Keep(env_.kv(server)); });
    }
  }
  void Shutdown(const std::string&) override {}

 private:
  void Keep(core::KvClient& kv) {
    const core::Nanos timeout = setup_.timing.request_timeout;
    const std::string key = "keeper/" + setup_.node_name;
    core::KvLeaseId lease = core::kNoLease;
    for (;;) {
      if (lease == core::kNoLease || kv.LeaseKeepAlive(lease, timeout).status != core::KvStatus::kOk) {
        const core::KvLeaseResult granted = kv.LeaseGrant(setup_.timing.lease_duration, timeout);
        lease = granted.status == core::KvStatus::kOk ? granted.id : core::kNoLease;
        if (lease != core::kNoLease) {
          kv.Txn(core::KvTxn{{}, {core::KvRequestOp::Put(key, setup_.identity, lease)}, {}}, timeout);
        }
      }
      kv.Range(core::KvRequestOp::Range(core::KvKeys::Prefix("keeper/"), core::KvSortBy::kCreateRevision), timeout);
      env_.SleepUntil(env_.MonotonicNow() + setup_.timing.renew_interval);
    }
  }

  core::Env& env_;
  core::NodeSetup setup_;
};

constexpr const char* kKeeper = "kv-keeper";

void RegisterKeeper() {
  if (core::Protocols().Find(kKeeper).protocol.has_value()) return;
  core::Protocols().Add(core::Protocol{
      .name = kKeeper,
      .summary = "test: keeps a key on a TTL lease in every KV store",
      .build = [](core::Env& env, const core::NodeSetup& setup) -> std::unique_ptr<core::ProtocolNode> {
        return std::make_unique<KvKeeper>(env, setup);
      },
  });
}

// The keeper on `kv` stores, node 2 crashing at 10 s and restarting at 25 s
// (its lease runs out on the store's clock in between). The keeper leads
// nothing and settles nothing: the liveness checks' verdicts are expected.
std::string KeeperScenario(const std::string& kv) {
  return ScenarioJson(R"("protocol": "kv-keeper", "kv": )" + kv + R"(,
    "faults": [{"at_ms": 10000, "kind": "crash", "node": 2}, {"at_ms": 25000, "kind": "restart", "node": 2}],
    "expect": {"violations": ["slow_recovery", "missed_settlement"]})",
                      3, 40000);
}

bool Linearizable(const checker::Verdict& verdict) {
  return std::none_of(verdict.violations.begin(), verdict.violations.end(),
                      [](const checker::Violation& v) { return v.kind == "not_linearizable"; }) &&
         !verdict.linearizability_unknown;
}

std::size_t Count(const checker::History& history, checker::KvStoreOp::Kind kind, bool with_deletions = false) {
  return static_cast<std::size_t>(std::count_if(history.kv_ops.begin(), history.kv_ops.end(), [&](const auto& op) {
    return op.kind == kind && (!with_deletions || op.revision > 0);
  }));
}

TEST(KvWorld, AKeeperOnTheKvStoreIsRecordedAndJudgedLinearizable) {
  RegisterKeeper();
  std::string text = KeeperScenario(R"({"servers": 1, "ttl_clock": "monotonic", "latency_ms": {"base": 1, "jitter": 2}})");
  text.replace(text.find("\"loss\": 0.001"), 13, "\"loss\": 0");
  const Scenario scenario = ParsedScenario(text);
  ASSERT_EQ(scenario.kv.servers, 1);
  const RunResult result = RunScenario(scenario, 7, {.keep_history = true});
  EXPECT_TRUE(result.ok()) << (result.unexpected.empty() ? "" : result.unexpected[0].message);
  EXPECT_TRUE(Linearizable(result.verdict));
  const checker::History& history = result.history;
  ASSERT_GT(history.kv_ops.size(), 50u);  // three keepers, a keep-alive and a read every 3 s for 40 s
  EXPECT_TRUE(std::all_of(history.kv_ops.begin(), history.kv_ops.end(), [](const auto& op) { return op.store == "kv"; }));
  // The crashed node's lease ran out on the store's clock and took its key.
  EXPECT_GE(Count(history, checker::KvStoreOp::Kind::kLeaseExpire, true), 1u);
  EXPECT_EQ(result.figures.at("kv_ops"), static_cast<std::int64_t>(history.kv_ops.size()));
  EXPECT_GE(result.figures.at("kv_lease_expiries"), 1);
  // The figure registry's KV-store figures are written here (no ci.json
  // scenario has KV hosts; tests/figures checks the rest), and every figure
  // written is defined.
  for (const base::FigureDefinition& definition : base::FigureDefinitions()) {
    if (definition.source != base::FigureSource::kKvStore) continue;
    EXPECT_TRUE(result.figures.contains(std::string(definition.name))) << definition.name;
  }
  for (const auto& [figure, value] : result.figures) EXPECT_NE(base::FindFigure(figure), nullptr) << figure;

  // Taken away, that expiry leaves reads that saw the key vanish unexplained.
  checker::History forgot = history;
  const auto expiry = std::find_if(forgot.kv_ops.begin(), forgot.kv_ops.end(), [](const auto& op) {
    return op.kind == checker::KvStoreOp::Kind::kLeaseExpire && op.revision > 0;
  });
  forgot.kv_ops.erase(expiry);
  const checker::Verdict verdict = checker::CheckHistory(forgot);
  const auto violation = std::find_if(verdict.violations.begin(), verdict.violations.end(),
                                      [](const checker::Violation& v) { return v.kind == "not_linearizable"; });
  ASSERT_NE(violation, verdict.violations.end());
  EXPECT_NE(violation->message.find("KV store kv"), std::string::npos) << violation->message;
}

// What a run writes, `leasesim check` reads back whole and judges alike.
TEST(KvWorld, KvOpsSurviveTheHistoryFile) {
  RegisterKeeper();
  const RunResult result = RunScenario(ParsedScenario(KeeperScenario(R"({"servers": 2, "compaction_window": 10})")), 5,
                                       {.keep_history = true});
  ASSERT_FALSE(result.history.kv_ops.empty());
  const checker::HistoryReadResult read = checker::ReadHistory(checker::HistoryToJsonLines(result.history));
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  const auto& written = result.history.kv_ops;
  const auto& back = read.history.kv_ops;
  ASSERT_EQ(back.size(), written.size());
  for (std::size_t i = 0; i < written.size(); ++i) {
    EXPECT_EQ(checker::KvOpJson(back[i]).dump(), checker::KvOpJson(written[i]).dump()) << i;
  }
  EXPECT_TRUE(Linearizable(result.verdict));
  EXPECT_EQ(checker::CheckHistory(read.history).violations.size(), result.verdict.violations.size());

  checker::History forgot = read.history;
  forgot.kv_ops.erase(std::find_if(forgot.kv_ops.begin(), forgot.kv_ops.end(), [](const auto& op) {
    return op.kind == checker::KvStoreOp::Kind::kLeaseExpire && op.revision > 0;
  }));
  const checker::HistoryReadResult reread = checker::ReadHistory(checker::HistoryToJsonLines(forgot));
  ASSERT_TRUE(reread.ok());
  EXPECT_FALSE(Linearizable(checker::CheckHistory(reread.history)));
}

TEST(KvWorld, AKvOpWithAKnownOutcomeButNoReturnIsAnError) {
  const std::string text = std::string(R"({"format":"leasesim-history","version":1,"node_count":1,"end_ns":10})") +
                           "\n" +
                           R"({"type":"kv_op","store":"kv","kind":"lease_grant","process":1,"outcome":"ok","call_ns":5,"return_ns":null})";
  const checker::HistoryReadResult read = checker::ReadHistory(text);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error->line, 2);
  EXPECT_NE(read.error->path.find("return_ns"), std::string::npos) << read.error->ToString();
}

TEST(KvWorld, SeveralStoresAreIndependentAndEachIsJudged) {
  RegisterKeeper();
  const Scenario scenario =
      ParsedScenario(KeeperScenario(R"({"servers": 3, "ttl_clock": "wall", "expire_on_access": true, "expiry_period_ms": 100,
                               "compaction_window": 50})"));
  ASSERT_EQ(scenario.kv.servers, 3);
  const RunResult result = RunScenario(scenario, 3, {.keep_history = true});
  EXPECT_TRUE(result.ok()) << (result.unexpected.empty() ? "" : result.unexpected[0].message);
  EXPECT_TRUE(Linearizable(result.verdict));
  for (const char* store : {"kv1", "kv2", "kv3"}) {
    EXPECT_TRUE(std::any_of(result.history.kv_ops.begin(), result.history.kv_ops.end(),
                            [&](const auto& op) { return op.store == store && op.outcome == checker::Outcome::kOk; }))
        << store;
  }
  // Each store numbers its own revisions: one store's read judged against
  // another store's writes would not be linearizable.
  checker::History merged = result.history;
  for (checker::KvStoreOp& op : merged.kv_ops) op.store = "kv1";
  EXPECT_FALSE(Linearizable(checker::CheckHistory(merged)));
}

TEST(KvWorld, RunsAreDeterministicAndWorldsWithoutKvStoresRecordNone) {
  RegisterKeeper();
  const Scenario scenario = ParsedScenario(KeeperScenario(R"({"servers": 2})"));
  const RunResult a = RunScenario(scenario, 11);
  const RunResult b = RunScenario(scenario, 11);
  EXPECT_EQ(a.trace_hash, b.trace_hash);
  EXPECT_EQ(a.figures, b.figures);

  const RunResult plain = RunScenario(ParsedScenario(ScenarioJson()), 1, {.keep_history = true});
  EXPECT_TRUE(plain.history.kv_ops.empty());
  EXPECT_EQ(plain.figures.count("kv_ops"), 0u);
}

// The keeper on one store (TTL 10 s, keep-alive every 3 s), no node fault
// and no message lost, with `faults` on the store host.
std::string StoreFaultScenario(const std::string& kv, const std::string& faults) {
  std::string text = ScenarioJson(R"("protocol": "kv-keeper", "kv": )" + kv + R"(, "faults": )" + faults +
                                      R"(, "expect": {"violations": ["slow_recovery", "missed_settlement"]})",
                                  3, 40000);
  text.replace(text.find("\"loss\": 0.001"), 13, "\"loss\": 0");
  return text;
}

// The store's lease expiries at true times in [from, until); only those
// that deleted keys when `deleting`.
std::size_t ExpiriesBetween(const checker::History& history, sim::Nanos from, sim::Nanos until, bool deleting = true) {
  return static_cast<std::size_t>(std::count_if(history.kv_ops.begin(), history.kv_ops.end(), [&](const auto& op) {
    return op.kind == checker::KvStoreOp::Kind::kLeaseExpire && (!deleting || op.revision > 0) && op.call_ns >= from &&
           op.call_ns < until;
  }));
}

const checker::FaultRecord* FaultOf(const checker::History& history, const std::string& kind) {
  const auto it = std::find_if(history.faults.begin(), history.faults.end(),
                               [&](const checker::FaultRecord& f) { return f.kind == kind; });
  return it == history.faults.end() ? nullptr : &*it;
}

TEST(KvWorld, APausedStoreHostEndsNothingUntilItResumesThenWhatFellDue) {
  RegisterKeeper();
  // 15 s paused: every lease's 10 s TTL runs out meanwhile on the host's clock.
  const RunResult result = RunScenario(
      ParsedScenario(StoreFaultScenario(R"({"servers": 1})", R"([{"at_ms": 10000, "kind": "kv_pause", "kv": "kv", "duration_ms": 15000}])")),
      2, {.keep_history = true});
  EXPECT_TRUE(result.ok()) << (result.unexpected.empty() ? "" : result.unexpected[0].message);
  EXPECT_TRUE(Linearizable(result.verdict));
  const checker::FaultRecord* pause = FaultOf(result.history, "kv_pause");
  ASSERT_NE(pause, nullptr);
  EXPECT_EQ(pause->start_ns, sim::Seconds(10));
  EXPECT_EQ(pause->end_ns, sim::Seconds(25));
  EXPECT_EQ(pause->description, "kv paused");
  EXPECT_EQ(ExpiriesBetween(result.history, 0, sim::Seconds(25)), 0u);
  // On resume: all three keepers' leases, at once.
  EXPECT_EQ(ExpiriesBetween(result.history, sim::Seconds(25), sim::Seconds(26)), 3u);
}

TEST(KvWorld, ACrashedStoreKeepsItsKeysAndRestartsEveryTtl) {
  RegisterKeeper();
  // Down 3 s: the keepers' keep-alives fail meanwhile (they grant anew
  // after, and move their keys to the new leases), and their old leases,
  // kept, end a full TTL after the restart, not when they would have.
  const RunResult result = RunScenario(
      ParsedScenario(StoreFaultScenario(R"({"servers": 1})", R"([{"at_ms": 10000, "kind": "kv_crash", "kv": "kv", "duration_ms": 3000}])")),
      4, {.keep_history = true});
  EXPECT_TRUE(result.ok()) << (result.unexpected.empty() ? "" : result.unexpected[0].message);
  EXPECT_TRUE(Linearizable(result.verdict));
  const checker::FaultRecord* crash = FaultOf(result.history, "kv_crash");
  ASSERT_NE(crash, nullptr);
  EXPECT_EQ(crash->end_ns, sim::Seconds(13));
  EXPECT_EQ(ExpiriesBetween(result.history, 0, sim::Seconds(23), false), 0u);
  EXPECT_EQ(ExpiriesBetween(result.history, sim::Seconds(23), sim::Seconds(24), false), 3u);
  // Answers resume after the restart.
  EXPECT_TRUE(std::any_of(result.history.kv_ops.begin(), result.history.kv_ops.end(), [](const auto& op) {
    return op.outcome == checker::Outcome::kOk && op.call_ns > sim::Seconds(13) && op.process > 0;
  }));
}

TEST(KvWorld, AWallStepOnTheStoreHostEndsWallJudgedTtlsOnly) {
  RegisterKeeper();
  const std::string step = R"([{"at_ms": 10000, "kind": "kv_clock_step", "kv": "kv", "step_ms": 60000}])";
  const RunResult wall = RunScenario(ParsedScenario(StoreFaultScenario(R"({"servers": 1, "ttl_clock": "wall"})", step)), 6,
                                     {.keep_history = true});
  EXPECT_TRUE(Linearizable(wall.verdict));
  EXPECT_EQ(ExpiriesBetween(wall.history, sim::Seconds(10), sim::Seconds(11)), 3u);
  const RunResult monotonic = RunScenario(ParsedScenario(StoreFaultScenario(R"({"servers": 1})", step)), 6, {.keep_history = true});
  EXPECT_TRUE(Linearizable(monotonic.verdict));
  EXPECT_EQ(ExpiriesBetween(monotonic.history, 0, sim::Seconds(40)), 0u);
}

TEST(KvWorld, KvFaultsNameAKvHostTheScenarioHas) {
  const std::string pause = R"("faults": [{"at_ms": 1, "kind": "kv_pause", "kv": "kv", "duration_ms": 5}])";
  EXPECT_NE(ScenarioErrorOf(ScenarioJson(pause)).find("scenarios[0].faults[0].kv"), std::string::npos)
      << ScenarioErrorOf(ScenarioJson(pause));
  const std::string error = ScenarioErrorOf(ScenarioJson(R"("kv": {"servers": 2}, )" + pause));
  EXPECT_NE(error.find("kv1, kv2"), std::string::npos) << error;
  const Scenario two = ParsedScenario(ScenarioJson(
      R"("kv": {"servers": 2}, "faults": [{"at_ms": 1, "kind": "kv_isolate", "kv": "kv2", "duration_ms": 5}])"));
  ASSERT_EQ(two.faults.size(), 1u);
  EXPECT_EQ(two.faults[0].kv, 2);
}

TEST(KvWorld, TheNemesisDrawsKvFaultsOnlyWhereThereAreKvHosts) {
  RegisterKeeper();
  Scenario with_kv = ParsedScenario(KeeperScenario(R"({"servers": 2})"));
  with_kv.faults.clear();
  with_kv.expect_violations = {"slow_recovery", "missed_settlement"};
  with_kv.nemesis = NemesisConfig{.enabled = true, .faults_max = 4, .within_assumptions = false, .swarm = false};
  Scenario plain = ParsedScenario(ScenarioJson());
  plain.nemesis = with_kv.nemesis;
  int kv_faults = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    for (const Fault& fault : GenerateNemesisFaults(with_kv, seed)) {
      kv_faults += SpecOf(fault.kind).target == FaultTarget::kKv;
    }
    for (const Fault& fault : GenerateNemesisFaults(plain, seed)) {
      EXPECT_NE(SpecOf(fault.kind).target, FaultTarget::kKv) << seed;
    }
  }
  EXPECT_GT(kv_faults, 0);
  // And whatever it draws, the keepers' histories stay linearizable.
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const RunResult result = RunScenario(with_kv, seed);
    EXPECT_TRUE(Linearizable(result.verdict)) << "seed " << seed;
  }
}

TEST(KvWorld, BadKvFieldsAreErrorsNamingTheField) {
  EXPECT_NE(ScenarioErrorOf(ScenarioJson(R"("kv": {"servers": 0})")).find("scenarios[0].kv.servers"), std::string::npos);
  EXPECT_NE(ScenarioErrorOf(ScenarioJson(R"("kv": {"servers": 1, "ttl_clock": "ntp"})")).find("scenarios[0].kv.ttl_clock"),
            std::string::npos);
  EXPECT_NE(ScenarioErrorOf(ScenarioJson(R"("kv": {"servers": 1, "compaction_window": 0})"))
                .find("scenarios[0].kv.compaction_window"),
            std::string::npos);
  EXPECT_NE(ScenarioErrorOf(ScenarioJson(R"("kv": {"servers": 1, "ttl": 5})")).find("scenarios[0].kv"),
            std::string::npos);
}

}  // namespace
}  // namespace leasesim::runner
