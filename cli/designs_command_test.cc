// leasesim designs: its table and files for a few rows, the same whatever
// the number of jobs, and its refusals of bad input.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/test_temp_path.h"
#include "cli/command_test_util.h"
#include "cli/commands.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;
using command_test::Outcome;
using command_test::ReadText;

Outcome Designs(const std::vector<std::string>& args) { return command_test::Invoke(DesignsCommand, args); }

TEST(DesignsCommand, WritesTheTableAndEachShrunkCounterexampleTheSameForAnyJobs) {
  const fs::path one = base::FreshTestDir("leasesim_designs_one");
  const fs::path two = base::FreshTestDir("leasesim_designs_two");
  const std::vector<std::string> args{"--runs", "6", "--seed", "1", "--protocols", "leasesim,kube-lease", "--quiet"};
  std::vector<std::string> first = args;
  first.insert(first.end(), {"--jobs", "1", "--out", one.string()});
  std::vector<std::string> second = args;
  second.insert(second.end(), {"--jobs", "2", "--out", two.string()});
  const Outcome a = Designs(first);
  ASSERT_EQ(a.code, kExitOk) << a.out << a.err;
  const Outcome b = Designs(second);
  ASSERT_EQ(b.code, kExitOk) << b.out << b.err;
  const nlohmann::json table = nlohmann::json::parse(ReadText(one / "designs.json"));
  ASSERT_EQ(table["rows"].size(), 2u);
  EXPECT_EQ(table["rows"][0]["protocol"], "leasesim");
  EXPECT_EQ(table["rows"][0]["violating"], 0);
  EXPECT_EQ(table["rows"][1]["protocol"], "kube-lease");
  EXPECT_EQ(table["rows"][1]["design"], "kube-lease");
  EXPECT_FALSE(table["rows"][1]["token"].get<bool>());
  EXPECT_EQ(table["rows"][1]["cases"], 6);
  ASSERT_GT(table["rows"][1]["first_violation"].get<int>(), 0);  // caught at case 4 of session 1
  EXPECT_TRUE(fs::exists(one / "kube-lease.json"));
  EXPECT_NE(a.out.find("replay: "), std::string::npos);
  // The rows are independent sessions: the same files whatever the jobs.
  EXPECT_EQ(ReadText(one / "kube-lease.json"), ReadText(two / "kube-lease.json"));
  nlohmann::json other = nlohmann::json::parse(ReadText(two / "designs.json"));
  nlohmann::json same = table;
  for (nlohmann::json* rows : {&same["rows"], &other["rows"]}) {
    for (auto& row : *rows) {
      row.erase("counterexample");  // paths under each --out
      row.erase("replay");
    }
  }
  EXPECT_EQ(same, other);
}

TEST(DesignsCommand, RefusesAProtocolThatIsNoDesignAndABadCount) {
  const Outcome unknown = Designs({"--protocols", "leasesim,no-fencing", "--quiet"});
  EXPECT_EQ(unknown.code, kExitBadInput);
  EXPECT_NE(unknown.err.find("--protocols: \"no-fencing\" is not a design"), std::string::npos) << unknown.err;
  const Outcome zero = Designs({"--runs", "0", "--quiet"});
  EXPECT_EQ(zero.code, kExitBadInput);
  EXPECT_NE(zero.err.find("--runs: must be a whole number from 1 to 1000000"), std::string::npos) << zero.err;
}

}  // namespace
}  // namespace leasesim::cli
