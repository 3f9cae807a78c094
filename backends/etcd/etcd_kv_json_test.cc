// The KV seam's gateway encoding, on bodies recorded from etcd 3.4.23 (the
// answers below are etcd's, cluster and member ids shortened).

#include "backends/etcd/etcd_kv_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backends/etcd/etcd_json.h"
#include "backends/etcd/etcd_kv.h"
#include "base/units.h"

namespace leasesim::etcd {
namespace {

using core::KvRequestOp;
using core::KvStatus;
using Json = nlohmann::json;

using base::Seconds;

TEST(EtcdKvJson, TxnBodyCarriesEveryCompareAndRequestKind) {
  core::KvTxn txn;
  txn.compares = {{.key = "e/a", .target = core::KvCompareTarget::kCreateRevision, .number = 0},
                  {.key = "e/a", .target = core::KvCompareTarget::kValue, .result = core::KvCompareResult::kNotEqual,
                   .value = "x"},
                  {.key = "e/a", .target = core::KvCompareTarget::kModRevision, .result = core::KvCompareResult::kLess,
                   .number = 9},
                  {.key = "e/a", .target = core::KvCompareTarget::kVersion, .result = core::KvCompareResult::kGreater,
                   .number = 2}};
  KvRequestOp put = KvRequestOp::Put("e/a", "v", 77);
  put.prev_kv = true;
  KvRequestOp del = KvRequestOp::Delete(core::KvKeys{"e/", std::string(1, '\0')});
  del.prev_kv = true;
  txn.success = {put, KvRequestOp::Range(core::KvKeys::Prefix("e/"), core::KvSortBy::kCreateRevision, 1)};
  txn.failure = {del, KvRequestOp::Range(core::KvKeys::Single("e/a"))};
  const Json body = Json::parse(KvTxnBody(txn));
  EXPECT_EQ(body["compare"][0], (Json{{"target", "CREATE"}, {"result", "EQUAL"}, {"key", Base64Encode("e/a")},
                                      {"create_revision", "0"}}));
  EXPECT_EQ(body["compare"][1]["target"], "VALUE");
  EXPECT_EQ(body["compare"][1]["result"], "NOT_EQUAL");
  EXPECT_EQ(body["compare"][1]["value"], Base64Encode("x"));
  EXPECT_EQ(body["compare"][2]["mod_revision"], "9");
  EXPECT_EQ(body["compare"][2]["result"], "LESS");
  EXPECT_EQ(body["compare"][3]["version"], "2");
  EXPECT_EQ(body["success"][0]["request_put"],
            (Json{{"key", Base64Encode("e/a")}, {"value", Base64Encode("v")}, {"lease", "77"}, {"prev_kv", true}}));
  EXPECT_EQ(body["success"][1]["request_range"],
            (Json{{"key", Base64Encode("e/")}, {"range_end", Base64Encode("e0")}, {"limit", "1"},
                  {"sort_order", "ASCEND"}, {"sort_target", "CREATE"}}));
  EXPECT_EQ(body["failure"][0]["request_delete_range"],
            (Json{{"key", Base64Encode("e/")}, {"range_end", "AA=="}, {"prev_kv", true}}));
  EXPECT_EQ(body["failure"][1]["request_range"], (Json{{"key", Base64Encode("e/a")}}));
}

TEST(EtcdKvJson, TxnAnswerOfPutRangeAndDeleteParses) {
  core::KvTxn txn;
  KvRequestOp put = KvRequestOp::Put("a", "2");
  put.prev_kv = true;
  txn.success = {put, KvRequestOp::Range(core::KvKeys{"a", "b"}, core::KvSortBy::kCreateRevision, 1)};
  const char* answer =
      R"({"header":{"cluster_id":"1","member_id":"2","revision":"3","raft_term":"2"},"succeeded":true,)"
      R"("responses":[{"response_put":{"header":{"revision":"3"},"prev_kv":{"key":"YQ==","create_revision":"2",)"
      R"("mod_revision":"2","version":"1","value":"MQ=="}}},{"response_range":{"header":{"revision":"3"},)"
      R"("kvs":[{"key":"YQ==","create_revision":"2","mod_revision":"3","version":"2","value":"Mg==","lease":"7"}],)"
      R"("more":true,"count":"2"}}]})";
  const std::optional<core::KvTxnResult> result = ParseKvTxn(answer, txn);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->status, KvStatus::kOk);
  EXPECT_TRUE(result->succeeded);
  EXPECT_EQ(result->revision, 3);
  ASSERT_EQ(result->responses.size(), 2u);
  EXPECT_EQ(result->responses[0].kvs,
            (std::vector<core::KvEntry>{
                {.key = "a", .value = "1", .create_revision = 2, .mod_revision = 2, .version = 1}}));
  EXPECT_EQ(result->responses[1].kvs, (std::vector<core::KvEntry>{{.key = "a", .value = "2", .create_revision = 2,
                                                                    .mod_revision = 3, .version = 2, .lease = 7}}));
  EXPECT_EQ(result->responses[1].count, 2);
  EXPECT_TRUE(result->responses[1].more);

