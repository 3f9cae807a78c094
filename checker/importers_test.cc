// The Jepsen importers and the history reader on good and corrupt input:
// errors name the line (and field) and never crash.

#include <gtest/gtest.h>

#include <string>

#include "checker/edn.h"
#include "checker/edn_import.h"
#include "checker/history_io.h"
#include "checker/jepsen_log_import.h"

namespace leasesim::checker {
namespace {

constexpr const char* kLog =
    "INFO  jepsen.util - 4\t:invoke\t:read\tnil\n"
    "INFO  jepsen.util - 4\t:ok\t:read\tnil\n"
    "INFO  jepsen.core - Worker 1 starting\n"
    "INFO  jepsen.util - 1\t:invoke\t:write\t1\n"
    "INFO  jepsen.util - 2\t:invoke\t:cas\t[2 4]\n"
    "INFO  jepsen.util - 1\t:ok\t:write\t1\n"
    "INFO  jepsen.util - 2\t:fail\t:cas\t[2 4]\n"
    "INFO  jepsen.util - 3\t:invoke\t:read\tnil\n"
    "INFO  jepsen.util - 3\t:fail\t:read\t:timed-out\n"
    "INFO  jepsen.util - 0\t:invoke\t:write\t3\n"
    "INFO  jepsen.util - 0\t:info\t:write\t:timed-out\n"
    "INFO  jepsen.util - 5\t:invoke\t:cas\t[1 2]\n";

TEST(JepsenLog, ParsesOperationsOutcomesAndPendingOnes) {
  ReadResult<CasRegisterOp> read = ImportJepsenLog(kLog);
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  ASSERT_EQ(read.records.size(), 6u);
  EXPECT_EQ(read.records[0].outcome, Outcome::kOk);
  EXPECT_FALSE(read.records[0].read_found);
  EXPECT_EQ(read.records[2].outcome, Outcome::kFail);  // cas [2 4]
  EXPECT_EQ(read.records[2].expected, 2);
  EXPECT_EQ(read.records[2].value, 4);
  EXPECT_EQ(read.records[3].outcome, Outcome::kFail);  // timed-out read: dropped by the checker
  EXPECT_EQ(read.records[4].outcome, Outcome::kUnknown);
  EXPECT_EQ(read.records[4].return_ns, kNeverNs);
  EXPECT_EQ(read.records[5].outcome, Outcome::kUnknown);  // never completed
  EXPECT_EQ(read.records[5].invoke_line, 12);
  EXPECT_EQ(CheckCasRegister(read.records).verdict, LinVerdict::kLinearizable);
}

TEST(JepsenLog, FieldsAlignedWithSpacesReadLikeTabs) {
  // Some Jepsen versions align the columns with spaces; the value may hold
  // spaces itself ("[2 4]"), so only the leading fields are split.
  std::string spaced;
  for (char c : std::string(kLog)) spaced += c == '\t' ? std::string("    ") : std::string(1, c);
  ReadResult<CasRegisterOp> tabs = ImportJepsenLog(kLog);
  ReadResult<CasRegisterOp> spaces = ImportJepsenLog(spaced);
  ASSERT_TRUE(spaces.ok()) << spaces.error->ToString();
  ASSERT_EQ(spaces.records.size(), tabs.records.size());
  for (std::size_t i = 0; i < tabs.records.size(); ++i) {
    EXPECT_EQ(spaces.records[i].kind, tabs.records[i].kind);
    EXPECT_EQ(spaces.records[i].outcome, tabs.records[i].outcome);
    EXPECT_EQ(spaces.records[i].expected, tabs.records[i].expected);
    EXPECT_EQ(spaces.records[i].value, tabs.records[i].value);
    EXPECT_EQ(spaces.records[i].return_ns, tabs.records[i].return_ns);
  }
  // Mixed separators, runs of both, and a value with inner spacing.
  ReadResult<CasRegisterOp> mixed = ImportJepsenLog(
      "INFO  jepsen.util - 12 \t :invoke  \t:cas   [3   7]\n"
      "INFO  jepsen.util - 12\t:ok :cas [3 7]  \n");
  ASSERT_TRUE(mixed.ok()) << mixed.error->ToString();
  ASSERT_EQ(mixed.records.size(), 1u);
  EXPECT_EQ(mixed.records[0].process, 12);
  EXPECT_EQ(mixed.records[0].expected, 3);
  EXPECT_EQ(mixed.records[0].value, 7);
  EXPECT_EQ(mixed.records[0].outcome, Outcome::kOk);
  // Too few fields, however separated, is still an error naming the line.
  ReadResult<CasRegisterOp> short_line = ImportJepsenLog("INFO  jepsen.util - 4   :invoke   :read\n");
  ASSERT_FALSE(short_line.ok());
  EXPECT_EQ(short_line.error->line, 1);
  EXPECT_NE(short_line.error->rule.find("expected 4 fields"), std::string::npos) << short_line.error->rule;
}

struct CorruptCase {
  std::string text;
  std::int64_t line;
  std::string field;
};

TEST(JepsenLog, CorruptLinesAreNamed) {
  const std::string good = "INFO  jepsen.util - 4\t:invoke\t:read\tnil\n";
  const CorruptCase cases[] = {
      {good + "garbage\n", 2, ""},
      {good + "INFO  jepsen.util - x\t:ok\t:read\tnil\n", 2, "process"},
      {good + "INFO  jepsen.util - 4\t:okay\t:read\tnil\n", 2, "type"},
      {good + "INFO  jepsen.util - 4\t:ok\t:frob\tnil\n", 2, "f"},
      {good + "INFO  jepsen.util - 4\t:ok\t:read\tseven\n", 2, "value"},
      {good + "INFO  jepsen.util - 4\t:ok\t:write\t1\n", 2, "f"},
      {good + "INFO  jepsen.util - 9\t:ok\t:read\t1\n", 2, "process"},
      {good + good, 2, "process"},
      {"INFO  jepsen.util - 1\t:invoke\t:cas\t[1]\n", 1, "value"},
      {"INFO  jepsen.util - 1\t:invoke\t:write\t1\nINFO  jepsen.util - 1\t:ok\t:write\t2\n", 2, "value"},
      {good + "INFO  jepsen.util - 4\t:ok\n", 2, ""},
  };
  for (const CorruptCase& c : cases) {
    SCOPED_TRACE(c.text);
    ReadResult<CasRegisterOp> read = ImportJepsenLog(c.text);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error->line, c.line) << read.error->ToString();
    EXPECT_EQ(read.error->path, c.field) << read.error->ToString();
  }
}

TEST(Edn, ReadsJepsenMaps) {
  EdnValue value;
  InputError error;
  ASSERT_TRUE(ParseEdn("{:process 3, :type :ok, :f :cas, :value [1 -2], :key \"a\\\"b\", :x nil}", value, error))
      << error.ToString();
  EXPECT_EQ(value.Get("process")->integer, 3);
  EXPECT_EQ(value.Get("value")->items[1].integer, -2);
  EXPECT_EQ(value.Get("key")->text, "a\"b");
  EXPECT_EQ(value.Get("x")->type, EdnValue::Type::kNil);
  for (const char* bad : {"{:a 1", "{:a}", "[1 2", "\"open", "{:a 1} x", "}", "#{1", "#?(:clj 1)", ":"}) {
    EXPECT_FALSE(ParseEdn(bad, value, error)) << bad;
    EXPECT_EQ(error.line, 1) << bad;
    EXPECT_GE(error.column, 1) << bad;
  }
  std::string deep(200, '[');
  EXPECT_FALSE(ParseEdn(deep, value, error));
}

TEST(Edn, AnErrorNamesTheLineAndColumnWhereReadingFailed) {
  EdnValue value;
  InputError error;
  ASSERT_FALSE(ParseEdn("{:a 1\n :b [2 3}", value, error));
  EXPECT_EQ(error.line, 2);
  EXPECT_EQ(error.column, 9);  // the brace that closes no vector
  EXPECT_EQ(error.path, "");
  EXPECT_EQ(error.ToString(), "2:9: " + error.rule);
  ASSERT_FALSE(ParseEdn("{:a 1}\n\n  x", value, error));
  EXPECT_EQ(error.ToString(), "3:3: unexpected text after the value");
}

TEST(EdnImport, KvHistoryAndCorruptLines) {
  const std::string good =
      "{:process 0, :type :invoke, :f :append, :key \"1\", :value \"x 0 0 y\"}\n"
      "{:process :nemesis, :type :info, :f :start, :value nil}\n"
      "{:process 0, :type :ok, :f :append, :key \"1\", :value \"x 0 0 y\"}\n"
      "{:process 1, :type :invoke, :f :get, :key \"1\", :value nil}\n"
      "{:process 1, :type :ok, :f :get, :key \"1\", :value \"x 0 0 y\"}\n";
  ReadResult<KvOp> read = ImportEdnKv(good);
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  ASSERT_EQ(read.records.size(), 2u);
  EXPECT_EQ(read.records[1].value, "x 0 0 y");
  EXPECT_EQ(SniffEdnModel(good), "kv");
  EXPECT_EQ(CheckKv(read.records).verdict, LinVerdict::kLinearizable);

  const CorruptCase cases[] = {
      {good + "{:process 2, :type :invoke, :f :get, :key \"1\" :value nil\n", 6, ""},
      {good + "{:process 2, :type :invoke, :f :frob, :key \"1\"}\n", 6, "f"},
      {good + "{:process 2, :type :invoke, :key \"1\"}\n", 6, "f"},
      {good + "{:process 2, :type :begin, :f :get, :key \"1\"}\n", 6, "type"},
      {good + "{:process 2, :type :ok, :f :get, :key \"1\", :value \"\"}\n", 6, "process"},
      {good + "{:process \"two\", :type :invoke, :f :get, :key \"1\"}\n", 6, "process"},
      {good + "{:process 2, :type :invoke, :f :get}\n", 6, "key"},
      {good + "[1 2]\n", 6, ""},
  };
  for (const CorruptCase& c : cases) {
    SCOPED_TRACE(c.text);
    ReadResult<KvOp> bad = ImportEdnKv(c.text);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error->line, c.line) << bad.error->ToString();
    EXPECT_EQ(bad.error->path, c.field) << bad.error->ToString();
  }
}

