// Live runs against a real 3-member etcd cluster (ctest label "live").
// Skipped when /usr/bin/etcd is absent. Each run is short (<= 30 s).

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checker/check_command.h"
#include "checker/history_io.h"
#include "cli/commands.h"
#include "live/live_run.h"

namespace leasesim::live {
namespace {

constexpr const char* kEtcd = "/usr/bin/etcd";

// The fixture: skips without etcd, and gives each run its own directory
// (kept when the test fails).
class LiveRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access(kEtcd, X_OK) != 0) GTEST_SKIP() << kEtcd << " is absent (apt-get install etcd-server)";
    out_dir_ = std::filesystem::temp_directory_path() /
               ("leasesim-live-test-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(out_dir_);
  }

  LiveResult Run(int seconds, const std::string& faults, const std::string& protocol, bool secure = false) {
    LiveOptions options;
    options.etcd_secure = secure;
    options.nodes = 3;
    options.duration_ms = seconds * 1000;
    options.protocol = protocol;
    options.out_dir = out_dir_.string();
    options.node_binary = LEASESIM_LIVE_NODE_BINARY;
    options.etcd_binary = kEtcd;
    const std::optional<base::InputError> error = ParseFaults(faults, options.nodes, options.faults);
    EXPECT_FALSE(error.has_value()) << error->ToString();
    std::ostringstream out, err;
    LiveResult result = RunLive(options, out, err);
    std::cout << out.str() << err.str();
    return result;
  }

  std::filesystem::path out_dir_;
};

TEST_F(LiveRun, CorrectProtocolPassesUnderLeaderPauseKillAndEtcdLeaderStop) {
  // A pause beyond the lease (outside the pause budget: the leader must
  // demote itself and be fenced), a kill of the leader with a restart, the
  // etcd raft leader killed and restarted, and the leader cut off etcd.
  const LiveResult result =
      Run(30, "pause:leader@4+7,kill:leader@13+3,etcd-stop:leader@19+4,cut:leader@24+3", "correct");
  EXPECT_EQ(result.exit_code, 0);
  for (const checker::Violation& v : result.verdict.violations) ADD_FAILURE() << v.kind << ": " << v.message;
  EXPECT_GE(result.figures.at("settlements_applied"), 10);
  EXPECT_GE(result.figures.at("leader_terms"), 3);
  EXPECT_GE(result.figures.at("failovers"), 2);
  EXPECT_GT(result.figures.at("renewals"), 10);
  EXPECT_TRUE(std::filesystem::exists(out_dir_ / "summary.json"));
  const nlohmann::json summary = nlohmann::json::parse(std::ifstream(out_dir_ / "summary.json"));
  EXPECT_EQ(summary["runs"][0]["scenario"], "live-correct");
}

TEST_F(LiveRun, CorrectProtocolPassesOnASecuredClusterUnderLeaderPauseAndEtcdLeaderStop) {
  // The run's own cluster with TLS (clients and peers), client-certificate
  // auth and etcd auth; every node authenticates, renews its token as it
  // goes, and reaches etcd only through TLS. A pause of the leader beyond
  // its lease, then the etcd raft leader killed and restarted (it comes back
  // through TLS and auth too).
  const LiveResult result = Run(20, "pause:leader@3+6,etcd-stop:leader@12+4", "correct", /*secure=*/true);
  EXPECT_EQ(result.exit_code, 0);
  for (const checker::Violation& v : result.verdict.violations) ADD_FAILURE() << v.kind << ": " << v.message;
  EXPECT_GE(result.figures.at("settlements_applied"), 8);
  EXPECT_GE(result.figures.at("leader_terms"), 2);
  EXPECT_GT(result.figures.at("renewals"), 5);
}

