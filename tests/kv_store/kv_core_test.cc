// core's own lease protocol on the KV store, end to end: every node's
// record store is core::KvRecordStore over its client of the world's
// simulated KV store (backends/sim_kv_server.*), and nothing else of the
// protocol changes. The run is judged as any other: one leader at a time,
// fenced writes, every window settled, and the KV history linearizable,
// while the leader crashes, the store host pauses and drops requests.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <variant>

#include "checker/checker.h"
#include "checker/store_writes.h"
#include "core/kv_record_store.h"
#include "core/protocol.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "runner/test_scenarios.h"

namespace leasesim::runner {
namespace {

using testing::ParsedScenario;

// The node's Env with one change: store() is the record store over KV
// store 0.
class RecordOnKvEnv final : public core::Env {
 public:
  explicit RecordOnKvEnv(core::Env& inner) : inner_(inner), store_(inner.kv(0)) {}

  core::Nanos MonotonicNow() override { return inner_.MonotonicNow(); }
  core::Nanos BootNow() override { return inner_.BootNow(); }
  core::Nanos WallNow() override { return inner_.WallNow(); }
  void SleepUntil(core::Nanos deadline) override { inner_.SleepUntil(deadline); }
  void SleepInSteps(core::Nanos period, const std::function<bool()>& done) override {
    inner_.SleepInSteps(period, done);
  }
  void Spawn(std::string_view name, std::function<void()> task) override { inner_.Spawn(name, std::move(task)); }
  core::StoreClient& store() override { return store_; }
  core::LedgerClient& ledger() override { return inner_.ledger(); }
  core::EventSink& events() override { return inner_.events(); }
  int kv_servers() const override { return inner_.kv_servers(); }
  core::KvClient& kv(int server) override { return inner_.kv(server); }
  std::uint64_t Random() override { return inner_.Random(); }
  void AtFaultPoint(core::FaultPoint point) override { inner_.AtFaultPoint(point); }
  void Sometimes(core::Probe probe) override { inner_.Sometimes(probe); }

 private:
  core::Env& inner_;
  core::KvRecordStore store_;
};

// leasesim's protocol, built on that Env (which it owns: it lives as long
// as the node).
class LeasesimOnKv final : public core::ProtocolNode {
 public:
  LeasesimOnKv(core::Env& env, const core::NodeSetup& setup)
      : env_(env), node_(core::LeasesimProtocol().build(env_, setup)) {}
  void Start() override { node_->Start(); }
  void Shutdown(const std::string& successor) override { node_->Shutdown(successor); }

 private:
  RecordOnKvEnv env_;
  std::unique_ptr<core::ProtocolNode> node_;
};

constexpr const char* kOnKv = "leasesim-on-kv";

void RegisterOnKv() {
  if (core::Protocols().Find(kOnKv).protocol.has_value()) return;
  core::Protocols().Add(core::Protocol{
      .name = kOnKv,
      .summary = "test: leasesim's protocol with its record on KV store 0",
      .build = [](core::Env& env, const core::NodeSetup& setup) -> std::unique_ptr<core::ProtocolNode> {
        return std::make_unique<LeasesimOnKv>(env, setup);
      },
  });
}

std::string Messages(const RunResult& result) {
  std::string text;
  for (const checker::Violation& v : result.unexpected) text += v.kind + ": " + v.message + "\n";
  return text;
}

// 40 seeds of `scenario`: no violation, the record's history projected and chaining.
void RunSeeds(const Scenario& scenario) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const RunResult result = RunScenario(scenario, seed, {.keep_history = true});
    EXPECT_TRUE(result.ok()) << "seed " << seed << "\n" << Messages(result);
    EXPECT_FALSE(result.verdict.linearizability_unknown) << seed;
    const checker::History& history = result.history;
    EXPECT_GT(history.kv_ops.size(), 40u) << seed;
    // Every KV call is a record-store call, projected as one with the
    // record's own versions (1 at creation, +1 per write).
    ASSERT_EQ(history.store_ops.size(), history.kv_ops.size()) << seed;
    // The writes that took effect chain: each on the version the one before wrote.
    const std::vector<const checker::StoreOp*> writes = checker::WritesThatTookEffect(history);
    ASSERT_GT(writes.size(), 10u) << seed;
    for (std::size_t i = 0; i < writes.size(); ++i) {
      const checker::StoreOp& write = *writes[i];
      const std::int64_t version = write.kind == checker::StoreOpKind::kCreate ? 1 : write.expected_version + 1;
      EXPECT_EQ(version, static_cast<std::int64_t>(i) + 1) << seed;
      if (write.outcome == checker::Outcome::kOk) {
        EXPECT_EQ(write.version, version) << seed;
      }
    }
    EXPECT_GE(result.figures.at("leader_terms"), 2) << seed;  // a takeover after the crash
    EXPECT_GT(result.figures.at("settlements_applied"), 10) << seed;
    // Every record write is a txn on the one key, guarded by its create or mod revision.
    for (const checker::KvStoreOp& op : history.kv_ops) {
      ASSERT_EQ(op.kind, checker::KvStoreOp::Kind::kTxn);
      for (const checker::KvStoreCompare& compare : op.compares) EXPECT_EQ(compare.key, op.compares[0].key);
    }
  }
}