TEST(EdnImport, RegisterHistory) {
  const std::string text =
      "{:process 0, :type :invoke, :f :write, :value 3}\n"
      "{:process 0, :type :ok, :f :write, :value 3}\n"
      "{:process 1, :type :invoke, :f :cas, :value [3 4]}\n"
      "{:process 1, :type :info, :f :cas, :value [3 4]}\n"
      "{:process 2, :type :invoke, :f :read, :value nil}\n"
      "{:process 2, :type :ok, :f :read, :value 3}\n";
  EXPECT_EQ(SniffEdnModel(text), "cas-register");
  ReadResult<CasRegisterOp> read = ImportEdnRegister(text);
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  ASSERT_EQ(read.records.size(), 3u);
  EXPECT_EQ(read.records[1].outcome, Outcome::kUnknown);
  EXPECT_EQ(CheckCasRegister(read.records).verdict, LinVerdict::kLinearizable);
}

History SampleHistory() {
  History h;
  h.node_count = 3;
  h.end_ns = 60'000'000'000;
  h.assumptions.drift_bound_ppm = 1000;
  h.assumptions.lease_duration_ns = 10'000'000'000;
  h.assumptions.recovery_bound_ns = 25'000'000'000;
  h.assumptions.last_point_before_write = "after_lease_check";
  h.due_windows = {0, 1, 2};
  StoreOp op;
  op.id = 1;
  op.node = 2;
  op.process = "n2.1";
  op.key = "lease/settle";
  op.kind = StoreOpKind::kCas;
  op.expected_version = 3;
  op.value = {"n2.1", 4, 10'000'000'000};
  op.outcome = Outcome::kFail;
  op.found = true;
  op.version = 5;
  op.read_value = {"n3.1", 5, 10'000'000'000};
  op.invoke_ns = 1'000;
  op.complete_ns = 2'000;
  op.applied_seq = 7;
  h.store_ops.push_back(op);
  op.outcome = Outcome::kUnknown;
  op.found = false;
  op.complete_ns = kNeverNs;
  h.store_ops.push_back(op);
  h.beliefs.push_back({1, "n1.1", 1, 5, 9'000, "deadline"});
  LedgerWrite write;
  write.id = 3;
  write.node = 1;
  write.holder = "n1.1";
  write.token = 1;
  write.idempotency_key = "w-0";
  write.window = 0;
  write.sent_ns = 6;
  write.arrived_ns = kNeverNs;
  write.result = LedgerResult::kLost;
  write.lease_valid_at_send = false;
  h.ledger_writes.push_back(write);
  h.faults.push_back({"partition", {1, 3}, 100, 200, false, "cut node 1"});
  return h;
}

TEST(HistoryIo, RoundTrips) {
  const History h = SampleHistory();
  const std::string text = HistoryToJsonLines(h);
  EXPECT_TRUE(LooksLikeLeasesimHistory(text));
  HistoryReadResult read = ReadHistory(text);
  ASSERT_TRUE(read.ok()) << read.error->ToString();
  EXPECT_EQ(HistoryToJsonLines(read.history), text);
  const History& r = read.history;
  EXPECT_EQ(r.store_ops[0].read_value, h.store_ops[0].read_value);
  EXPECT_EQ(r.store_ops[1].complete_ns, kNeverNs);
  EXPECT_EQ(r.ledger_writes[0].arrived_ns, kNeverNs);
  EXPECT_FALSE(r.ledger_writes[0].lease_valid_at_send);
  EXPECT_EQ(r.faults[0].nodes, (std::vector<int>{1, 3}));
  EXPECT_EQ(r.assumptions.recovery_bound_ns, h.assumptions.recovery_bound_ns);
  EXPECT_EQ(r.assumptions.last_point_before_write, "after_lease_check");
}

TEST(HistoryIo, TheLastPointBeforeAWriteIsAnAssumptionOfTheHistory) {
  // Histories written before the assumptions named it keep their meaning.
  const std::string old_header =
      R"({"format":"leasesim-history","version":1,"node_count":1,"end_ns":9,"assumptions":{"pause_budget_ns":5}})";
  HistoryReadResult old = ReadHistory(old_header + "\n");
  ASSERT_TRUE(old.ok()) << old.error->ToString();
  EXPECT_EQ(old.history.assumptions.last_point_before_write, "before_ledger_write");
  EXPECT_EQ(ReadHistory(R"({"format":"leasesim-history","version":1,"node_count":1,"end_ns":9})" "\n")
                .history.assumptions.last_point_before_write,
            "before_ledger_write");
  // One that says none is known stays so.
  History none;
  ASSERT_TRUE(none.assumptions.last_point_before_write.empty());
  EXPECT_EQ(ReadHistory(HistoryToJsonLines(none)).history.assumptions.last_point_before_write, "");
  HistoryReadResult bad = ReadHistory(
      R"({"format":"leasesim-history","version":1,"node_count":1,"end_ns":9,"assumptions":{"last_point_before_write":3}})" "\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error->path, "assumptions.last_point_before_write");
}

TEST(HistoryIo, CorruptLinesAreNamedByNumberAndField) {
  const std::string header = HistoryToJsonLines(History{});
  const std::string op =
      R"({"type":"store_op","node":1,"key":"k","kind":"read","outcome":"ok","invoke_ns":1,"complete_ns":2})";
  ASSERT_TRUE(ReadHistory(header + op + "\n").ok());
  const CorruptCase cases[] = {
      {header + op + "\n{\"type\":\"store_op\",\n", 3, ""},
      {header + op + "\n[1,2]\n", 3, ""},
      {header + R"({"type":"vote"})" + "\n", 2, "type"},
      {header + R"({"type":"store_op","node":1,"kind":"read","outcome":"ok","invoke_ns":1,"complete_ns":2})" + "\n", 2, "key"},
      {header + R"({"type":"store_op","node":"one","key":"k","kind":"read","outcome":"ok","invoke_ns":1,"complete_ns":2})" + "\n", 2, "node"},
      {header + R"({"type":"store_op","node":1,"key":"k","kind":"read","outcome":"maybe","invoke_ns":1,"complete_ns":2})" + "\n", 2, "outcome"},
      {header + R"({"type":"store_op","node":1,"key":"k","kind":"cas","outcome":"ok","invoke_ns":1,"complete_ns":2,"expected_version":1,"value":{"term":1}})" + "\n", 2, "value.holder"},
      {header + R"({"type":"belief","node":1,"holder":"a","term":1,"from_ns":5,"until_ns":4})" + "\n", 2, "until_ns"},
      {header + R"({"type":"ledger_write","node":1,"holder":"a","token":18446744073709551615,"window":1,"sent_ns":1,"result":"applied"})" + "\n", 2, "token"},
      {header + R"({"type":"fault","kind":"pause","nodes":[1.5],"start_ns":1,"end_ns":2})" + "\n", 2, "nodes[0]"},
      {header + R"({"type":"belief","node":1,"holder":"a","term":1,"term":2,"from_ns":1,"until_ns":4})" + "\n", 2, ""},
      {header + R"({"type":"store_op","node":1,"key":"k","kind":"cas","outcome":"ok","invoke_ns":1,"complete_ns":2,"expected_version":1,"value":{"holder":"a","term":1,"term":1}})" + "\n", 2, "value"},
      {R"({"format":"leasesim-history","version":2,"node_count":1,"end_ns":1})" + std::string("\n"), 1, "version"},
      {R"({"format":"other","version":1})" + std::string("\n"), 1, "format"},
      {op + "\n", 1, "format"},
      {"", 0, ""},
  };
  for (const CorruptCase& c : cases) {
    SCOPED_TRACE(c.text);
    HistoryReadResult read = ReadHistory(c.text);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error->line, c.line) << read.error->ToString();
    EXPECT_EQ(read.error->path, c.field) << read.error->ToString();
  }
}

}  // namespace
}  // namespace leasesim::checker
