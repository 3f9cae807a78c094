#include "backends/etcd/gateway_errors.h"

#include <array>

#include <nlohmann/json.hpp>

namespace leasesim::etcd {
namespace {

using Json = nlohmann::json;

struct CodeRow {
  GrpcCode code;
  const char* name;
  // True when etcd returns the code only for a request it rejected without
  // applying anything (validation, quota, auth, compaction), whether before
  // proposing it or at apply time (a txn denied by auth at apply changes
  // nothing). Unavailable is not: etcd uses it for "request timed out" and
  // "server stopped" as well as for "no leader", and the code is all that
  // may be relied on.
  bool never_applied;
};

constexpr std::array<CodeRow, 17> kCodes{{
    {GrpcCode::kOk, "OK", false},
    {GrpcCode::kCancelled, "Canceled", false},
    {GrpcCode::kUnknown, "Unknown", false},
    {GrpcCode::kInvalidArgument, "InvalidArgument", true},
    {GrpcCode::kDeadlineExceeded, "DeadlineExceeded", false},
    {GrpcCode::kNotFound, "NotFound", true},
    {GrpcCode::kAlreadyExists, "AlreadyExists", true},
    {GrpcCode::kPermissionDenied, "PermissionDenied", true},
    {GrpcCode::kResourceExhausted, "ResourceExhausted", true},
    {GrpcCode::kFailedPrecondition, "FailedPrecondition", true},
    {GrpcCode::kAborted, "Aborted", false},
    {GrpcCode::kOutOfRange, "OutOfRange", true},
    {GrpcCode::kUnimplemented, "Unimplemented", true},
    {GrpcCode::kInternal, "Internal", false},
    {GrpcCode::kUnavailable, "Unavailable", false},
    {GrpcCode::kDataLoss, "DataLoss", false},
    {GrpcCode::kUnauthenticated, "Unauthenticated", true},
}};

const CodeRow* RowOf(int code) {
  if (code < 0 || code >= static_cast<int>(kCodes.size())) return nullptr;
  const CodeRow& row = kCodes[static_cast<std::size_t>(code)];
  return &row;
}

}  // namespace

std::string GrpcCodeName(int code) {
  const CodeRow* row = RowOf(code);
  return row != nullptr ? std::string(row->name) : "code " + std::to_string(code);
}

GatewayError ParseGatewayError(std::string_view body) {
  GatewayError error;
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) {
    error.message = std::string(body.substr(0, 200));
    return error;
  }
  for (const char* field : {"message", "error"}) {
    auto it = json.find(field);
    if (it != json.end() && it->is_string()) {
      error.message = it->get<std::string>();
      break;
    }
  }
  auto code = json.find("code");
  if (code != json.end() && code->is_number_integer()) {
    const std::int64_t value = code->get<std::int64_t>();
    if (value >= 0 && value <= 1'000) error.code = static_cast<int>(value);
  }
  return error;
}

Verdict VerdictForCode(int code) {
  const CodeRow* row = RowOf(code);
  return row != nullptr && row->never_applied ? Verdict::kNotApplied : Verdict::kUnknown;
}

Verdict ClassifyHttpError(long http_status, std::string_view body) {
  const GatewayError error = ParseGatewayError(body);
  if (error.code >= 0) return VerdictForCode(error.code);
  // No code: not etcd's answer. A 4xx of the HTTP server or a proxy in
  // front of it (404 for an unknown path) never reached etcd.
  if (http_status >= 400 && http_status < 500) return Verdict::kNotApplied;
  return Verdict::kUnknown;
}

Verdict Classify(Transport transport, long http_status, std::string_view body) {
  switch (transport) {
    case Transport::kRefused: return Verdict::kNotApplied;
    case Transport::kTimedOut:
    case Transport::kBroken: return Verdict::kUnknown;
    case Transport::kAnswered:
      if (http_status == 200) return Verdict::kResult;
      return ClassifyHttpError(http_status, body);
  }
  return Verdict::kUnknown;
}

core::StoreStatus StoreStatusFor(Verdict verdict) {
  return verdict == Verdict::kNotApplied ? core::StoreStatus::kUnavailable : core::StoreStatus::kTimeout;
}

core::LedgerStatus LedgerStatusFor(Verdict verdict) {
  return verdict == Verdict::kNotApplied ? core::LedgerStatus::kUnavailable : core::LedgerStatus::kTimeout;
}

}  // namespace leasesim::etcd