  core::KvTxn del;
  KvRequestOp d = KvRequestOp::Delete(core::KvKeys::Single("a"));
  d.prev_kv = true;
  del.success = {d};
  const char* deleted =
      R"({"header":{"revision":"4"},"succeeded":true,"responses":[{"response_delete_range":{"header":)"
      R"({"revision":"4"},"deleted":"1","prev_kvs":[{"key":"YQ==","create_revision":"2","mod_revision":"3",)"
      R"("version":"2","value":"Mg=="}]}}]})";
  const std::optional<core::KvTxnResult> gone = ParseKvTxn(deleted, del);
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(gone->responses[0].count, 1);
  ASSERT_EQ(gone->responses[0].kvs.size(), 1u);
  EXPECT_EQ(gone->responses[0].kvs[0].value, "2");
}

TEST(EtcdKvJson, ATxnAnswerThatDoesNotMatchItsBranchIsRejected) {
  core::KvTxn txn;
  txn.success = {KvRequestOp::Put("a", "1")};
  txn.failure = {KvRequestOp::Range(core::KvKeys::Single("a"))};
  // The failure branch ran: its one range, which etcd omits when empty.
  const std::optional<core::KvTxnResult> failed =
      ParseKvTxn(R"({"header":{"revision":"5"},"responses":[{"response_range":{"header":{"revision":"5"}}}]})", txn);
  ASSERT_TRUE(failed.has_value());
  EXPECT_FALSE(failed->succeeded);
  EXPECT_TRUE(failed->responses[0].kvs.empty());
  // A response of the wrong kind, a missing response, a bad header.
  EXPECT_FALSE(ParseKvTxn(R"({"header":{"revision":"5"},"succeeded":true,"responses":[{"response_range":{}}]})", txn));
  EXPECT_FALSE(ParseKvTxn(R"({"header":{"revision":"5"},"succeeded":true})", txn));
  EXPECT_FALSE(ParseKvTxn(R"({"header":{"revision":"x"},"succeeded":true,"responses":[{"response_put":{}}]})", txn));
  EXPECT_FALSE(ParseKvTxn("not json", txn));
}

TEST(EtcdKvJson, WatchStreamMessagesParse) {
  EXPECT_EQ(Json::parse(WatchCreateBody(core::KvKeys::Single("a"), 2)),
            (Json{{"create_request", {{"key", "YQ=="}, {"start_revision", "2"}}}}));
  EXPECT_FALSE(Json::parse(WatchCreateBody(core::KvKeys::Prefix("a"), 0))["create_request"].contains("start_revision"));
  const std::optional<WatchMessage> created =
      ParseWatchMessage(R"({"result":{"header":{"revision":"4","raft_term":"2"},"created":true}})");
  ASSERT_TRUE(created.has_value());
  EXPECT_TRUE(created->created);
  EXPECT_EQ(created->revision, 4);
  const std::optional<WatchMessage> events = ParseWatchMessage(
      R"({"result":{"header":{"revision":"4"},"events":[{"kv":{"key":"YQ==","create_revision":"2",)"
      R"("mod_revision":"2","version":"1","value":"MQ=="}},)"
      R"({"type":"DELETE","kv":{"key":"YQ==","mod_revision":"4"}}]}})");
  ASSERT_TRUE(events.has_value());
  ASSERT_EQ(events->events.size(), 2u);
  EXPECT_EQ(events->events[0].type, core::KvWatchEvent::Type::kPut);
  EXPECT_EQ(events->events[0].kv.value, "1");
  EXPECT_EQ(events->events[1].type, core::KvWatchEvent::Type::kDelete);
  EXPECT_EQ(events->events[1].kv, (core::KvEntry{.key = "a", .mod_revision = 4}));
  const std::optional<WatchMessage> compacted =
      ParseWatchMessage(R"({"result":{"header":{"raft_term":"2"},"canceled":true,"compact_revision":"3"}})");
  ASSERT_TRUE(compacted.has_value());
  EXPECT_TRUE(compacted->canceled);
  EXPECT_EQ(compacted->compact_revision, 3);
  const std::optional<WatchMessage> error =
      ParseWatchMessage(R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader"}})");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->error_code, 14);
  EXPECT_FALSE(ParseWatchMessage(R"({"result":{"events":[{"type":"EXPLODE","kv":{}}]}})"));
  EXPECT_FALSE(ParseWatchMessage("{"));
}

