// Live-run pieces that need no etcd: variant lists (orchestrator and node),
// the command's usage errors, and the quantile the figures use.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/live_command.h"
#include "live/history_merge.h"
#include "live/live_run.h"

namespace leasesim::live {
namespace {

// Live nodes run registered protocols (core/protocol.h), names matched exactly.
TEST(LiveProtocols, TakeRegisteredNamesExactly) {
  EXPECT_EQ(ValidateProtocol(""), "");  // the default
  EXPECT_EQ(ValidateProtocol("leasesim"), "");
  EXPECT_EQ(ValidateProtocol("correct"), "");
  EXPECT_EQ(ValidateProtocol("no-fencing"), "");
  EXPECT_EQ(ValidateProtocol("no-fencing,no-idempotency-key"), "");
  EXPECT_EQ(ValidateProtocol("blind-write"), "");
  EXPECT_NE(ValidateProtocol("no-fence"), "");
  // A substring match would have taken these for no-fencing.
  EXPECT_NE(ValidateProtocol("no-fencing-please").find("unknown protocol \"no-fencing-please\""), std::string::npos);
  EXPECT_NE(ValidateProtocol("xno-fencing").find("\"xno-fencing\""), std::string::npos);
  EXPECT_NE(ValidateProtocol("no-fencing,").find("unknown variant \"\""), std::string::npos);
}

TEST(LiveNode, AnUnknownProtocolExitsTwoNamingIt) {
  const std::string log = std::filesystem::temp_directory_path() / ("leasesim-node-" + std::to_string(::getpid()));
  const std::string command = std::string(LEASESIM_LIVE_NODE_BINARY) +
                              " --node 1 --incarnation 1 --etcd http://127.0.0.1:1 --key k --ledger-prefix p/"
                              " --journal /nonexistent/j --epoch-wall-ns 0 --protocol no-fencing,no-fencing-x"
                              " > " + log + " 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::stringstream text;
  text << std::ifstream(log).rdbuf();
  std::filesystem::remove(log);
  EXPECT_NE(text.str().find("unknown variant \"no-fencing-x\""), std::string::npos) << text.str();
}

TEST(LiveCommand, UsageErrorsExitTwoWithTheRule) {
  std::ostringstream out, err;
  EXPECT_EQ(cli::LiveCommand({"--nodes", "0"}, out, err), 2);
  EXPECT_NE(err.str().find("--nodes: must be a whole number from 1 to 9"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(cli::LiveCommand({"--faults", "pause@3"}, out, err), 2);
  EXPECT_NE(err.str().find("needs +DURATION"), std::string::npos);
  err.str("");
  EXPECT_EQ(cli::LiveCommand({"--variant", "nope"}, out, err), 2);  // the alias of --protocol
  EXPECT_NE(err.str().find("unknown protocol \"nope\""), std::string::npos);
  EXPECT_EQ(cli::LiveCommand({"--bogus"}, out, err), 2);
  EXPECT_EQ(cli::LiveCommand({"--help"}, out, err), 0);
  EXPECT_NE(out.str().find("usage: leasesim live"), std::string::npos);
  EXPECT_NE(out.str().find("delay=MS"), std::string::npos);  // every table row is in the usage
}

TEST(LiveCommand, ATimingThatBreaksARuleIsRejectedBeforeAnythingStarts) {
  std::ostringstream out, err;
  EXPECT_EQ(cli::LiveCommand({"--renew-interval-ms", "5000", "--out", "/nonexistent/x"}, out, err), 2);
  EXPECT_NE(err.str().find("timing: renew_interval"), std::string::npos);
}

TEST(LiveCommand, AnEtcdStopNeedsTheRunsOwnCluster) {
  std::ostringstream out, err;
  EXPECT_EQ(cli::LiveCommand({"--etcd", "http://127.0.0.1:1", "--faults", "etcd-stop:1@2+1"}, out, err), 2);
  EXPECT_NE(err.str().find("etcd-stop needs the run's own cluster"), std::string::npos);
}

TEST(LiveCommand, EtcdSecurityFlagsAreCheckedBeforeAnythingStarts) {
  const auto rejects = [](std::vector<std::string> args, const std::string& rule) {
    std::ostringstream out, err;
    args.insert(args.end(), {"--out", "/nonexistent/x"});
    EXPECT_EQ(cli::LiveCommand(args, out, err), 2) << err.str();
    EXPECT_NE(err.str().find(rule), std::string::npos) << err.str();
  };
  rejects({"--etcd-secure", "--etcd", "https://127.0.0.1:1"}, "--etcd-secure secures the run's own cluster");
  rejects({"--etcd-ca", "/etc/hostname"}, "--etcd-ca describes a cluster given with --etcd");
  rejects({"--etcd", "http://127.0.0.1:1", "--etcd-ca", "/etc/hostname"},
          "--etcd: http://127.0.0.1:1 is not https:// but TLS options are given");
  rejects({"--etcd", "https://127.0.0.1:1", "--etcd-ca", "/nonexistent/ca.crt"},
          "--etcd-ca: cannot read /nonexistent/ca.crt");
  rejects({"--etcd", "https://127.0.0.1:1", "--etcd-cert", "/etc/hostname"}, "give both");
  rejects({"--etcd", "https://127.0.0.1:1", "--etcd-user", "svc"}, "--etcd-user needs --etcd-password-file");
}

TEST(LiveRunOptions, AFaultOnANodeBeyondTheRunIsRejectedBeforeAnythingStarts) {
  // Options built in code skip the command's parser; RunLive checks again.
  LiveOptions options;
  options.nodes = 2;
  options.out_dir = "/nonexistent/never-created";
  ASSERT_FALSE(ParseFaults("pause:3@1+1", 3, options.faults).has_value());
  std::ostringstream out, err;
  EXPECT_EQ(RunLive(options, out, err).exit_code, 2);
  EXPECT_NE(err.str().find("node 3 out of range 1..2"), std::string::npos) << err.str();
  options.faults.clear();
  options.period_ms = 0;
  EXPECT_EQ(RunLive(options, out, err).exit_code, 2);
  EXPECT_NE(err.str().find("--period-ms must be at least 1"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace leasesim::live