TEST_F(LiveRun, ADelayedLeaderKeepsItsLeaseAndTheHistoryFileChecksAgain) {
  // Each chunk of the leader's etcd traffic held 150 ms (so a renewal takes
  // at least 300 ms, inside the 600 ms request timeout) for 5 s.
  const LiveResult result = Run(10, "delay=150:leader@2+5", "correct");
  EXPECT_EQ(result.exit_code, 0);
  for (const checker::Violation& v : result.verdict.violations) ADD_FAILURE() << v.kind << ": " << v.message;
  EXPECT_GE(result.figures.at("renewal_latency_max_us"), 300'000);  // the delay reached etcd's traffic
  EXPECT_EQ(result.figures.at("leader_terms"), 1);                  // and cost no leadership
  // The merged history is the checker's own format: `leasesim check` agrees.
  std::ostringstream out, err;
  EXPECT_EQ(cli::CheckCommand({(out_dir_ / "history.jsonl").string()}, out, err), 0) << out.str() << err.str();
  // Each write carries its writer's wall-clock high-water mark, so the
  // schedule's early side (settled_early) was judged on real clocks too.
  std::ifstream file(out_dir_ / "history.jsonl");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const checker::HistoryReadResult read = checker::ReadHistory(text);
  ASSERT_TRUE(read.ok());
  EXPECT_GT(read.history.assumptions.settlement_epoch_wall_ns, 1'600'000'000LL * 1'000'000'000LL);  // a real instant
  ASSERT_FALSE(read.history.ledger_writes.empty());
  for (const checker::LedgerWrite& write : read.history.ledger_writes) {
    EXPECT_NE(write.wall_seen_ns, checker::kNeverNs) << "window " << write.window;
  }
}

// One holder's leadership as its journal tells it.
struct Leadership {
  std::int64_t acquired_ns = -1;
  std::int64_t valid_until_ns = 0;  // the latest deadline a renewal (or the acquisition) gave, monotonic
  std::int64_t demoted_ns = -1;
  std::string reason;
};

// Every node journal's leaderships, by term.
std::map<std::int64_t, Leadership> LeadershipsOf(const std::filesystem::path& out_dir) {
  std::map<std::int64_t, Leadership> terms;
  for (const auto& entry : std::filesystem::directory_iterator(out_dir / "nodes")) {
    if (entry.path().extension() != ".jsonl") continue;
    std::ifstream in(entry.path());
    std::string line;
    for (int i = 0; i < 1'000'000 && std::getline(in, line); ++i) {
      const nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
      if (!json.is_object() || json.value("t", "") != "ev") continue;
      Leadership& l = terms[json.value("term", std::int64_t{0})];
      const std::string event = json.value("event", "");
      const std::int64_t at = json.value("monotonic_ns", std::int64_t{0});
      if (event == "acquired" && l.acquired_ns < 0) l.acquired_ns = at;
      if (event == "acquired" || event == "renewed") {
        // The deadline is on the boot clock; this timeline is the monotonic one.
        const std::int64_t deadline = json.value("valid_until_ns", std::int64_t{0});
        const std::int64_t boot = json.value("boot_ns", at);
        l.valid_until_ns = std::max(l.valid_until_ns, at + (deadline - boot));
      }
      if (event == "demoted" && l.demoted_ns < 0) {
        l.demoted_ns = at;
        l.reason = json.value("reason", "");
      }
    }
  }
  return terms;
}

TEST_F(LiveRun, ALeaderOnASlowStoreDemotesItselfAtItsDeadlineAndAFollowerTakesOverFenced) {
  // From 3 s the leader's requests and etcd's answers are each held
  // 350..450 ms by the proxy: every call takes longer than the 600 ms
  // request timeout, though many apply at etcd. The leader cannot prove a
  // renewal any more, so it must stop at its own deadline (renew deadline
  // 3 s after its last proven renewal), long before the lease (4 s from the
  // record's last change) lets a follower in; the follower then takes over,
  // and the ledger's fence and the checker see no write out of turn.
  const LiveResult result = Run(16, "delay=350~100:leader@3+10", "correct");
  EXPECT_EQ(result.exit_code, 0);
  for (const checker::Violation& v : result.verdict.violations) ADD_FAILURE() << v.kind << ": " << v.message;
  const std::map<std::int64_t, Leadership> terms = LeadershipsOf(out_dir_);
  ASSERT_TRUE(terms.contains(1));
  ASSERT_TRUE(terms.contains(2)) << "no follower took over";
  const Leadership& slowed = terms.at(1);
  ASSERT_GE(slowed.demoted_ns, 0) << "the slowed leader never demoted";
  EXPECT_EQ(slowed.reason, "deadline");
  // At its deadline, give or take the settlement job's 100 ms poll.
  EXPECT_LE(slowed.demoted_ns, slowed.valid_until_ns + 150 * kNanosPerMilli);
  EXPECT_GE(slowed.demoted_ns, slowed.valid_until_ns);
  // The follower only after the slowed leader had stopped.
  EXPECT_GT(terms.at(2).acquired_ns, slowed.demoted_ns);
  EXPECT_GE(result.figures.at("settlements_applied"), 8);
}

TEST_F(LiveRun, WithoutFencingOrIdempotencyAStoppedLeadersLateBatchIsAStaleTokenWrite) {
  // The leader stops itself just before a ledger write and is held for 8 s,
  // twice its lease: a successor takes over and settles; the old leader's
  // batch then lands with its old token.
  const LiveResult result = Run(14, "pause-mid-batch:leader@3+8", "no-fencing,no-idempotency-key");
  EXPECT_EQ(result.exit_code, 1);
  bool stale = false;
  for (const checker::Violation& v : result.verdict.violations) stale |= v.kind == "stale_token_write";
  EXPECT_TRUE(stale) << "the checker did not report a stale_token_write";
}

TEST_F(LiveRun, WithoutFencingTheIdempotencyKeyStopsTheLateBatchAndTheCheckerSeesTheFenceFail) {
  // Same fault, only the fence check off: the late batch is for the window
  // the successor settled first, so the ledger's idempotency key turns it
  // into a duplicate and no stale token is ever applied (see docs/LIVE.md).
  // The fence's failure shows all the same: the ledger answered the stale
  // token as a duplicate where it must reject it (stale_token_accepted).
  const LiveResult result = Run(14, "pause-mid-batch:leader@3+8", "no-fencing");
  EXPECT_EQ(result.exit_code, 1);
  bool accepted = false;
  for (const checker::Violation& v : result.verdict.violations) {
    EXPECT_NE(v.kind, "stale_token_write") << v.message;
    EXPECT_NE(v.kind, "duplicate_settlement") << v.message;
    accepted |= v.kind == "stale_token_accepted";
  }
  EXPECT_TRUE(accepted) << "the checker did not report the stale token answered as a duplicate";
  ASSERT_TRUE(result.figures.contains("duplicate_settlements_suppressed"));
  EXPECT_GE(result.figures.at("duplicate_settlements_suppressed"), 1);
}

}  // namespace
}  // namespace leasesim::live