TEST(EtcdKvJson, LeaseMessagesParseAndTtlsRoundUpToSeconds) {
  EXPECT_EQ(TtlSeconds(1), 1);
  EXPECT_EQ(TtlSeconds(Seconds(1)), 1);
  EXPECT_EQ(TtlSeconds(Seconds(1) + 1), 2);
  EXPECT_EQ(TtlSeconds(0), 1);
  EXPECT_EQ(Json::parse(LeaseGrantBody(2'500 * base::kNanosPerMilli)), (Json{{"TTL", "3"}}));
  EXPECT_EQ(Json::parse(LeaseIdBody(41)), (Json{{"ID", "41"}}));
  // etcd raised a TTL of 1 s to its minimum, 2 s.
  const std::optional<core::KvLeaseResult> grant =
      ParseLeaseGrant(R"({"header":{"revision":"1"},"ID":"4111120421458806277","TTL":"2"})");
  ASSERT_TRUE(grant.has_value());
  EXPECT_EQ(grant->id, 4111120421458806277);
  EXPECT_EQ(grant->ttl, Seconds(2));
  EXPECT_FALSE(ParseLeaseGrant(R"({"header":{"revision":"1"},"ID":"5","TTL":"2","error":"lease exists"})"));
  EXPECT_FALSE(ParseLeaseGrant(R"({"header":{"revision":"1"},"TTL":"2"})"));
  const std::optional<KeepAliveAnswer> alive =
      ParseLeaseKeepAlive(R"({"result":{"header":{"revision":"4"},"ID":"9","TTL":"5"}})" "\n", 9);
  ASSERT_TRUE(alive && alive->result);
  EXPECT_EQ(alive->result->status, KvStatus::kOk);
  EXPECT_EQ(alive->result->ttl, Seconds(5));
  // etcd answers a keep-alive of a lease it does not have with TTL 0 (omitted).
  const std::optional<KeepAliveAnswer> gone =
      ParseLeaseKeepAlive(R"({"result":{"header":{"revision":"4"},"ID":"1"}})", 1);
  ASSERT_TRUE(gone && gone->result);
  EXPECT_EQ(gone->result->status, KvStatus::kLeaseNotFound);
  const std::optional<KeepAliveAnswer> failed = ParseLeaseKeepAlive(R"({"error":{"grpc_code":14,"message":"x"}})", 1);
  ASSERT_TRUE(failed.has_value());
  EXPECT_FALSE(failed->result.has_value());
  EXPECT_EQ(failed->error_code, 14);
  EXPECT_EQ(ParseLeaseRevoke(R"({"header":{"revision":"6"}})", 3)->revision, 6);
}

HttpResult EtcdAnswered(int code) {
  return HttpResult{.verdict = VerdictForCode(code), .http_status = 400, .grpc_code = code,
                    .cause = FailureCause::kEtcdError};
}

TEST(EtcdKvJson, FailuresMapToTheSeamsStatuses) {
  // Recorded: a put on a lease etcd does not have, and a key put twice.
  EXPECT_EQ(KvStatusForFailure(EtcdAnswered(5)), KvStatus::kLeaseNotFound);
  EXPECT_EQ(KvStatusForFailure(EtcdAnswered(3)), KvStatus::kInvalid);
  EXPECT_EQ(KvStatusForFailure(EtcdAnswered(14)), KvStatus::kTimeout);  // Unavailable: may have applied
  EXPECT_EQ(KvStatusForFailure(EtcdAnswered(9)), KvStatus::kUnavailable);
  EXPECT_EQ(KvStatusForFailure(HttpResult{.verdict = Verdict::kNotApplied, .cause = FailureCause::kUnreachable}),
            KvStatus::kUnavailable);
  EXPECT_EQ(KvStatusForFailure(HttpResult{.verdict = Verdict::kUnknown, .cause = FailureCause::kTimedOut}),
            KvStatus::kTimeout);
  // authenticate's InvalidArgument (wrong password) is not the request's.
  EXPECT_EQ(KvStatusForFailure(HttpResult{.verdict = Verdict::kNotApplied, .grpc_code = 3,
                                          .cause = FailureCause::kWrongCredentials}),
            KvStatus::kUnavailable);
  core::KvTxn txn;
  txn.success = {KvRequestOp::Put("a", "1")};
  EXPECT_EQ(InterpretKvTxn(HttpResult{.verdict = Verdict::kResult, .body = "{}"}, txn).status, KvStatus::kTimeout);
}

}  // namespace
}  // namespace leasesim::etcd
