#include "backends/etcd/etcd_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/etcd/etcd_ledger.h"
#include "backends/etcd/etcd_test_values.h"
#include "backends/etcd/etcd_store.h"

namespace leasesim::etcd {
namespace {

using test_values::Batch;
using Json = nlohmann::json;

core::LeaseRecord Record(std::string holder, std::int64_t term) {
  return core::LeaseRecord{.holder = std::move(holder),
                           .term = term,
                           .duration_ns = 3'000'000'000,
                           .acquired_wall_ns = 1'767'225'600'000'000'000,
                           .renewed_wall_ns = 1'767'225'601'000'000'000,
                           .preferred_successor = ""};
}

HttpResult Answer(std::string body) { return HttpResult{.verdict = Verdict::kResult, .body = std::move(body)}; }

// A kv as the gateway writes it.
Json Kv(const std::string& key, const std::string& value, std::int64_t version, std::int64_t mod = 7) {
  return Json{{"key", Base64Encode(key)},
              {"create_revision", "2"},
              {"mod_revision", std::to_string(mod)},
              {"version", std::to_string(version)},
              {"value", Base64Encode(value)}};
}

TEST(EtcdJson, Base64MatchesRfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(Base64Encode(plain), encoded);
    EXPECT_EQ(Base64Decode(encoded), std::optional<std::string>(plain));
  }
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
  EXPECT_EQ(Base64Decode(Base64Encode(binary)), binary);
  EXPECT_EQ(Base64Decode("Zm9v!"), std::nullopt);
  EXPECT_EQ(Base64Decode("Z"), std::nullopt);
}

TEST(EtcdJson, RecordRoundTripsAndIsStrict) {
  const core::LeaseRecord record = Record("n1#2", 7);
  EXPECT_EQ(DecodeRecord(EncodeRecord(record)), record);
  EXPECT_EQ(EncodeRecord(record).substr(0, 27), R"({"holder":"n1#2","term":7,")");
  // Only the informational fields may be missing.
  EXPECT_TRUE(DecodeRecord(R"({"holder":"","term":3,"duration_ns":5})").has_value());
  EXPECT_FALSE(DecodeRecord(R"({"term":3,"duration_ns":5})").has_value());
  EXPECT_FALSE(DecodeRecord(R"({"holder":"a","term":"3","duration_ns":5})").has_value());
  EXPECT_FALSE(DecodeRecord(R"({"holder":"a","term":3})").has_value());
  EXPECT_FALSE(DecodeRecord("not json").has_value());
  EXPECT_FALSE(DecodeRecord("[1]").has_value());
}

TEST(EtcdJson, ParsesARealRangeResponse) {
  // As etcd 3.4.23's gateway answered (key "lease/x", value {"a":1}).
  const std::string body =
      R"({"header":{"cluster_id":"4517789691306810614","member_id":"2489693901910197374","revision":"3","raft_term":"2"},)"
      R"("kvs":[{"key":"bGVhc2UveA==","create_revision":"2","mod_revision":"3","version":"2","value":"eyJhIjoxfQ=="}],"count":"1"})";
  std::optional<Response> response = ParseResponse(body, false);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->revision, 3);
  ASSERT_EQ(response->ranges.size(), 1u);
  ASSERT_EQ(response->ranges[0].size(), 1u);
  const KeyValue& kv = response->ranges[0][0];
  EXPECT_EQ(kv.key, "lease/x");
  EXPECT_EQ(kv.value, R"({"a":1})");
  EXPECT_EQ(kv.create_revision, 2);
  EXPECT_EQ(kv.mod_revision, 3);
  EXPECT_EQ(kv.version, 2);
  // An absent key: no kvs at all (proto3 omits empty fields).
  response = ParseResponse(R"({"header":{"revision":"1"}})", false);
  ASSERT_TRUE(response);
  EXPECT_TRUE(response->ranges.at(0).empty());
  EXPECT_FALSE(ParseResponse("{}", false));
  EXPECT_FALSE(ParseResponse(R"({"header":{"revision":"x"}})", false));
}

TEST(EtcdJson, ParsesARealTxnResponseInBothBranches) {
  const std::string succeeded =
      R"({"header":{"revision":"2"},"succeeded":true,"responses":[{"response_put":{"header":{"revision":"2"}}},)"
      R"({"response_range":{"header":{"revision":"2"},"kvs":[{"key":"bGVhc2UveA==","create_revision":"2","mod_revision":"2","version":"1","value":"eyJhIjoxfQ=="}],"count":"1"}}]})";
  std::optional<Response> response = ParseResponse(succeeded, true);
  ASSERT_TRUE(response);
  EXPECT_TRUE(response->succeeded);
  ASSERT_EQ(response->ranges.size(), 2u);
  EXPECT_TRUE(response->ranges[0].empty());
  EXPECT_EQ(response->ranges[1].at(0).version, 1);
  // A failed compare: "succeeded" is omitted (false is proto3's default).
  const std::string failed =
      R"({"header":{"revision":"2"},"responses":[{"response_range":{"header":{"revision":"2"},"kvs":[]}}]})";
  response = ParseResponse(failed, true);
  ASSERT_TRUE(response);
  EXPECT_FALSE(response->succeeded);
}

TEST(EtcdJson, RequestBodiesCompareWhatTheProtocolNeeds) {
  Json create = Json::parse(CreateBody("lease/job", Record("n1#1", 1)));
  EXPECT_EQ(create["compare"][0]["target"], "CREATE");
  EXPECT_EQ(create["compare"][0]["create_revision"], "0");
  EXPECT_EQ(create["compare"][0]["result"], "EQUAL");
  EXPECT_EQ(create["compare"][0]["key"], Base64Encode("lease/job"));
  EXPECT_EQ(Base64Decode(create["success"][0]["request_put"]["value"].get<std::string>()),
            EncodeRecord(Record("n1#1", 1)));
  EXPECT_TRUE(create["success"][1].contains("request_range"));
  EXPECT_TRUE(create["failure"][0].contains("request_range"));

  Json cas = Json::parse(CasBody("lease/job", 41, Record("n2#1", 5)));
  EXPECT_EQ(cas["compare"][0]["target"], "VERSION");
  EXPECT_EQ(cas["compare"][0]["version"], "41");
  EXPECT_EQ(cas["compare"][1]["target"], "CREATE");
  EXPECT_EQ(cas["compare"][1]["result"], "GREATER");

  Json read = Json::parse(RangeBody("lease/job"));
  EXPECT_EQ(read["serializable"], false);
  Json prefix = Json::parse(PrefixRangeBody("a/b/"));
  EXPECT_EQ(Base64Decode(prefix["range_end"].get<std::string>()), "a/b0");
}

TEST(EtcdJson, PaddedNumbersOrderBytewise) {
  EXPECT_EQ(Padded(7), "00000000000000000007");
  EXPECT_LT(Padded(9), Padded(10));
  EXPECT_LT(Padded(99), Padded(100));
  EXPECT_EQ(ParsePadded(Padded(123456789)), 123456789);
  EXPECT_EQ(ParsePadded("12x"), std::nullopt);
}

TEST(EtcdStore, InterpretsTxnAnswers) {
  const core::LeaseRecord record = Record("n1#1", 3);
  Json ok = {{"header", {{"revision", "9"}}},
             {"succeeded", true},
             {"responses", Json::array({Json{{"response_put", Json::object()}},
                                        Json{{"response_range", {{"kvs", Json::array({Kv("k", EncodeRecord(record), 4)})}}}}})}};
  core::StoreResult result = InterpretWriteTxn(Answer(ok.dump()));
  EXPECT_EQ(result.status, core::StoreStatus::kOk);
  EXPECT_TRUE(result.current.found);
  EXPECT_EQ(result.current.version, 4);
  EXPECT_EQ(result.current.record, record);

  Json conflict = {{"header", {{"revision", "9"}}},
                   {"responses", Json::array({Json{{"response_range", {{"kvs", Json::array({Kv("k", EncodeRecord(Record("n2#1", 4)), 6)})}}}}})}};
  result = InterpretWriteTxn(Answer(conflict.dump()));
  EXPECT_EQ(result.status, core::StoreStatus::kConflict);
  EXPECT_EQ(result.current.version, 6);
  EXPECT_EQ(result.current.record.holder, "n2#1");

  Json absent = {{"header", {{"revision", "9"}}},
                 {"responses", Json::array({Json{{"response_range", Json::object()}}})}};
  result = InterpretWriteTxn(Answer(absent.dump()));
  EXPECT_EQ(result.status, core::StoreStatus::kConflict);
  EXPECT_FALSE(result.current.found);

  EXPECT_EQ(InterpretWriteTxn(HttpResult{.verdict = Verdict::kUnknown}).status, core::StoreStatus::kTimeout);
  EXPECT_EQ(InterpretWriteTxn(HttpResult{.verdict = Verdict::kNotApplied}).status, core::StoreStatus::kUnavailable);
  // A 200 whose body cannot be read: it ran, what it did is unknown.
  EXPECT_EQ(InterpretWriteTxn(Answer("{")).status, core::StoreStatus::kTimeout);
}

TEST(EtcdStore, InterpretsReads) {
  Json found = {{"header", {{"revision", "5"}}}, {"kvs", Json::array({Kv("k", EncodeRecord(Record("", 2)), 3)})}};
  core::StoreResult result = InterpretRead(Answer(found.dump()));
  EXPECT_EQ(result.status, core::StoreStatus::kOk);
  EXPECT_TRUE(result.current.found);
  EXPECT_EQ(result.current.record.holder, "");
  EXPECT_EQ(result.current.version, 3);
  result = InterpretRead(Answer(R"({"header":{"revision":"5"}})"));
  EXPECT_EQ(result.status, core::StoreStatus::kOk);
  EXPECT_FALSE(result.current.found);
  // A value that is not a lease record is not silently taken for absent.
  Json garbage = {{"header", {{"revision", "5"}}}, {"kvs", Json::array({Kv("k", "xyz", 1)})}};
  EXPECT_EQ(InterpretRead(Answer(garbage.dump())).status, core::StoreStatus::kUnavailable);
}

TEST(EtcdLedger, CommitTxnComparesFenceThenKeyAndKeepsTheFenceRising) {
  EtcdLedgerOptions options;
  options.prefix = "L/";
  Json body = Json::parse(CommitBody(options, Batch(5, 3), "n1#1/7"));
  ASSERT_EQ(body["compare"].size(), 2u);
  EXPECT_EQ(body["compare"][0]["target"], "VALUE");
  EXPECT_EQ(body["compare"][0]["result"], "LESS");
  EXPECT_EQ(Base64Decode(body["compare"][0]["key"].get<std::string>()), "L/fence");
  EXPECT_EQ(Base64Decode(body["compare"][0]["value"].get<std::string>()), Padded(6));
  EXPECT_EQ(body["compare"][1]["target"], "CREATE");
  EXPECT_EQ(Base64Decode(body["compare"][1]["key"].get<std::string>()), "L/keys/settlement/window-3");
  EXPECT_EQ(Base64Decode(body["success"][0]["request_put"]["key"].get<std::string>()), "L/batches/n1#1/7");
  EXPECT_EQ(Base64Decode(body["success"][1]["request_put"]["key"].get<std::string>()), "L/windows/" + Padded(3));
  // The fence is raised by a nested txn, so it never goes down.
  EXPECT_TRUE(body["success"][3].contains("request_txn"));

  options.check_fence = false;
  body = Json::parse(CommitBody(options, Batch(5, 3), "w"));
  ASSERT_EQ(body["compare"].size(), 1u);
  EXPECT_EQ(body["compare"][0]["target"], "CREATE");
  EXPECT_TRUE(body["success"][3].contains("request_txn"));
  options.check_idempotency = false;
  body = Json::parse(CommitBody(options, Batch(5, 3), "w"));
  EXPECT_TRUE(body["compare"].empty());
}

Json LedgerAnswer(bool succeeded, std::int64_t fence, bool key_exists, std::int64_t last_window) {
  auto range = [](Json kvs) { return Json{{"response_range", {{"kvs", std::move(kvs)}}}}; };
  Json fence_kvs = fence < 0 ? Json::array() : Json::array({Kv("L/fence", Padded(fence), 1)});
  Json windows = last_window < 0 ? Json::array() : Json::array({Kv("L/windows/" + Padded(last_window), "{}", 1)});
  Json responses = Json::array();
  if (succeeded) {
    for (int i = 0; i < 4; ++i) responses.push_back(Json{{"response_put", Json::object()}});
    responses.push_back(range(fence_kvs));
    responses.push_back(range(windows));
  } else {
    responses.push_back(range(fence_kvs));
    responses.push_back(range(key_exists ? Json::array({Kv("L/keys/k", "{}", 1)}) : Json::array()));
    responses.push_back(range(windows));
  }
  Json out = {{"header", {{"revision", "20"}}}, {"responses", responses}};
  if (succeeded) out["succeeded"] = true;
  return out;
}

TEST(EtcdLedger, InterpretsCommitOutcomes) {
  EtcdLedgerOptions options;
  options.prefix = "L/";
  bool missing = true;
  core::LedgerResult result = InterpretCommit(Answer(LedgerAnswer(true, 5, false, 3).dump()), options, Batch(5, 3), &missing);
  EXPECT_EQ(result.status, core::LedgerStatus::kApplied);
  EXPECT_EQ(result.highest_token, 5);
  EXPECT_EQ(result.last_window, 3);
  EXPECT_FALSE(missing);
  // The fence is checked first: stale even when the window is settled.
  result = InterpretCommit(Answer(LedgerAnswer(false, 6, true, 3).dump()), options, Batch(5, 3), nullptr);
  EXPECT_EQ(result.status, core::LedgerStatus::kRejectedStale);
  EXPECT_EQ(result.highest_token, 6);
  result = InterpretCommit(Answer(LedgerAnswer(false, 5, true, 3).dump()), options, Batch(5, 3), nullptr);
  EXPECT_EQ(result.status, core::LedgerStatus::kDuplicate);
  EXPECT_EQ(result.last_window, 3);
  result = InterpretCommit(Answer(LedgerAnswer(false, -1, false, -1).dump()), options, Batch(5, 0), &missing);
  EXPECT_EQ(result.status, core::LedgerStatus::kUnavailable);
  EXPECT_TRUE(missing);
  EXPECT_EQ(InterpretCommit(HttpResult{.verdict = Verdict::kUnknown}, options, Batch(1, 0), nullptr).status,
            core::LedgerStatus::kTimeout);
  // No fencing: a lower token is not reported stale (the bug variant).
  options.check_fence = false;
  result = InterpretCommit(Answer(LedgerAnswer(false, 6, true, 3).dump()), options, Batch(5, 3), nullptr);
  EXPECT_EQ(result.status, core::LedgerStatus::kDuplicate);
}

}  // namespace
}  // namespace leasesim::etcd
