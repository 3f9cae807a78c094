// The importers on files shaped as Jepsen writes them (tests/histories/):
// every log line shape and EDN form reads to the same operations and the
// same verdict, a changed read is caught in each, and corrupt lines of the
// new shapes are named by line and field.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/check_command.h"
#include "checker/edn.h"
#include "checker/edn_import.h"
#include "checker/jepsen_log_import.h"

namespace leasesim::checker {
namespace {

std::filesystem::path HistoryFile(const std::string& name) {
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  return std::filesystem::path(root ? root : ".") / "tests" / "histories" / name;
}

std::string Slurp(const std::string& name) {
  std::ifstream in(HistoryFile(name), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Replaces the last occurrence of `from` (which must occur).
std::string ReplaceLast(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.rfind(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

int CheckExit(const std::string& name) {
  std::ostringstream out, err;
  return RunCheck(CheckRequest{.file = HistoryFile(name).string()}, out, err);
}

// The register run every log shape and EDN form holds: 10 client operations
// (a crashed write of unknown outcome, a failed cas and a failed read among
// them) around a partition, linearizable.
void ExpectTheRegisterRun(const ReadResult<CasRegisterOp>& read) {
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  ASSERT_EQ(read.records.size(), 10u);
  using Kind = CasRegisterOp::Kind;
  const std::vector<Kind> kinds = {Kind::kRead, Kind::kWrite, Kind::kCas,  Kind::kWrite, Kind::kRead,
                                   Kind::kRead, Kind::kCas,   Kind::kRead, Kind::kWrite, Kind::kRead};
  const std::vector<Outcome> outcomes = {Outcome::kOk, Outcome::kOk,   Outcome::kOk,   Outcome::kUnknown,
                                         Outcome::kOk, Outcome::kOk,   Outcome::kFail, Outcome::kFail,
                                         Outcome::kOk, Outcome::kOk};
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(read.records[i].kind, kinds[i]) << i;
    EXPECT_EQ(read.records[i].outcome, outcomes[i]) << i;
    EXPECT_TRUE(read.records[i].key.empty()) << i;
  }
  EXPECT_EQ(read.records[3].process, 3);   // crashed: its successor is process 8
  EXPECT_EQ(read.records[5].process, 8);
  EXPECT_EQ(read.records[5].read_value, 4);
  EXPECT_EQ(read.records[6].expected, 1);
  EXPECT_EQ(read.records[6].value, 2);
  EXPECT_EQ(CheckCasRegister(read.records).verdict, LinVerdict::kLinearizable);
}

TEST(JepsenLogShapes, EveryShapeReadsTheSameRun) {
  for (const char* name : {"jepsen-log4j-tabs.log", "jepsen-log4j-spaces.log", "jepsen-console.log",
                           "jepsen-logback.log", "history.txt"}) {
    SCOPED_TRACE(name);
    const std::string text = Slurp(name);
    ASSERT_FALSE(text.empty()) << HistoryFile(name);
    EXPECT_TRUE(LooksLikeJepsenLog(text));
    ExpectTheRegisterRun(ImportJepsenLog(text));
    EXPECT_EQ(CheckExit(name), kCheckExitOk);
  }
}

TEST(JepsenLogShapes, AChangedReadIsCaughtInEveryShape) {
  // The last read saw 0, written just before; 9 was never written.
  const std::pair<const char*, const char*> cases[] = {
      {"jepsen-log4j-tabs.log", ":ok\t:read\t0"},  {"jepsen-log4j-spaces.log", ":ok     :read  0"},
      {"jepsen-console.log", ":ok\t:read\t0"},     {"jepsen-logback.log", ":ok\t:read\t0"},
      {"history.txt", ":ok\t:read\t0"}};
  for (const auto& [name, last_read] : cases) {
    SCOPED_TRACE(name);
    std::string changed = ReplaceLast(Slurp(name), last_read, std::string(last_read, std::strlen(last_read) - 1) + "9");
    const ReadResult<CasRegisterOp> read = ImportJepsenLog(changed);
    ASSERT_TRUE(read.ok()) << read.error->ToString();
    EXPECT_EQ(CheckCasRegister(read.records).verdict, LinVerdict::kNotLinearizable);
  }
}

TEST(JepsenLogShapes, IndependentKeysAreRegistersOfTheirOwn) {
  const ReadResult<CasRegisterOp> read = ImportJepsenLog(Slurp("jepsen-independent.log"));
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  ASSERT_EQ(read.records.size(), 7u);
  EXPECT_EQ(read.records[0].key, "0");
  EXPECT_EQ(read.records[1].key, "1");
  EXPECT_EQ(read.records[2].expected, 3);  // [0 [3 5]]
  EXPECT_EQ(read.records[2].value, 5);
  EXPECT_EQ(read.records[4].read_value, 5);
  const LinResult apart = CheckCasRegister(read.records);
  EXPECT_EQ(apart.verdict, LinVerdict::kLinearizable) << apart.explanation;
  EXPECT_EQ(apart.partitions, 2u);
  // As one register the same operations are not linearizable (key 1 reads
  // nil after key 0 held 3): the keys must be kept apart.
  std::vector<CasRegisterOp> merged = read.records;
  for (CasRegisterOp& op : merged) op.key.clear();
  EXPECT_EQ(CheckCasRegister(merged).verdict, LinVerdict::kNotLinearizable);
  EXPECT_EQ(CheckExit("jepsen-independent.log"), kCheckExitOk);
}

TEST(JepsenLogShapes, CorruptLinesOfTheNewShapesAreNamed) {
  const std::string logback = Slurp("jepsen-logback.log");
  struct Case {
    std::string text;
    std::string field;
  };
  const Case cases[] = {
      {ReplaceLast(logback, ":ok\t:read\t0", ":okay\t:read\t0"), "type"},
      {ReplaceLast(logback, "jepsen.util: 4\t:ok", "jepsen.util: four\t:ok"), "process"},
      {ReplaceLast(logback, ":ok\t:read\t0", ":ok\t:read\t[0"), "value"},
      {ReplaceLast(logback, ":ok\t:read\t0", ":ok\t:read"), ""},
      {ReplaceLast(logback, "jepsen.util: 4\t:ok\t:read\t0", "jepsen.util: 4\t:ok\t:read\t0\ngarbage"), ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(c.text.size() > 400 ? c.text.size() - 400 : 0));
    const ReadResult<CasRegisterOp> read = ImportJepsenLog(c.text);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error->path, c.field) << read.error->ToString();
    EXPECT_GT(read.error->line, 30) << read.error->ToString();  // the last operation lines
  }
  // A file that is no log at all is rejected at its first line.
  const ReadResult<CasRegisterOp> prose = ImportJepsenLog("Dear reader,\nthis is no log.\n");
  ASSERT_FALSE(prose.ok());
  EXPECT_EQ(prose.error->line, 1);
}

TEST(EdnHistoryForms, LinesRecordsAndOneVectorReadTheSameRun) {
  for (const char* name : {"history-0.2.edn", "history-0.3-records.edn", "history-vector.edn"}) {
    SCOPED_TRACE(name);
    const std::string text = Slurp(name);
    ASSERT_FALSE(text.empty()) << HistoryFile(name);
    EXPECT_TRUE(LooksLikeEdnHistory(text));
    EXPECT_EQ(SniffEdnModel(text), "cas-register");
    ExpectTheRegisterRun(ImportEdnRegister(text));
    EXPECT_EQ(CheckExit(name), kCheckExitOk);
    const ReadResult<CasRegisterOp> changed = ImportEdnRegister(ReplaceLast(text, ":value 0", ":value 9"));
    ASSERT_TRUE(changed.ok()) << changed.error->ToString();
    EXPECT_EQ(CheckCasRegister(changed.records).verdict, LinVerdict::kNotLinearizable);
  }
  // Explanations name the line an operation starts on, also when printed
  // over several lines.
  const ReadResult<CasRegisterOp> vector = ImportEdnRegister(Slurp("history-vector.edn"));
  ASSERT_TRUE(vector.ok());
  EXPECT_EQ(vector.records[0].invoke_line, 2);
  EXPECT_EQ(vector.records[0].return_line, 14);
}

TEST(EdnHistoryForms, KvValuesOfEveryForm) {
  const std::string text = Slurp("kv-values.edn");
  EXPECT_EQ(SniffEdnModel(text), "kv");
  const ReadResult<KvOp> read = ImportEdnKv(text);
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  ASSERT_EQ(read.records.size(), 7u);
  EXPECT_EQ(read.records[0].key, "x");
  EXPECT_EQ(read.records[1].value, "1");
  EXPECT_EQ(read.records[2].key, "7");
  EXPECT_EQ(read.records[2].value, "[1 2 {:a \"b\"}]");
  EXPECT_EQ(read.records[4].value, "c");
  EXPECT_EQ(CheckKv(read.records).verdict, LinVerdict::kLinearizable);
  EXPECT_EQ(CheckExit("kv-values.edn"), kCheckExitOk);
  const ReadResult<KvOp> changed = ImportEdnKv(ReplaceLast(text, "\"cab\"", "\"acb\""));
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(CheckKv(changed.records).verdict, LinVerdict::kNotLinearizable);
}

TEST(EdnHistoryForms, CorruptFieldsAreNamed) {
  const std::string text = Slurp("history-0.2.edn");
  struct Case {
    std::string text;
    std::int64_t line;
    std::string field;
  };
  const Case cases[] = {
      {ReplaceLast(text, ":index 23", ":index 22"), 24, "index"},
      {ReplaceLast(text, ":index 23", ":index \"23\""), 24, "index"},
      {ReplaceLast(text, ":time 5025300000", ":time -1"), 24, "time"},
      {ReplaceLast(text, ":process 4, :time 5025300000", ":process \"4\", :time 5025300000"), 24, "process"},
      {ReplaceLast(text, ":value 0, :process 4", ":value [0], :process 4"), 24, "value"},
      {ReplaceLast(text, ":value 0, :process 4", ":value #{0, :process 4"), 24, ""},
      {ReplaceLast(text, ":type :ok, :f :read, :value 0", ":type :ok, :f :write, :value 0"), 24, "f"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(c.text.size() - 200));
    const ReadResult<CasRegisterOp> read = ImportEdnRegister(c.text);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error->line, c.line) << read.error->ToString();
    EXPECT_EQ(read.error->path, c.field) << read.error->ToString();
  }
  // A history printed over several lines whose vector is never closed: the
  // error names the line it opens on.
  const std::string vector = Slurp("history-vector.edn");
  const ReadResult<CasRegisterOp> open = ImportEdnRegister(ReplaceLast(vector, "}]", "}"));
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.error->line, 1) << open.error->ToString();
}

TEST(Edn, ReadsTheFormsJepsenPrints) {
  EdnValue value;
  InputError error;
  ASSERT_TRUE(ParseEdn("#jepsen.history.Op{:index 3, :value #{\"n1\" \"n2\"}, :at #inst \"2021-06-14T18:43:22Z\", "
                       ":e #object[java.lang.Exception 0x1f \"boom\"], :old #<Exception x>, #_ :gone :c \\a, "
                       ":u \"\\u00e9\\n\", :r 1/3, :big 123456789012345678901234N, :f 1.5e-3, :inf ##Inf}",
                       value, error))
      << error.ToString();
  EXPECT_EQ(value.type, EdnValue::Type::kMap);
  EXPECT_EQ(value.tag, "jepsen.history.Op");
  EXPECT_EQ(value.Get("index")->integer, 3);
  EXPECT_EQ(value.Get("value")->type, EdnValue::Type::kSet);
  EXPECT_EQ(value.Get("value")->items.size(), 2u);
  EXPECT_EQ(value.Get("at")->tag, "inst");
  EXPECT_EQ(value.Get("e")->tag, "object");
  EXPECT_EQ(value.Get("old")->text, "#<Exception x>");
  EXPECT_EQ(value.Get("gone"), nullptr);  // #_ discarded the key, so :c is a key
  EXPECT_EQ(value.Get("c")->type, EdnValue::Type::kChar);
  EXPECT_EQ(value.Get("u")->text, "\xc3\xa9\n");
  EXPECT_EQ(value.Get("r")->type, EdnValue::Type::kFloat);
  EXPECT_EQ(value.Get("big")->type, EdnValue::Type::kFloat);  // beyond 64 bits: kept as text
  EXPECT_EQ(value.Get("inf")->text, "##Inf");
  for (const char* bad : {"#{1 2", "#_", "##Foo", "\"\\u12\"", "#<open", "1.2.x", "\\"}) {
    EXPECT_FALSE(ParseEdn(bad, value, error)) << bad;
  }
}

}  // namespace
}  // namespace leasesim::checker
