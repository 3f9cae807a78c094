// Live-run pieces that need no etcd: fault parsing, the journal merge (with
// the ledger as the authority on what it applied), and the cut proxy.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checker/checker.h"
#include "cli/live_command.h"
#include "live/history_merge.h"
#include "live/live_run.h"
#include "live/node_journal.h"
#include "live/tcp_proxy.h"

namespace leasesim::live {
namespace {

using Json = nlohmann::json;
constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kT0 = 1'000'000 * kMs;  // CLOCK_MONOTONIC at the run's start

TEST(LiveFaults, ParsesTheListFormat) {
  std::vector<LiveFault> faults;
  ASSERT_EQ(ParseFaults("kill:2@16,pause:leader@6+8,etcd-stop:leader@24.5+4,cut:1@30+2,pause-mid-batch@3+9", 3, faults), "");
  ASSERT_EQ(faults.size(), 5u);
  EXPECT_EQ(faults[0].kind, FaultKind::kPauseMidBatch);  // sorted by time
  EXPECT_TRUE(faults[0].leader);
  EXPECT_EQ(faults[1].kind, FaultKind::kPause);
  EXPECT_EQ(faults[1].at_ms, 6'000);
  EXPECT_EQ(faults[1].duration_ms, 8'000);
  EXPECT_EQ(faults[2].kind, FaultKind::kKill);
  EXPECT_EQ(faults[2].target, 2);
  EXPECT_EQ(faults[2].duration_ms, 0);  // no restart
  EXPECT_EQ(faults[3].at_ms, 24'500);
  EXPECT_EQ(faults[4].kind, FaultKind::kCut);
}

TEST(LiveFaults, RejectsMalformedItemsWithTheReason) {
  std::vector<LiveFault> faults;
  EXPECT_NE(ParseFaults("pause:leader+8", 3, faults).find("missing @AT"), std::string::npos);
  EXPECT_NE(ParseFaults("nap@3+1", 3, faults).find("unknown kind"), std::string::npos);
  EXPECT_NE(ParseFaults("pause:4@3+1", 3, faults).find("out of range"), std::string::npos);
  EXPECT_NE(ParseFaults("etcd-stop:4@3+1", 5, faults).find("out of range"), std::string::npos);
  EXPECT_NE(ParseFaults("pause@x+1", 3, faults).find("AT must be"), std::string::npos);
  EXPECT_NE(ParseFaults("pause@3", 3, faults).find("needs +DURATION"), std::string::npos);
}

TEST(LiveVariants, KnowsTheLedgerVariants) {
  EXPECT_EQ(ValidateVariant("correct"), "");
  EXPECT_EQ(ValidateVariant("no-fencing"), "");
  EXPECT_EQ(ValidateVariant("no-fencing,no-idempotency"), "");
  EXPECT_NE(ValidateVariant("no-fence"), "");
}

TEST(LiveCommand, UsageErrorsExitTwoWithTheRule) {
  std::ostringstream out, err;
  EXPECT_EQ(cli::LiveCommand({"--nodes", "0"}, out, err), 2);
  EXPECT_NE(err.str().find("--nodes must be"), std::string::npos);
  err.str("");
  EXPECT_EQ(cli::LiveCommand({"--faults", "pause@3"}, out, err), 2);
  EXPECT_NE(err.str().find("needs +DURATION"), std::string::npos);
  err.str("");
  EXPECT_EQ(cli::LiveCommand({"--variant", "nope"}, out, err), 2);
  EXPECT_EQ(cli::LiveCommand({"--bogus"}, out, err), 2);
  EXPECT_EQ(cli::LiveCommand({"--help"}, out, err), 0);
  EXPECT_NE(out.str().find("usage: leasesim live"), std::string::npos);
}

TEST(LiveCommand, ATimingThatBreaksARuleIsRejectedBeforeAnythingStarts) {
  std::ostringstream out, err;
  EXPECT_EQ(cli::LiveCommand({"--renew-interval-ms", "5000", "--out", "/nonexistent/x"}, out, err), 2);
  EXPECT_NE(err.str().find("timing: renew_interval"), std::string::npos);
}

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
               {"monotonic_ns", kT0 + at_ms * kMs}, {"at", kT0 + at_ms * kMs}};
  if (valid_until_ms > 0) json["valid_until_ns"] = kT0 + valid_until_ms * kMs;
  return json;
}

Json Send(std::int64_t w, const std::string& write_id, std::int64_t token, std::int64_t window, std::int64_t at_ms) {
  return {{"t", "ls"}, {"w", w}, {"write_id", write_id}, {"token", token},
          {"key", "settlement/window-" + std::to_string(window)}, {"window", window}, {"valid", true},
          {"at", kT0 + at_ms * kMs}};
}

Json Reply(std::int64_t w, const std::string& status, std::int64_t at_ms) {
  return {{"t", "lc"}, {"w", w}, {"status", status}, {"at", kT0 + at_ms * kMs}};
}

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
  std::filesystem::path dir_;
};

TEST_F(MergeTest, BuildsBeliefsOpsAndWritesOnOneTimeLine) {
  Journal n1(Path("n1.1.jsonl"));
  n1.Line({{"t", "hello"}, {"identity", "n1#1"}, {"at", kT0 + 1 * kMs}})
      .Line({{"t", "si"}, {"op", 1}, {"kind", "create"}, {"key", "k"}, {"ev", 0},
             {"v", {{"holder", "n1#1"}, {"term", 1}, {"duration_ns", 4000 * kMs}}}, {"at", kT0 + 10 * kMs}})
      .Line({{"t", "sc"}, {"op", 1}, {"status", "ok"}, {"found", true}, {"version", 1},
             {"rv", {{"holder", "n1#1"}, {"term", 1}, {"duration_ns", 4000 * kMs}}}, {"at", kT0 + 14 * kMs}})
      .Line(Event("acquired", "n1#1", 1, 14, 3010))
      .Line({{"t", "si"}, {"op", 2}, {"kind", "cas"}, {"key", "k"}, {"ev", 1},
             {"v", {{"holder", "n1#1"}, {"term", 1}, {"duration_ns", 4000 * kMs}}}, {"at", kT0 + 1010 * kMs}})
      .Line({{"t", "sc"}, {"op", 2}, {"status", "ok"}, {"found", true}, {"version", 2},
             {"rv", {{"holder", "n1#1"}, {"term", 1}, {"duration_ns", 4000 * kMs}}}, {"at", kT0 + 1013 * kMs}})
      .Line(Event("renewed", "n1#1", 1, 1013, 4010))
      .Line(Send(3, "n1#1/1", 1, 0, 1500))
      .Line(Reply(3, "applied", 1504))
      // The next renewal never completes: the process was killed mid-call.
      .Line({{"t", "si"}, {"op", 4}, {"kind", "cas"}, {"key", "k"}, {"ev", 2},
             {"v", {{"holder", "n1#1"}, {"term", 1}, {"duration_ns", 4000 * kMs}}}, {"at", kT0 + 2010 * kMs}})
      .Save();
  Journal n2(Path("n2.1.jsonl"));
  n2.Line(Event("acquired", "n2#1", 2, 7000, 10000)).Line(Event("demoted", "n2#1", 2, 8000)).Save();

  MergeInput input;
  input.start_mono = kT0;
  input.end_mono = kT0 + 20'000 * kMs;
  input.node_count = 2;
  input.journals = {{1, 1, n1.path()}, {2, 1, n2.path()}};
  input.kills = {{1, 1, kT0 + 2'500 * kMs}};
  input.applied = {etcd::AppliedBatch{.write_id = "n1#1/1", .token = 1, .window = 0, .revision = 9}};
  MergeOutput merged = MergeJournals(input);
  const checker::History& h = merged.history;
  EXPECT_TRUE(merged.warnings.empty());
  ASSERT_EQ(h.store_ops.size(), 3u);
  EXPECT_EQ(h.store_ops[0].kind, checker::StoreOpKind::kCreate);
  EXPECT_EQ(h.store_ops[0].invoke_ns, 10 * kMs);
  EXPECT_EQ(h.store_ops[0].complete_ns, 14 * kMs);
  EXPECT_EQ(h.store_ops[0].outcome, checker::Outcome::kOk);
  EXPECT_EQ(h.store_ops[1].version, 2);
  EXPECT_EQ(h.store_ops[2].outcome, checker::Outcome::kUnknown);
  EXPECT_EQ(h.store_ops[2].complete_ns, checker::kNeverNs);
  ASSERT_EQ(h.beliefs.size(), 2u);
  EXPECT_EQ(h.beliefs[0].holder, "n1#1");
  EXPECT_EQ(h.beliefs[0].from_ns, 14 * kMs);
  EXPECT_EQ(h.beliefs[0].until_ns, 2'500 * kMs);  // killed before its deadline (4.01 s)
  EXPECT_EQ(h.beliefs[0].end_reason, "crash");
  EXPECT_EQ(h.beliefs[1].until_ns, 8'000 * kMs);
  ASSERT_EQ(h.ledger_writes.size(), 1u);
  EXPECT_EQ(h.ledger_writes[0].result, checker::LedgerResult::kApplied);
  EXPECT_EQ(h.ledger_writes[0].arrived_ns, 1'504 * kMs);
  ASSERT_EQ(merged.renewal_latencies_ns.size(), 1u);
  EXPECT_EQ(merged.renewal_latencies_ns[0], 3 * kMs);
  EXPECT_TRUE(checker::CheckHistory(h).ok());
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
  input.end_mono = kT0 + 20'000 * kMs;
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

TEST(LiveQuantile, NearestRank) {
  EXPECT_EQ(Quantile({}, 0.5), 0);
  EXPECT_EQ(Quantile({5, 1, 3}, 0.5), 3);
  std::vector<std::int64_t> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  EXPECT_EQ(Quantile(hundred, 0.99), 99);
  EXPECT_EQ(Quantile(hundred, 1.0), 100);
}

int ListenLoopback(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::listen(fd, 8);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

int Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Echo through the proxy; true when "ping" came back.
bool Echoes(int proxy_port, int server_fd) {
  const int client = Connect(proxy_port);
  if (client < 0) return false;
  ::send(client, "ping", 4, MSG_NOSIGNAL);
  pollfd p{server_fd, POLLIN, 0};
  bool ok = false;
  if (::poll(&p, 1, 500) > 0) {
    const int upstream = ::accept(server_fd, nullptr, nullptr);
    char buffer[8];
    pollfd u{upstream, POLLIN, 0};
    if (::poll(&u, 1, 500) > 0 && ::recv(upstream, buffer, sizeof buffer, 0) == 4) {
      ::send(upstream, buffer, 4, MSG_NOSIGNAL);
      pollfd c{client, POLLIN, 0};
      ok = ::poll(&c, 1, 500) > 0 && ::recv(client, buffer, sizeof buffer, 0) == 4;
    }
    ::close(upstream);
  }
  ::close(client);
  return ok;
}

TEST(LiveProxy, ForwardsAndCuts) {
  int target = 0;
  const int server = ListenLoopback(&target);
  ProxyHub hub;
  const int port = hub.Add(1, target);
  ASSERT_NE(port, 0);
  hub.Start();
  EXPECT_TRUE(Echoes(port, server));
  hub.SetCut(1, true);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(Echoes(port, server));
  hub.SetCut(1, false);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(Echoes(port, server));
  ::close(server);
}

}  // namespace
}  // namespace leasesim::live
