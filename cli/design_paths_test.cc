// Every registered reference design (core::Protocol::design, both token
// modes) through each command a user drives it with, cheaply: a short
// `run --protocol`, a `replay` of one of its seeds with the same trace
// hash, a tiny `fuzz`, `explore` with one fault and a small limit, and
// `compare` of two run outputs. A design added to the registry is covered
// without touching this file.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/test_temp_path.h"
#include "cli/commands.h"
#include "core/protocol.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;

// Three nodes for 20 s with a 6 s lease and no fault: long enough for every
// design to elect and settle a few windows (a ZooKeeper session is at least
// 4 s; client-go needs LeaseDuration > RenewDeadline > 1.2 RetryPeriod).
constexpr const char* kWorld = R"({"scenarios": [{"name": "w", "nodes": 3, "duration_ms": 20000,
    "lease": {"duration_ms": 6000, "renew_interval_ms": 2000, "renew_deadline_ms": 4000,
              "retry_ms": 1000, "request_timeout_ms": 500, "drift_bound_ppm": 1000,
              "safety_margin_ms": 200},
    "settlement": {"period_ms": 2000, "batch_items": 2},
    "store": {"kind": "linearizable", "latency_ms": {"base": 1, "jitter": 2}},
    "network": {"latency_ms": {"base": 1, "jitter": 2}, "loss": 0}}]})";

std::vector<std::string> DesignProtocols() {
  std::vector<std::string> names;
  for (const core::Protocol* protocol : core::Protocols().All()) {
    if (!protocol->design.empty()) names.push_back(protocol->name);
  }
  return names;
}

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome Invoke(int (*command)(const std::vector<std::string>&, std::ostream&, std::ostream&),
               const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = command(args, out, err);
  return {code, out.str(), err.str()};
}

// A protocol's name as a test and directory name ("kube-lease" -> "kube_lease").
std::string Underscored(const std::string& name) {
  std::string underscored = name;
  std::replace(underscored.begin(), underscored.end(), '-', '_');
  return underscored;
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class DesignPaths : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = base::FreshTestDir("leasesim_design_paths_" + Underscored(GetParam()));
    world_ = (dir_ / "world.json").string();
    std::ofstream(world_) << kWorld;
  }

  std::string Dir(const std::string& name) const { return (dir_ / name).string(); }

  Outcome Run(const std::string& out) {
    return Invoke(RunCommand, {world_, "--protocol", GetParam(), "--seeds", "1-2", "--jobs", "1", "--quiet",
                               "--out", Dir(out)});
  }

  fs::path dir_;
  std::string world_;
};

TEST_P(DesignPaths, RunsAndReplaysASeedWithTheSameTraceHash) {
  const Outcome run = Run("run");
  ASSERT_EQ(run.code, kExitOk) << run.out << run.err;
  const nlohmann::json summary = nlohmann::json::parse(ReadText(fs::path(Dir("run")) / "summary.json"));
  ASSERT_EQ(summary["runs"].size(), 2u);
  const std::string hash = summary["runs"][1]["trace_hash"].get<std::string>();
  const Outcome replay =
      Invoke(ReplayCommand, {world_, "--scenario", "w", "--seed", "2", "--protocol", GetParam()});
  ASSERT_EQ(replay.code, kExitOk) << replay.out << replay.err;
  EXPECT_NE(replay.out.find("trace " + hash), std::string::npos) << hash << "\n" << replay.out;
}

TEST_P(DesignPaths, TwoRunOutputsCompare) {
  const Outcome base = Run("base");
  ASSERT_EQ(base.code, kExitOk) << base.out << base.err;
  const Outcome again = Run("new");
  ASSERT_EQ(again.code, kExitOk) << again.out << again.err;
  const Outcome compare = Invoke(CompareCommand, {Dir("base"), Dir("new")});
  EXPECT_EQ(compare.code, kExitOk) << compare.out << compare.err;
}

// A case or two of the generic search: it ends with an answer (0, or 1 with
// the counterexample written), never a usage error.
TEST_P(DesignPaths, FuzzsAFewCases) {
  const Outcome fuzz = Invoke(FuzzCommand, {"--protocol", GetParam(), "--runs", "2", "--seed", "1", "--no-shrink",
                                            "--quiet", "--out", Dir("fuzz")});
  ASSERT_TRUE(fuzz.code == kExitOk || fuzz.code == kExitViolation) << fuzz.out << fuzz.err;
  if (fuzz.code == kExitViolation) {
    EXPECT_TRUE(fs::exists(fs::path(Dir("fuzz")) / "counterexample.json"));
  }
}

TEST_P(DesignPaths, ExploresOneFaultPlacements) {
  const Outcome explore = Invoke(ExploreCommand, {world_, "--scenario", "w", "--faults", "1", "--limit", "3",
                                                  "--protocol", GetParam(), "--quiet", "--out", Dir("explore")});
  ASSERT_TRUE(explore.code == kExitOk || explore.code == kExitViolation) << explore.out << explore.err;
  EXPECT_NE(explore.out.find("ran 3 of 3 placements"), std::string::npos) << explore.out;
  // The design's own KV store hosts are on the menu (kv_* faults).
  EXPECT_NE(explore.out.find(" kv_pause "), std::string::npos) << explore.out;
}

std::string ParamName(const ::testing::TestParamInfo<std::string>& info) { return Underscored(info.param); }

INSTANTIATE_TEST_SUITE_P(EveryDesign, DesignPaths, ::testing::ValuesIn(DesignProtocols()), ParamName);

TEST(DesignPathsRegistry, HasTheFourDesignsInTheirTokenModes) {
  const std::vector<std::string> names = DesignProtocols();
  for (const char* expected : {"kube-lease", "kube-lease-fenced", "etcd-election", "etcd-election-fenced", "redlock",
                               "zk-election", "zk-election-fenced"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
}

}  // namespace
}  // namespace leasesim::cli
