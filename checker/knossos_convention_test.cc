// Each convention of reading an EDN register history as Knossos does (docs/
// CHECKER.md, "Whose convention"), pinned on a history where it decides the
// verdict, beside the Jepsen-log (Porcupine) reading where the two differ.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "checker/cas_register_model.h"
#include "checker/edn_import.h"
#include "checker/jepsen_log_import.h"

namespace leasesim::checker {
namespace {

// The verdict on an EDN register history read as Knossos reads it.
LinVerdict Knossos(const std::string& edn, std::optional<std::int64_t> initial = std::nullopt) {
  ReadResult<CasRegisterOp> read = ImportEdnRegister(edn);
  EXPECT_TRUE(read.ok()) << read.error->ToString();
  return CheckCasRegister(read.records, {}, KnossosConvention(initial)).verdict;
}

LinVerdict Porcupine(const std::string& edn) {
  ReadResult<CasRegisterOp> read = ImportEdnRegister(edn);
  EXPECT_TRUE(read.ok()) << read.error->ToString();
  return CheckCasRegister(read.records, {}, PorcupineConvention()).verdict;
}

std::string Op(int process, const std::string& type, const std::string& f, const std::string& value) {
  return "{:process " + std::to_string(process) + ", :type :" + type + ", :f :" + f + ", :value " + value + "}\n";
}

const std::string kWrite1 = Op(0, "invoke", "write", "1") + Op(0, "ok", "write", "1");

TEST(KnossosConvention, AFailedOperationDidNotHappenWhateverTheReason) {
  // The register holds 1, yet the client saw its cas [1 2] fail (a timeout
  // it knew to be final): Knossos drops it; Porcupine's reading, that the
  // register held something else, cannot be.
  const std::string failed_cas = kWrite1 + Op(1, "invoke", "cas", "[1 2]") + Op(1, "fail", "cas", "[1 2]") +
                                 Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "1");
  EXPECT_EQ(Knossos(failed_cas), LinVerdict::kLinearizable);
  EXPECT_EQ(Porcupine(failed_cas), LinVerdict::kNotLinearizable);

  // Dropped means it never took effect: nothing may read what it would have written.
  const std::string read_its_value = kWrite1 + Op(1, "invoke", "cas", "[1 2]") + Op(1, "fail", "cas", "[1 2]") +
                                     Op(3, "invoke", "write", "5") + Op(3, "fail", "write", "5") +
                                     Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "2");
  EXPECT_EQ(Knossos(read_its_value), LinVerdict::kNotLinearizable);
  const std::string read_failed_write = kWrite1 + Op(3, "invoke", "write", "5") + Op(3, "fail", "write", "5") +
                                        Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "5");
  EXPECT_EQ(Knossos(read_failed_write), LinVerdict::kNotLinearizable);
}

TEST(KnossosConvention, AnInfoMayTakeEffectAnyTimeAfterItsInvocationOrNever) {
  const std::string crashed = kWrite1 + Op(1, "invoke", "cas", "[1 2]") + Op(1, "info", "cas", "[1 2]");
  // Later than the first read, or never.
  EXPECT_EQ(Knossos(crashed + Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "1") +
                    Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "2")),
            LinVerdict::kLinearizable);
  EXPECT_EQ(Knossos(crashed + Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "1")),
            LinVerdict::kLinearizable);
  // But once, and not before its invocation.
  EXPECT_EQ(Knossos(crashed + Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "2") +
                    Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "1")),
            LinVerdict::kNotLinearizable);
  const std::string too_early = kWrite1 + Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "2") +
                                Op(1, "invoke", "cas", "[1 2]") + Op(1, "info", "cas", "[1 2]");
  EXPECT_EQ(Knossos(too_early), LinVerdict::kNotLinearizable);
}

TEST(KnossosConvention, AProcessThatCrashedMayInvokeAgainAndItsCrashedOperationStaysPending) {
  // Process 1 comes back after its :info (Jepsen would give it a new number;
  // Knossos refuses the history) and reads 1; only then does its crashed
  // cas take effect, as process 2's read of 2 shows.
  const std::string text = kWrite1 + Op(1, "invoke", "cas", "[1 2]") + Op(1, "info", "cas", "[1 2]") +
                           Op(1, "invoke", "read", "nil") + Op(1, "ok", "read", "1") +
                           Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "2");
  ReadResult<CasRegisterOp> read = ImportEdnRegister(text);
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  ASSERT_EQ(read.records.size(), 4u);
  EXPECT_EQ(read.records[1].outcome, Outcome::kUnknown);
  EXPECT_EQ(read.records[1].return_ns, kNeverNs);
  EXPECT_EQ(Knossos(text), LinVerdict::kLinearizable);
}