// On a network losing 0.1% or 3% of messages (the latter leaving many
// calls of unknown outcome, whose effects the projection and the checks
// must place), 40 seeds each.
TEST(KvCore, LeasesimsProtocolRunsOnTheKvStoreThroughFaults) {
  RegisterOnKv();
  std::string text = testing::ScenarioJson(
      R"("protocol": "leasesim-on-kv",
         "kv": {"servers": 1, "compaction_window": 4, "latency_ms": {"base": 2, "jitter": 3}},
         "faults": [{"at_ms": 20000, "kind": "crash", "node": "leader"},
                    {"at_ms": 26000, "kind": "restart", "node": 1},
                    {"at_ms": 26000, "kind": "restart", "node": 2},
                    {"at_ms": 26000, "kind": "restart", "node": 3},
                    {"at_ms": 40000, "kind": "kv_pause", "kv": "kv", "duration_ms": 4000},
                    {"at_ms": 60000, "kind": "kv_outage", "kv": "kv", "mode": "blackhole", "duration_ms": 2000},
                    {"at_ms": 75000, "kind": "kv_latency", "kv": "kv", "extra_ms": 300, "duration_ms": 5000},
                    {"at_ms": 84000, "kind": "kv_crash", "kv": "kv", "duration_ms": 2000},
                    {"at_ms": 92000, "kind": "kv_isolate", "kv": "kv", "duration_ms": 1500}],
         "expect": {"violations": []})",
      3, 100000);
  for (const char* loss : {"0.001", "0.030"}) {
    text.replace(text.find("\"loss\": "), 13, std::string("\"loss\": ") + loss);
    const Scenario scenario = ParsedScenario(text);
    ASSERT_EQ(scenario.network.loss_ppm, std::string(loss) == "0.001" ? 1'000u : 30'000u);
    RunSeeds(scenario);
  }
}

// The record's history, with one write's answer changed, is caught by the
// KV store's linearizability check.
TEST(KvCore, AChangedAnswerOnTheRecordIsNotLinearizable) {
  RegisterOnKv();
  const Scenario scenario = ParsedScenario(testing::ScenarioJson(
      R"("protocol": "leasesim-on-kv", "kv": {"servers": 1}, "expect": {"violations": []})", 3, 30000));
  const RunResult result = RunScenario(scenario, 4, {.keep_history = true});
  ASSERT_TRUE(result.ok()) << Messages(result);
  checker::History changed = result.history;
  // A renewal that succeeded is told it failed, with no record: the
  // writes after it then read a record nobody wrote.
  auto renewal = std::find_if(changed.kv_ops.begin(), changed.kv_ops.end(), [](const checker::KvStoreOp& op) {
    return op.outcome == checker::Outcome::kOk && op.succeeded && !op.compares.empty() &&
           op.compares[0].target == checker::KvStoreCompareTarget::kModRevision;
  });
  ASSERT_NE(renewal, changed.kv_ops.end());
  renewal->succeeded = false;
  const checker::Verdict verdict = checker::CheckHistory(changed);
  EXPECT_TRUE(std::any_of(verdict.violations.begin(), verdict.violations.end(),
                          [](const checker::Violation& v) { return v.kind == "not_linearizable"; }));
}

}  // namespace
}  // namespace leasesim::runner
