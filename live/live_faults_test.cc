// The live fault table: --faults parsing, the table's shape, and the
// injector striking and healing through it (against fake mechanisms, with
// the time given, so no process or etcd is needed).

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/units.h"
#include "live/fault_injector.h"
#include "live/live_faults.h"

namespace leasesim::live {
namespace {

constexpr std::int64_t kT0 = base::Seconds(1'000);  // CLOCK_MONOTONIC at the run's start

// The error's text, or "" when the list parses.
std::string FaultsError(const std::string& text, int nodes, std::vector<LiveFault>& faults) {
  const std::optional<base::InputError> error = ParseFaults(text, nodes, faults);
  return error ? error->ToString() : "";
}

TEST(LiveFaults, ParsesTheListFormat) {
  std::vector<LiveFault> faults;
  ASSERT_EQ(FaultsError("kill:2@16,pause:leader@6+8,etcd-stop:leader@24.5+4,cut:1@30+2,pause-mid-batch@3+9", 3, faults), "");
  ASSERT_EQ(faults.size(), 5u);
  EXPECT_EQ(faults[0].kind, LiveFaultKind::kPauseMidBatch);  // sorted by time
  EXPECT_TRUE(faults[0].leader);
  EXPECT_EQ(faults[1].kind, LiveFaultKind::kPause);
  EXPECT_EQ(faults[1].at_ms, 6'000);
  EXPECT_EQ(faults[1].duration_ms, 8'000);
  EXPECT_EQ(faults[2].kind, LiveFaultKind::kKill);
  EXPECT_EQ(faults[2].target, 2);
  EXPECT_EQ(faults[2].duration_ms, 0);  // no restart
  EXPECT_EQ(faults[3].at_ms, 24'500);
  EXPECT_EQ(faults[4].kind, LiveFaultKind::kCut);
}

TEST(LiveFaults, RejectsMalformedItemsWithTheReason) {
  std::vector<LiveFault> faults;
  EXPECT_NE(FaultsError("pause:leader+8", 3, faults).find("missing @AT"), std::string::npos);
  EXPECT_NE(FaultsError("nap@3+1", 3, faults).find("unknown kind"), std::string::npos);
  EXPECT_NE(FaultsError("pause:4@3+1", 3, faults).find("out of range"), std::string::npos);
  EXPECT_NE(FaultsError("etcd-stop:4@3+1", 5, faults).find("out of range"), std::string::npos);
  EXPECT_NE(FaultsError("pause@x+1", 3, faults).find("AT must be"), std::string::npos);
  EXPECT_NE(FaultsError("pause@3", 3, faults).find("needs +DURATION"), std::string::npos);
  EXPECT_NE(FaultsError("pause:two@3+1", 3, faults).find("target must be"), std::string::npos);
  std::string many;
  for (int i = 0; i <= 1000; ++i) many += "kill:1@" + std::to_string(i) + ",";
  EXPECT_NE(FaultsError(many, 3, faults).find("more than 1000 faults"), std::string::npos);
}

TEST(LiveFaults, AnErrorNamesTheFlagTheItemAndItsRule) {
  std::vector<LiveFault> faults;
  const std::optional<base::InputError> error = ParseFaults("kill:1@2,pause@3", 3, faults);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->path, "--faults");
  EXPECT_EQ(error->ToString(), "--faults: fault \"pause@3\": needs +DURATION (seconds)");
}

TEST(LiveFaults, DelayTakesMillisecondsPerChunk) {
  std::vector<LiveFault> faults;
  ASSERT_EQ(FaultsError("delay=250:2@4+6", 3, faults), "");
  ASSERT_EQ(faults.size(), 1u);
  EXPECT_EQ(faults[0].kind, LiveFaultKind::kDelay);
  EXPECT_EQ(faults[0].value_ms, 250);
  EXPECT_EQ(faults[0].target, 2);
  EXPECT_EQ(faults[0].duration_ms, 6'000);
  EXPECT_NE(FaultsError("delay:2@4+6", 3, faults).find("delay=MS[~JITTER] needs MS"), std::string::npos);
  EXPECT_NE(FaultsError("delay=0:2@4+6", 3, faults).find("1..10000"), std::string::npos);
  EXPECT_NE(FaultsError("delay=fast@4+6", 3, faults).find("whole number"), std::string::npos);
  EXPECT_NE(FaultsError("pause=5@4+6", 3, faults).find("pause takes no =VALUE"), std::string::npos);
}

TEST(LiveFaults, DelaysTakeAJitterAndADirectionAndStallTakesNoValue) {
  std::vector<LiveFault> faults;
  ASSERT_EQ(FaultsError("delay-up=300~100:leader@4+6,delay-down=50:1@5+1,delay=20~0:2@6+1,stall:3@7+2", 3, faults),
            "");
  ASSERT_EQ(faults.size(), 4u);
  EXPECT_EQ(faults[0].kind, LiveFaultKind::kDelayUp);
  EXPECT_EQ(faults[0].value_ms, 300);
  EXPECT_EQ(faults[0].jitter_ms, 100);
  EXPECT_EQ(faults[1].kind, LiveFaultKind::kDelayDown);
  EXPECT_EQ(faults[1].jitter_ms, 0);
  EXPECT_EQ(faults[2].kind, LiveFaultKind::kDelay);
  EXPECT_EQ(faults[3].kind, LiveFaultKind::kStall);
  EXPECT_EQ(faults[3].target, 3);
  EXPECT_NE(FaultsError("delay-up=300~x:1@4+6", 3, faults).find("delay-up=MS[~JITTER] needs MS"), std::string::npos);
  EXPECT_NE(FaultsError("delay=300~10001:1@4+6", 3, faults).find("JITTER: 0..10000"), std::string::npos);
  EXPECT_NE(FaultsError("stall=5:1@4+6", 3, faults).find("stall takes no =VALUE"), std::string::npos);
  EXPECT_NE(FaultsError("stall:1@4", 3, faults).find("needs +DURATION"), std::string::npos);
}

TEST(LiveFaultTable, OneRowPerKindInOrderWithEveryHook) {
  const std::span<const LiveFaultSpec> table = LiveFaultTable();
  ASSERT_EQ(table.size(), 9u);
  for (std::size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(table[i].kind), i) << table[i].name;
    EXPECT_NE(table[i].strike, nullptr) << table[i].name;
    EXPECT_NE(table[i].heal, nullptr) << table[i].name;
    EXPECT_NE(table[i].within_assumptions, nullptr) << table[i].name;
    EXPECT_NE(FaultKindNames().find(table[i].name), std::string::npos);
    // Every row's name parses back to its kind.
    std::vector<LiveFault> faults;
    const std::string value = table[i].value != nullptr ? "=5" : "";
    ASSERT_EQ(FaultsError(std::string(table[i].name) + value + ":1@1+1", 3, faults), "") << table[i].name;
    EXPECT_EQ(faults[0].kind, table[i].kind);
  }
}

// A scenario's word for a fault names the live fault that is that kind, so
// the simulator and a live run share one vocabulary (checker/fault_kind.h).
TEST(LiveFaultTable, TheSharedWordNamesTheFirstRowThatIsItsKind) {
  std::vector<LiveFault> faults;
  ASSERT_EQ(FaultsError("crash:2@1+3,replica_crash:leader@2+1,isolate_from_store:1@3+1,store_latency=200:1@4+1,"
                        "clog:1@5+1,pause:1@6+1",
                        3, faults),
            "");
  ASSERT_EQ(faults.size(), 6u);
  EXPECT_EQ(faults[0].kind, LiveFaultKind::kKill);
  EXPECT_EQ(faults[0].duration_ms, 3'000);
  EXPECT_EQ(faults[1].kind, LiveFaultKind::kEtcdStop);
  EXPECT_EQ(faults[2].kind, LiveFaultKind::kCut);
  EXPECT_EQ(faults[3].kind, LiveFaultKind::kDelay);
  EXPECT_EQ(faults[3].value_ms, 200);
  EXPECT_EQ(faults[4].kind, LiveFaultKind::kStall);
  EXPECT_EQ(faults[5].kind, LiveFaultKind::kPause);
  // A word no row is stays unknown, and the message lists the words there are.
  const std::string unknown = FaultsError("kv_crash:1@1+1", 3, faults);
  EXPECT_NE(unknown.find("unknown kind \"kv_crash\""), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("or the kind one is: pause, crash, replica_crash, isolate_from_store, store_latency, clog"),
            std::string::npos)
      << unknown;
}

// Records every mechanism call as a word list; the state a test sets up.
class FakeMechanisms final : public FaultMechanisms {
 public:
  int holder = 0;
  int etcd_leader = 0;
  std::vector<int> incarnation = {0, 1, 1, 1};  // by node; 0 = not running
  std::vector<bool> proxied = {false, false, false, false};
  std::vector<Incarnation> self_stopped;  // handed out by the next SelfStoppedNodes
  std::vector<std::string> calls;

  int LeaseHolderNode() override { return holder; }
  int EtcdLeaderMember() override { return etcd_leader; }
  int RunningIncarnation(int node) override { return incarnation.at(static_cast<std::size_t>(node)); }
  bool EtcdMemberRunning(int member) override { return member >= 1 && member <= 3; }
  void StopNode(int node) override { Call("stop", node); }
  void ContinueNode(int node, int inc) override { Call("continue", node, inc); }
  void ArmStop(int node) override { Call("arm", node); }
  void DisarmStop(int node, int inc) override { Call("disarm", node, inc); }
  void KillNode(int node) override {
    Call("kill", node);
    incarnation.at(static_cast<std::size_t>(node)) = 0;
  }
  int RestartNode(int node) override {
    Call("restart", node);
    return 2;
  }
  std::vector<Incarnation> SelfStoppedNodes() override { return std::exchange(self_stopped, {}); }
  void KillEtcdMember(int member) override { Call("kill-etcd", member); }
  std::string RestartEtcdMember(int member) override {
    Call("restart-etcd", member);
    return {};
  }
  bool BehindProxy(int node) override { return proxied.at(static_cast<std::size_t>(node)); }
  void CutNode(int node, bool cut) override { Call(cut ? "cut" : "heal-cut", node); }
  void SlowNode(int node, LinkLatency up, LinkLatency down) override {
    calls.push_back("slow " + std::to_string(node) + " up " + std::to_string(up.base_ms) + "~" +
                    std::to_string(up.jitter_ms) + " down " + std::to_string(down.base_ms) + "~" +
                    std::to_string(down.jitter_ms));
  }
  void StallNode(int node, bool stalled) override { Call(stalled ? "stall" : "heal-stall", node); }

 private:
  void Call(const std::string& what, int a, int b = -1) {
    calls.push_back(what + " " + std::to_string(a) + (b >= 0 ? " " + std::to_string(b) : ""));
  }
};

class Injector : public ::testing::Test {
 protected:
  void Inject(const std::string& faults_text) {
    std::vector<LiveFault> faults;
    ASSERT_EQ(FaultsError(faults_text, 3, faults), "");
    injector_.Schedule(faults);
  }
  void At(double seconds) { injector_.Tick(kT0 + static_cast<std::int64_t>(seconds * base::kNanosPerSecond)); }
  const std::vector<checker::FaultRecord>& log() const { return injector_.log(); }

  FakeMechanisms m_;
  std::ostringstream out_;
  FaultInjector injector_{m_, {.start_mono = kT0, .pause_budget_ms = 300, .arm_timeout_ns = base::Seconds(3)}, out_};
};

TEST_F(Injector, APauseOfTheLeaderStopsItAndContinuesTheSameIncarnation) {
  m_.holder = 2;
  Inject("pause:leader@1+2");
  At(0.5);
  EXPECT_TRUE(m_.calls.empty());
  At(1);
  EXPECT_EQ(m_.calls, (std::vector<std::string>{"stop 2"}));
  ASSERT_EQ(log().size(), 1u);
  EXPECT_EQ(log()[0].kind, "pause");
  EXPECT_EQ(log()[0].nodes, std::vector<int>{2});
  EXPECT_EQ(log()[0].start_ns, base::Seconds(1));
  EXPECT_EQ(log()[0].end_ns, base::Seconds(3));
  EXPECT_FALSE(log()[0].within_assumptions);  // 2 s > the 300 ms pause budget
  ASSERT_EQ(injector_.takeouts().size(), 1u);
  EXPECT_EQ(injector_.takeouts()[0].victim, "n2#1");
  At(3);
  EXPECT_EQ(m_.calls.back(), "continue 2 1");
}

TEST_F(Injector, AKillRestartsAfterItsDurationAndOnlyThen) {
  Inject("kill:2@1+3,kill:3@1");
  At(1);
  EXPECT_EQ(m_.calls, (std::vector<std::string>{"kill 2", "kill 3"}));
  ASSERT_EQ(log().size(), 2u);
  EXPECT_EQ(log()[0].kind, "crash");
  EXPECT_EQ(log()[0].end_ns, log()[0].start_ns);  // a crash is an instant
  At(60);
  EXPECT_EQ(m_.calls.back(), "restart 2");  // node 3 had no +DURATION: never restarted
  EXPECT_EQ(m_.calls.size(), 3u);
  ASSERT_EQ(log().size(), 3u);
  EXPECT_EQ(log()[2].kind, "restart");
  EXPECT_EQ(log()[2].description, "restarted n2 as n2#2");
}

TEST_F(Injector, AnArmedPauseIsRecordedWhenTheNodeStopsItself) {
  m_.holder = 1;
  Inject("pause-mid-batch:leader@1+8");
  At(1);
  EXPECT_EQ(m_.calls, (std::vector<std::string>{"arm 1"}));
  EXPECT_TRUE(log().empty());  // nothing happened yet
  m_.self_stopped = {{1, 1}};
  At(2);
  ASSERT_EQ(log().size(), 1u);
  EXPECT_EQ(log()[0].at_point, "before_ledger_write");
  EXPECT_EQ(log()[0].start_ns, base::Seconds(2));
  EXPECT_EQ(log()[0].end_ns, base::Seconds(10));
  At(10);
  EXPECT_EQ(m_.calls.back(), "continue 1 1");
}

TEST_F(Injector, AnArmedPauseThatNeverStrikesIsDisarmedAndSkipped) {
  Inject("pause-mid-batch:3@1+8");
  At(1);
  At(4);  // the arm timeout (3 s) has passed
  EXPECT_EQ(m_.calls.back(), "disarm 3 1");
  ASSERT_EQ(log().size(), 1u);
  EXPECT_NE(log()[0].description.find("skipped"), std::string::npos);
  EXPECT_EQ(log()[0].start_ns, log()[0].end_ns);
}

TEST_F(Injector, WhatCannotStrikeIsSkippedWithTheReason) {
  m_.incarnation[2] = 0;
  Inject("pause:leader@1+1,kill:2@1,cut:1@1+1");
  At(1);
  EXPECT_TRUE(m_.calls.empty());
  ASSERT_EQ(log().size(), 3u);
  EXPECT_NE(log()[0].description.find("no node held the lease"), std::string::npos);
  EXPECT_NE(log()[1].description.find("node not running"), std::string::npos);
  EXPECT_NE(log()[2].description.find("not behind the proxy"), std::string::npos);
}

TEST_F(Injector, ProxyFaultsAndEtcdStopsStrikeAndHeal) {
  m_.proxied[1] = true;
  m_.etcd_leader = 2;
  Inject("delay=200:1@1+2,cut:1@5+1,etcd-stop:leader@7+1,delay-up=300~40:1@9+1,delay-down=70:1@11+1,stall:1@13+1");
  for (int t : {1, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}) At(t);
  EXPECT_EQ(m_.calls, (std::vector<std::string>{"slow 1 up 200~0 down 200~0", "slow 1 up 0~0 down 0~0", "cut 1",
                                                "heal-cut 1", "kill-etcd 2", "restart-etcd 2",
                                                "slow 1 up 300~40 down 0~0", "slow 1 up 0~0 down 0~0",
                                                "slow 1 up 0~0 down 70~0", "slow 1 up 0~0 down 0~0", "stall 1",
                                                "heal-stall 1"}));
  ASSERT_EQ(log().size(), 6u);
  EXPECT_EQ(log()[0].kind, "store_latency");
  EXPECT_TRUE(log()[0].within_assumptions);
  // Each recorded as the kind it is, in the words scenarios use (checker/fault_kind.h).
  EXPECT_EQ(log()[1].kind, "isolate_from_store");
  EXPECT_EQ(log()[2].kind, "replica_crash");
  EXPECT_NE(log()[3].description.find("requests to etcd by 300+[0..40] ms"), std::string::npos) << log()[3].description;
  EXPECT_EQ(log()[5].kind, "clog");
  EXPECT_TRUE(log()[5].within_assumptions);
  EXPECT_TRUE(log()[2].nodes.empty());  // a store-wide fault
}

}  // namespace
}  // namespace leasesim::live