TEST(KnossosConvention, AnInfoWithNothingPendingIsSkippedAnOkIsAnError) {
  const std::string stray_info = kWrite1 + Op(4, "info", "read", "nil") + Op(2, "invoke", "read", "nil") +
                                 Op(2, "ok", "read", "1");
  ReadResult<CasRegisterOp> read = ImportEdnRegister(stray_info);
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  EXPECT_EQ(read.records.size(), 2u);

  ReadResult<CasRegisterOp> stray_ok = ImportEdnRegister(kWrite1 + Op(4, "ok", "read", "1"));
  ASSERT_FALSE(stray_ok.ok());
  EXPECT_EQ(stray_ok.error->line, 3);
  EXPECT_EQ(stray_ok.error->path, "process");
  EXPECT_NE(stray_ok.error->rule.find("needs the process's :invoke"), std::string::npos)
      << stray_ok.error->rule;
}

TEST(KnossosConvention, AReadsInvocationValueIsIgnored) {
  // Knossos's own histories invoke reads with the value they will read, or another.
  const std::string text = kWrite1 + Op(2, "invoke", "read", "7") + Op(2, "ok", "read", "1") +
                           Op(3, "invoke", "read", "1") + Op(3, "info", "read", "1");
  EXPECT_EQ(Knossos(text), LinVerdict::kLinearizable);
  const std::string keyed = Op(0, "invoke", "write", "[k 1]") + Op(0, "ok", "write", "[k 1]") +
                            Op(2, "invoke", "read", "[k 9]") + Op(2, "ok", "read", "[k 1]");
  ReadResult<CasRegisterOp> read = ImportEdnRegister(keyed);
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  EXPECT_EQ(read.records[1].key, "k");
  EXPECT_EQ(Knossos(keyed), LinVerdict::kLinearizable);

  // A Jepsen log keeps Porcupine's rule: a read is invoked with nil.
  ReadResult<CasRegisterOp> log = ImportJepsenLog("INFO  jepsen.util - 2\t:invoke\t:read\t7\n");
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.error->line, 1);
  EXPECT_EQ(log.error->path, "value");
}

TEST(KnossosConvention, AnOkReadOfNilSaysNothing) {
  const std::string text = kWrite1 + Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "nil");
  EXPECT_EQ(Knossos(text), LinVerdict::kLinearizable);
  EXPECT_EQ(Porcupine(text), LinVerdict::kNotLinearizable);
}

TEST(KnossosConvention, TheInitialValueIsNilUnlessGiven) {
  const std::string reads_zero = Op(2, "invoke", "read", "nil") + Op(2, "ok", "read", "0");
  EXPECT_EQ(Knossos(reads_zero), LinVerdict::kNotLinearizable);
  EXPECT_EQ(Knossos(reads_zero, 0), LinVerdict::kLinearizable);
  EXPECT_EQ(Knossos(reads_zero, 3), LinVerdict::kNotLinearizable);
  const std::string cas_from_zero = Op(1, "invoke", "cas", "[0 4]") + Op(1, "ok", "cas", "[0 4]");
  EXPECT_EQ(Knossos(cas_from_zero), LinVerdict::kNotLinearizable);
  EXPECT_EQ(Knossos(cas_from_zero, 0), LinVerdict::kLinearizable);
  // Every key of an independent history starts there.
  const std::string keyed = Op(2, "invoke", "read", "[a nil]") + Op(2, "ok", "read", "[a 0]") +
                            Op(3, "invoke", "read", "[b nil]") + Op(3, "ok", "read", "[b 0]");
  EXPECT_EQ(Knossos(keyed, 0), LinVerdict::kLinearizable);
  EXPECT_EQ(Knossos(keyed), LinVerdict::kNotLinearizable);
}

}  // namespace
}  // namespace leasesim::checker
