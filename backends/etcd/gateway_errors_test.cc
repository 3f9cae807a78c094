// Gateway errors are classified by gRPC code alone: recorded etcd bodies,
// the same bodies reworded, and the whole code table.
#include "backends/etcd/gateway_errors.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace leasesim::etcd {
namespace {

using Json = nlohmann::json;

struct Row {
  std::string what;
  long http_status = 0;
  std::string body;
  Verdict verdict = Verdict::kUnknown;
};

std::vector<Row> RecordedRows() {
  std::ifstream in(std::string(LEASESIM_ETCD_TESTDATA) + "/gateway_errors.json");
  std::stringstream text;
  text << in.rdbuf();
  const Json json = Json::parse(text.str());
  std::vector<Row> rows;
  for (const Json& row : json) {
    const std::string verdict = row.at("verdict").get<std::string>();
    EXPECT_TRUE(verdict == "not_applied" || verdict == "unknown") << verdict;
    rows.push_back(Row{row.at("what").get<std::string>(), row.at("http_status").get<long>(),
                       row.at("body").get<std::string>(),
                       verdict == "not_applied" ? Verdict::kNotApplied : Verdict::kUnknown});
  }
  return rows;
}

TEST(GatewayErrors, RecordedBodiesClassifyAsEtcdMeansThem) {
  const std::vector<Row> rows = RecordedRows();
  ASSERT_GE(rows.size(), 20u);
  for (const Row& row : rows) {
    EXPECT_EQ(ClassifyHttpError(row.http_status, row.body), row.verdict) << row.what;
    EXPECT_EQ(Classify(Transport::kAnswered, row.http_status, row.body), row.verdict) << row.what;
  }
}

TEST(GatewayErrors, NewWordingOfTheSameCodeChangesNothing) {
  // A later etcd may phrase any message differently (or translate it): the
  // verdict must follow from the code alone, in both directions.
  for (const Row& row : RecordedRows()) {
    Json body = Json::parse(row.body, nullptr, false);
    if (!body.is_object()) continue;
    for (const char* wording : {"", "etcdserver: no leader", "etcdserver: request timed out",
                                "etwas ist schiefgegangen"}) {
      body["error"] = wording;
      body["message"] = wording;
      EXPECT_EQ(ClassifyHttpError(row.http_status, body.dump()), row.verdict) << row.what << " as " << wording;
    }
  }
}

TEST(GatewayErrors, EveryCodeHasAVerdictAndUnlistedCodesMayHaveApplied) {
  const std::pair<GrpcCode, Verdict> table[] = {
      {GrpcCode::kCancelled, Verdict::kUnknown},          {GrpcCode::kUnknown, Verdict::kUnknown},
      {GrpcCode::kInvalidArgument, Verdict::kNotApplied}, {GrpcCode::kDeadlineExceeded, Verdict::kUnknown},
      {GrpcCode::kNotFound, Verdict::kNotApplied},        {GrpcCode::kAlreadyExists, Verdict::kNotApplied},
      {GrpcCode::kPermissionDenied, Verdict::kNotApplied}, {GrpcCode::kResourceExhausted, Verdict::kNotApplied},
      {GrpcCode::kFailedPrecondition, Verdict::kNotApplied}, {GrpcCode::kAborted, Verdict::kUnknown},
      {GrpcCode::kOutOfRange, Verdict::kNotApplied},      {GrpcCode::kUnimplemented, Verdict::kNotApplied},
      {GrpcCode::kInternal, Verdict::kUnknown},           {GrpcCode::kUnavailable, Verdict::kUnknown},
      {GrpcCode::kDataLoss, Verdict::kUnknown},           {GrpcCode::kUnauthenticated, Verdict::kNotApplied},
  };
  for (const auto& [code, verdict] : table) {
    EXPECT_EQ(VerdictForCode(static_cast<int>(code)), verdict) << GrpcCodeName(static_cast<int>(code));
  }
  EXPECT_EQ(VerdictForCode(17), Verdict::kUnknown);
  EXPECT_EQ(VerdictForCode(-1), Verdict::kUnknown);
  EXPECT_EQ(GrpcCodeName(14), "Unavailable");
  EXPECT_EQ(GrpcCodeName(99), "code 99");
  // A code wins over the HTTP status: a 400 carrying Unavailable may have applied.
  EXPECT_EQ(ClassifyHttpError(400, R"({"code":14,"message":"x"})"), Verdict::kUnknown);
  EXPECT_EQ(ClassifyHttpError(503, R"({"code":7})"), Verdict::kNotApplied);
  // A code that is not a number is no code.
  EXPECT_EQ(ClassifyHttpError(503, R"({"code":"3","message":"x"})"), Verdict::kUnknown);
}

TEST(GatewayErrors, ParsesCodeAndMessageForErrorTexts) {
  const GatewayError error = ParseGatewayError(R"({"error":"etcdserver: permission denied","code":7})");
  EXPECT_EQ(error.code, 7);
  EXPECT_EQ(error.message, "etcdserver: permission denied");
  EXPECT_EQ(ParseGatewayError("Not Found\n").code, -1);
  EXPECT_EQ(ParseGatewayError("Not Found\n").message, "Not Found\n");
}

TEST(GatewayErrors, TransportFailuresMapToUnavailableOrUnknown) {
  EXPECT_EQ(Classify(Transport::kRefused, 0, ""), Verdict::kNotApplied);
  EXPECT_EQ(Classify(Transport::kTimedOut, 0, ""), Verdict::kUnknown);
  EXPECT_EQ(Classify(Transport::kBroken, 0, ""), Verdict::kUnknown);
  EXPECT_EQ(Classify(Transport::kAnswered, 200, "{}"), Verdict::kResult);
  EXPECT_EQ(StoreStatusFor(Verdict::kNotApplied), core::StoreStatus::kUnavailable);
  EXPECT_EQ(StoreStatusFor(Verdict::kUnknown), core::StoreStatus::kTimeout);
  EXPECT_EQ(LedgerStatusFor(Verdict::kNotApplied), core::LedgerStatus::kUnavailable);
  EXPECT_EQ(LedgerStatusFor(Verdict::kUnknown), core::LedgerStatus::kTimeout);
}

}  // namespace
}  // namespace leasesim::etcd
