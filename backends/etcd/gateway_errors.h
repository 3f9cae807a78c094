#pragma once
// What an exchange with etcd's JSON gateway came to, and whether the request
// may have taken effect. Gateway errors are classified by their gRPC status
// code (the body's `code` field), never by their message text: etcd's wording
// may change between versions, its codes are its API. The classification
// follows etcd's own client (clientv3 retries a mutation only when the
// transport never delivered it): a code etcd returns only for requests it
// rejected before applying anything is "not applied"; every other code —
// Unavailable above all, which etcd uses both for "no leader" and for
// "request timed out" — may have been applied. Pure functions, unit-tested
// on gateway bodies recorded from etcd 3.4.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/env.h"

namespace leasesim::etcd {

// gRPC status codes (google.golang.org/grpc/codes), as the gateway sends them.
enum class GrpcCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// "Unavailable", "PermissionDenied", ...; "code <n>" for a number outside the table.
std::string GrpcCodeName(int code);

// What one HTTP exchange with one endpoint came to, before interpretation.
enum class Transport {
  kAnswered,       // an HTTP response arrived (any status)
  kRefused,        // no connection could be made: the request was never sent
  kTimedOut,       // sent (or maybe sent) and no complete answer in time
  kBroken,         // the connection failed after the request may have been sent
};

// How to treat an exchange's result.
enum class Verdict {
  kResult,           // a well-formed answer: interpret it
  kNotApplied,       // the request certainly had no effect: another endpoint may be tried
  kUnknown,          // it may or may not have taken effect
};

// A gateway error body: {"error": ..., "code": <grpc code>, "message": ...}.
struct GatewayError {
  int code = -1;        // -1: the body carried no code (not JSON, or no `code` field)
  std::string message;  // for logs and error texts only: never interpreted
};

GatewayError ParseGatewayError(std::string_view body);

// The verdict a gRPC status code implies for a request etcd answered with it.
Verdict VerdictForCode(int code);

// Classifies a gateway answer with a non-200 status by its code. A body
// without a code is a proxy's or the HTTP server's own answer: a 4xx never
// reached etcd (not applied), anything else is unknown.
Verdict ClassifyHttpError(long http_status, std::string_view body);

// Classification of a transport outcome (with the HTTP status and body when
// answered).
Verdict Classify(Transport transport, long http_status, std::string_view body);

// The protocol status for a store call that ended with `verdict`.
// kNotApplied -> kUnavailable, kUnknown -> kTimeout.
core::StoreStatus StoreStatusFor(Verdict verdict);
core::LedgerStatus LedgerStatusFor(Verdict verdict);

}  // namespace leasesim::etcd
