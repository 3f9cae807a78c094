// `leasesim check` end to end: exit codes, format sniffing and flags, the
// corrupt line named by number, --json, and budget exhaustion.

#include "checker/check_command.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/history_io.h"
#include "cli/commands.h"

namespace leasesim::checker {
namespace {

struct CommandRun {
  int code;
  std::string out;
  std::string err;
};

CommandRun Check(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::CheckCommand(args, out, err);
  return {code, out.str(), err.str()};
}

std::filesystem::path Histories() {
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  return std::filesystem::path(root ? root : ".") / ".." / "shared" / "histories";
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

TEST(CheckCommand, SharedHistoriesExitCodes) {
  if (!std::filesystem::exists(Histories() / "expected.tsv")) GTEST_SKIP() << "no shared histories";
  const std::string etcd_bad = (Histories() / "jepsen-etcd" / "etcd_000.log").string();
  const std::string etcd_ok = (Histories() / "jepsen-etcd" / "etcd_002.log").string();
  const std::string kv_bad = (Histories() / "kv" / "c10-bad.txt").string();
  const std::string kv_ok = (Histories() / "kv" / "c10-ok.txt").string();
  EXPECT_EQ(Check({etcd_ok}).code, kCheckExitOk);
  EXPECT_EQ(Check({kv_ok}).code, kCheckExitOk);
  const CommandRun bad = Check({etcd_bad});
  EXPECT_EQ(bad.code, kCheckExitViolation);
  EXPECT_NE(bad.out.find("not_linearizable"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("cannot be placed"), std::string::npos) << bad.out;
  EXPECT_EQ(Check({kv_bad, "--format", "edn", "--model", "kv"}).code, kCheckExitViolation);
  EXPECT_EQ(Check({"--format=jepsen-log", "--model=cas-register", etcd_ok}).code, kCheckExitOk);

  const CommandRun json = Check({kv_bad, "--json"});
  EXPECT_EQ(json.code, kCheckExitViolation);
  const nlohmann::json parsed = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(parsed.is_discarded()) << json.out;
  EXPECT_EQ(parsed["verdict"], "violation");
  EXPECT_EQ(parsed["model"], "kv");
  EXPECT_EQ(parsed["violations"][0]["kind"], "not_linearizable");

  // A budget too small to decide: exit 4, the same every time.
  const CommandRun unknown = Check({etcd_bad, "--budget", "3"});
  EXPECT_EQ(unknown.code, kCheckExitUnknown);
  EXPECT_EQ(Check({etcd_bad, "--budget", "3"}).out, unknown.out);

  // A model that cannot judge the format is a usage error.
  EXPECT_EQ(Check({etcd_ok, "--model", "kv"}).code, kCheckExitBadInput);
}

TEST(CheckCommand, CorruptInputNamesTheLine) {
  const std::string log = WriteTemp("corrupt.log",
                                    "INFO  jepsen.util - 4\t:invoke\t:read\tnil\n"
                                    "INFO  jepsen.util - 4\t:ok\t:read\tnil\n"
                                    "INFO  jepsen.util - 4\t:ok\t:read\n");
  const CommandRun run = Check({log});
  EXPECT_EQ(run.code, kCheckExitBadInput);
  EXPECT_NE(run.err.find("line 3"), std::string::npos) << run.err;

  const std::string edn = WriteTemp("corrupt.edn",
                                    "{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n"
                                    "{:process 0, :type :ok, :f :get, :key \"1\", :value \"x\"\n");
  const CommandRun edn_run = Check({edn, "--json"});
  EXPECT_EQ(edn_run.code, kCheckExitBadInput);
  EXPECT_NE(edn_run.err.find("line 2"), std::string::npos) << edn_run.err;
  EXPECT_NE(edn_run.out.find("\"line\":2"), std::string::npos) << edn_run.out;

  const std::string history = WriteTemp(
      "corrupt.jsonl", HistoryToJsonLines(History{}) + R"({"type":"belief","node":1,"holder":"a"})" + "\n");
  const CommandRun history_run = Check({history});
  EXPECT_EQ(history_run.code, kCheckExitBadInput);
  EXPECT_NE(history_run.err.find("line 2, field \"term\""), std::string::npos) << history_run.err;
}

TEST(CheckCommand, LeasesimHistoryVerdicts) {
  History h;
  h.node_count = 2;
  h.end_ns = 10'000'000'000;
  h.beliefs = {{1, "n1.1", 1, 0, 6'000'000'000, "deadline"}, {2, "n2.1", 2, 5'000'000'000, 10'000'000'000, ""}};
  const std::string bad = WriteTemp("overlap.jsonl", HistoryToJsonLines(h));
  const CommandRun run = Check({bad});
  EXPECT_EQ(run.code, kCheckExitViolation);
  EXPECT_NE(run.out.find("lease_overlap"), std::string::npos) << run.out;
  h.beliefs[1].from_ns = 6'000'000'000;
  EXPECT_EQ(Check({WriteTemp("fine.jsonl", HistoryToJsonLines(h))}).code, kCheckExitOk);
}

// An EDN register history whose first read sees 0, and a concurrent cas
// that failed while the register held its expected value.
std::string KnossosStyleHistory() {
  return "[{:process 0, :type :invoke, :f :read, :value 0}\n"
         " {:process 0, :type :ok, :f :read, :value 0}\n"
         " {:process 1, :type :invoke, :f :cas, :value [0 2]}\n"
         " {:process 2, :type :invoke, :f :write, :value 1}\n"
         " {:process 1, :type :fail, :f :cas, :value [0 2]}\n"
         " {:process 2, :type :ok, :f :write, :value 1}\n"
         " {:process 3, :type :invoke, :f :read, :value nil}\n"
         " {:process 3, :type :ok, :f :read, :value 1}]\n";
}

TEST(CheckCommand, InitialValueSetsTheRegistersStart) {
  const std::string edn = WriteTemp("knossos-style.edn", KnossosStyleHistory());
  // Knossos's cas-register model starts at nil: reading 0 first cannot be.
  const CommandRun from_nil = Check({edn});
  EXPECT_EQ(from_nil.code, kCheckExitViolation) << from_nil.out << from_nil.err;
  EXPECT_NE(from_nil.out.find("Knossos's convention, initial value nil"), std::string::npos) << from_nil.out;
  EXPECT_EQ(Check({edn, "--initial-value", "nil"}).code, kCheckExitViolation);
  EXPECT_EQ(Check({edn, "--initial-value", "7"}).code, kCheckExitViolation);
  const CommandRun from_zero = Check({edn, "--initial-value", "0", "--json"});
  EXPECT_EQ(from_zero.code, kCheckExitOk) << from_zero.out << from_zero.err;
  const nlohmann::json parsed = nlohmann::json::parse(from_zero.out, nullptr, false);
  ASSERT_FALSE(parsed.is_discarded()) << from_zero.out;
  EXPECT_EQ(parsed["convention"]["name"], "Knossos");
  EXPECT_EQ(parsed["convention"]["initial_value"], 0);
  EXPECT_EQ(parsed["client_operations"], 4);
  EXPECT_EQ(parsed["operations"], 3);  // the failed cas is dropped

  // A Jepsen log starts where it is told too, and keeps Porcupine's reading.
  const std::string log = WriteTemp("reads-zero.log",
                                    "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n"
                                    "INFO  jepsen.util - 0\t:ok\t:read\t0\n"
                                    "INFO  jepsen.util - 1\t:invoke\t:cas\t[0 2]\n"
                                    "INFO  jepsen.util - 1\t:fail\t:cas\t[0 2]\n");
  EXPECT_EQ(Check({log, "--initial-value", "5"}).code, kCheckExitViolation);
  const CommandRun porcupine = Check({log, "--initial-value", "0"});
  EXPECT_EQ(porcupine.code, kCheckExitViolation) << porcupine.out;
  EXPECT_NE(porcupine.out.find("Porcupine's convention, initial value 0"), std::string::npos) << porcupine.out;

  // Not an integer, or a model without a register: a usage error naming the flag.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{edn, "--initial-value", "zero"}, {edn, "--initial-value", ""},
        {edn, "--initial-value", "-9223372036854775808"}, {edn, "--initial-value", "0", "--model", "kv"}}) {
    const CommandRun bad = Check(args);
    EXPECT_EQ(bad.code, kCheckExitBadInput) << args[2];
    EXPECT_NE(bad.err.find("--initial-value"), std::string::npos) << bad.err;
  }
  const CommandRun help = Check({"--help"});
  EXPECT_NE(help.out.find("--initial-value"), std::string::npos) << help.out;
}

TEST(CheckCommand, EdnRegisterBudgetAndBadInput) {
  const std::string edn = WriteTemp("budget.edn", KnossosStyleHistory());
  const CommandRun unknown = Check({edn, "--initial-value", "0", "--budget", "1"});
  EXPECT_EQ(unknown.code, kCheckExitUnknown) << unknown.out;
  EXPECT_EQ(Check({edn, "--initial-value", "0", "--budget", "1"}).out, unknown.out);

  const std::string stray = WriteTemp("stray-ok.edn",
                                      "{:process 0, :type :invoke, :f :write, :value 1}\n"
                                      "{:process 0, :type :ok, :f :write, :value 1}\n"
                                      "{:process 5, :type :ok, :f :read, :value 1}\n");
  const CommandRun bad = Check({stray});
  EXPECT_EQ(bad.code, kCheckExitBadInput);
  EXPECT_NE(bad.err.find("line 3, field \"process\""), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("needs the process's :invoke"), std::string::npos) << bad.err;
}

TEST(CheckCommand, UsageErrors) {
  EXPECT_EQ(Check({}).code, kCheckExitBadInput);
  EXPECT_EQ(Check({"a", "b"}).code, kCheckExitBadInput);
  EXPECT_EQ(Check({"a", "--format", "xml"}).code, kCheckExitBadInput);
  EXPECT_EQ(Check({"a", "--budget", "-1"}).code, kCheckExitBadInput);
  EXPECT_EQ(Check({"a", "--budget"}).code, kCheckExitBadInput);
  EXPECT_EQ(Check({"a", "--frobnicate"}).code, kCheckExitBadInput);
  EXPECT_EQ(Check({"/nonexistent/file.log"}).code, kCheckExitBadInput);
  EXPECT_EQ(Check({"--help"}).code, kCheckExitOk);
}

}  // namespace
}  // namespace leasesim::checker
