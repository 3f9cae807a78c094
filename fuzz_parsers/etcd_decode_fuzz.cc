// libFuzzer target: the decoding of etcd's JSON gateway answers
// (backends/etcd): range and txn responses, the lease record in a value,
// base64, padded numbers, error bodies and their classification, and the
// store's and ledger's interpretation of an answer into a protocol result;
// the KV seam's answers (txn, watch stream lines, lease messages).
// The first byte picks the HTTP status, range or txn, and the transport.

#include <optional>
#include <string>

#include "backends/etcd/etcd_json.h"
#include "backends/etcd/etcd_kv.h"
#include "backends/etcd/etcd_kv_json.h"
#include "backends/etcd/etcd_ledger.h"
#include "backends/etcd/etcd_store.h"
#include "backends/etcd/gateway_errors.h"
#include "fuzz_parsers/fuzz_input.h"

using leasesim::fuzz_parsers::AsText;
using leasesim::fuzz_parsers::Require;
namespace etcd = leasesim::etcd;

namespace {

// The protocol's reading of a 200 answer with this body.
void Interpret(std::string_view body, std::int64_t token) {
  etcd::HttpResult http;
  http.verdict = etcd::Verdict::kResult;
  http.http_status = 200;
  http.body = std::string(body);
  etcd::InterpretRead(http);
  etcd::InterpretWriteTxn(http);
  leasesim::core::SettlementBatch batch;
  batch.token = token;
  batch.idempotency_key = "window-0";
  bool fence_missing = false;
  etcd::InterpretCommit(http, etcd::EtcdLedgerOptions{}, batch, &fence_missing);
  // The KV seam: a txn of each request kind, the watch stream's line, the
  // lease answers.
  leasesim::core::KvTxn txn;
  txn.success = {leasesim::core::KvRequestOp::Range(leasesim::core::KvKeys::Prefix("e/")),
                 leasesim::core::KvRequestOp::Put("e/1", "v"),
                 leasesim::core::KvRequestOp::Delete(leasesim::core::KvKeys::Single("e/2"))};
  txn.failure = {leasesim::core::KvRequestOp::Range(leasesim::core::KvKeys::Single("e/1"))};
  etcd::InterpretKvTxn(http, txn);
  etcd::ParseWatchMessage(body);
  etcd::ParseLeaseGrant(body);
  etcd::ParseLeaseRevoke(body, 1);
  etcd::ParseLeaseKeepAlive(body, 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t selector = data[0];
  const std::string_view body = AsText(data + 1, size - 1);
  if (const std::optional<etcd::Response> response = etcd::ParseResponse(body, (selector & 1) != 0)) {
    for (const auto& kvs : response->ranges) etcd::ToVersionedRecord(kvs);
  }
  if (const std::optional<leasesim::core::LeaseRecord> record = etcd::DecodeRecord(body)) {
    const std::optional<leasesim::core::LeaseRecord> again = etcd::DecodeRecord(etcd::EncodeRecord(*record));
    Require(again.has_value(), "an encoded record decodes");
    Require(etcd::EncodeRecord(*again) == etcd::EncodeRecord(*record), "a record survives encoding");
  }
  if (const std::optional<std::string> bytes = etcd::Base64Decode(body)) {
    Require(etcd::Base64Decode(etcd::Base64Encode(*bytes)) == bytes, "base64 round-trips");
  }
  etcd::ParsePadded(body);
  const etcd::GatewayError error = etcd::ParseGatewayError(body);
  etcd::GrpcCodeName(error.code);
  static constexpr long kStatuses[] = {200, 400, 401, 404, 408, 429, 500, 503};
  const long status = kStatuses[(selector >> 1) % 8];
  etcd::ClassifyHttpError(status, body);
  etcd::Classify(static_cast<etcd::Transport>((selector >> 4) % 4), status, body);
  Interpret(body, selector >> 6);
  return 0;
}
