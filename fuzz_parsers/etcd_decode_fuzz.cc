// libFuzzer target: the etcd gateway JSON decoding (backends/etcd/etcd_json.h):
// responses of range and txn calls, the lease record in a value, base64, the
// padded numbers and the classification of error bodies. The first byte
// picks the HTTP status and whether the body answers a txn.

#include <optional>
#include <string>

#include "backends/etcd/etcd_json.h"
#include "fuzz_parsers/fuzz_input.h"

using leasesim::fuzz_parsers::AsText;
using leasesim::fuzz_parsers::Require;
namespace etcd = leasesim::etcd;

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
  static constexpr long kStatuses[] = {200, 400, 404, 408, 429, 500, 503, 504};
  const long status = kStatuses[(selector >> 1) % 8];
  etcd::ClassifyHttpError(status, body);
  etcd::Classify(static_cast<etcd::Transport>((selector >> 4) % 4), status, body);
  return 0;
}
