#include "backends/etcd/etcd_ledger.h"

#include "backends/etcd/etcd_access.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>

#include "base/units.h"

namespace leasesim::etcd {
namespace {

using Json = nlohmann::json;

std::string FenceKey(const EtcdLedgerOptions& o) { return o.prefix + "fence"; }
std::string KeysPrefix(const EtcdLedgerOptions& o) { return o.prefix + "keys/"; }
std::string WindowsPrefix(const EtcdLedgerOptions& o) { return o.prefix + "windows/"; }
std::string BatchesPrefix(const EtcdLedgerOptions& o) { return o.prefix + "batches/"; }

// The fence value from a range of the fence key; nullopt when absent or bad.
std::optional<std::int64_t> FenceOf(const std::vector<KeyValue>& kvs) {
  if (kvs.empty()) return std::nullopt;
  return ParsePadded(kvs.front().value);
}

// The window of the last key of a windows/ prefix range; -1 when none.
std::int64_t LastWindowOf(const EtcdLedgerOptions& o, const std::vector<KeyValue>& kvs) {
  if (kvs.empty()) return -1;
  const std::string prefix = WindowsPrefix(o);
  const std::string& key = kvs.front().key;
  if (key.compare(0, prefix.size(), prefix) != 0) return -1;
  return ParsePadded(std::string_view(key).substr(prefix.size())).value_or(-1);
}

Compare FenceAtMost(const EtcdLedgerOptions& o, std::int64_t token) {
  // fence <= token  <=>  fence < token + 1 (byte-wise on padded decimals).
  return Compare{.target = Compare::Target::kValue,
                 .result = Compare::Result::kLess,
                 .key = FenceKey(o),
                 .value = Padded(token + 1)};
}

}  // namespace

EtcdLedgerClient::EtcdLedgerClient(EtcdHttp& http, EtcdLedgerOptions options)
    : http_(http), options_(std::move(options)) {}

HttpResult EtcdLedgerClient::Post(const std::string& path, const std::string& body, core::Nanos timeout) {
  HttpResult http = http_.Post(path, body, timeout);
  // A missing permission is a misconfiguration the operator must hear of.
  if (http.cause == FailureCause::kPermissionDenied) {
    http_.ReportError(DescribeFailure(http_, http, "use", "the ledger prefix \"" + options_.prefix + "\""));
  }
  return http;
}

std::string EtcdLedgerClient::NextWriteId() {
  return options_.writer + "/" + std::to_string(next_write_.fetch_add(1));
}

std::string CommitBody(const EtcdLedgerOptions& o, const core::SettlementBatch& batch,
                       const std::string& write_id) {
  std::vector<Compare> compares;
  if (o.check_fence) compares.push_back(FenceAtMost(o, batch.token));
  const bool keyed = !batch.idempotency_key.empty();
  const std::string key_key = KeysPrefix(o) + batch.idempotency_key;
  if (o.check_idempotency && keyed) {
    compares.push_back(Compare{.target = Compare::Target::kCreate, .key = key_key, .number = 0});
  }
  Json items = Json::array();
  for (const core::SettlementItem& item : batch.items) items.push_back({item.window, item.index, item.amount});
  Json batch_json = {{"write_id", write_id},     {"token", batch.token}, {"window", batch.window},
                     {"key", batch.idempotency_key}, {"items", items}};
  Json window_json = {{"write_id", write_id}, {"token", batch.token}};
  Json key_json = {{"write_id", write_id}, {"token", batch.token}, {"window", batch.window}};
  std::vector<Op> success;
  success.push_back(Op{.kind = Op::Kind::kPut, .key = BatchesPrefix(o) + write_id, .value = batch_json.dump()});
  success.push_back(Op{.kind = Op::Kind::kPut, .key = WindowsPrefix(o) + Padded(batch.window),
                       .value = window_json.dump()});
  if (keyed) success.push_back(Op{.kind = Op::Kind::kPut, .key = key_key, .value = key_json.dump()});
  // The fence only ever rises, even when the bug variant skips the check.
  success.push_back(Op{.kind = Op::Kind::kTxn,
                       .compares = {FenceAtMost(o, batch.token)},
                       .success = {Op{.kind = Op::Kind::kPut, .key = FenceKey(o), .value = Padded(batch.token)}}});
  success.push_back(Op{.kind = Op::Kind::kRange, .key = FenceKey(o)});
  success.push_back(Op{.kind = Op::Kind::kPrefixLast, .key = WindowsPrefix(o)});
  std::vector<Op> failure;
  failure.push_back(Op{.kind = Op::Kind::kRange, .key = FenceKey(o)});
  failure.push_back(Op{.kind = Op::Kind::kRange, .key = keyed ? key_key : FenceKey(o)});
  failure.push_back(Op{.kind = Op::Kind::kPrefixLast, .key = WindowsPrefix(o)});
  return TxnBody(compares, success, failure);
}

core::LedgerResult InterpretCommit(const HttpResult& http, const EtcdLedgerOptions& o,
                                   const core::SettlementBatch& batch, bool* fence_missing) {
  if (fence_missing != nullptr) *fence_missing = false;
  core::LedgerResult result;
  if (http.verdict != Verdict::kResult) {
    result.status = LedgerStatusFor(http.verdict);
    return result;
  }
  std::optional<Response> response = ParseResponse(http.body, /*is_txn=*/true);
  if (!response || response->ranges.size() < 3) {
    result.status = core::LedgerStatus::kTimeout;  // ran, but what it did is unreadable
    return result;
  }
  const auto& ranges = response->ranges;
  const std::vector<KeyValue>& fence_kvs = ranges[ranges.size() - (response->succeeded ? 2 : 3)];
  const std::optional<std::int64_t> fence = FenceOf(fence_kvs);
  result.last_window = LastWindowOf(o, ranges.back());
  result.highest_token = fence.value_or(0);
  if (response->succeeded) {
    result.status = core::LedgerStatus::kApplied;
    result.highest_token = std::max(result.highest_token, batch.token);
    return result;
  }
  if (o.check_fence && !fence) {
    if (fence_missing != nullptr) *fence_missing = true;
    result.status = core::LedgerStatus::kUnavailable;  // nothing applied; initialise and retry
    return result;
  }
  if (o.check_fence && *fence > batch.token) {
    result.status = core::LedgerStatus::kRejectedStale;
    return result;
  }
  if (!ranges[1].empty() && !batch.idempotency_key.empty()) {
    result.status = core::LedgerStatus::kDuplicate;
    return result;
  }
  // The compare failed yet neither reason holds: it changed meanwhile?
  // Impossible within one txn; report "unavailable" (nothing applied).
  result.status = core::LedgerStatus::kUnavailable;
  return result;
}

bool EtcdLedgerClient::EnsureFence(core::Nanos timeout) {
  if (fence_ready_.load()) return true;
  const std::string key = FenceKey(options_);
  const std::string body =
      TxnBody({Compare{.target = Compare::Target::kCreate, .key = key, .number = 0}},
              {Op{.kind = Op::Kind::kPut, .key = key, .value = Padded(0)}}, {});
  const HttpResult http = Post("/v3/kv/txn", body, timeout);
  if (http.verdict != Verdict::kResult) return false;
  fence_ready_.store(true);
  return true;
}

core::LedgerResult EtcdLedgerClient::Commit(const core::SettlementBatch& batch, core::Nanos timeout) {
  return CommitWithId(batch, NextWriteId(), timeout);
}

core::LedgerResult EtcdLedgerClient::CommitWithId(const core::SettlementBatch& batch,
                                                  const std::string& write_id, core::Nanos timeout) {
  const std::string body = CommitBody(options_, batch, write_id);
  // Create the fence once per client (it must exist for the nested txn to
  // raise it, even when the bug variant does not compare it). A failure here
  // is retried below only if the commit finds the fence missing.
  // determinism-ok: live mode — the call's own deadline.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout);
  auto remaining = [&] {
    return std::max<core::Nanos>(
        base::kNanosPerMilli, std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - std::chrono::steady_clock::now())
                       .count());
  };
  if (!fence_ready_.load()) (void)EnsureFence(timeout);
  bool fence_missing = false;
  core::LedgerResult result =
      InterpretCommit(Post("/v3/kv/txn", body, remaining()), options_, batch, &fence_missing);
  if (fence_missing) {
    // A fresh ledger: create the fence (token 0) and try once more. The
    // first attempt applied nothing, so the retry cannot double-apply.
    fence_ready_.store(false);
    if (!EnsureFence(remaining())) return core::LedgerResult{core::LedgerStatus::kUnavailable};
    result = InterpretCommit(Post("/v3/kv/txn", body, remaining()), options_, batch, nullptr);
  }
  return result;
}

core::LedgerResult EtcdLedgerClient::LastAppliedWindow(core::Nanos timeout) {
  const std::string body = TxnBody({}, {Op{.kind = Op::Kind::kRange, .key = FenceKey(options_)},
                                        Op{.kind = Op::Kind::kPrefixLast, .key = WindowsPrefix(options_)}},
                                   {});
  const HttpResult http = Post("/v3/kv/txn", body, timeout);
  core::LedgerResult result;
  if (http.verdict != Verdict::kResult) {
    result.status = LedgerStatusFor(http.verdict);
    return result;
  }
  std::optional<Response> response = ParseResponse(http.body, /*is_txn=*/true);
  if (!response || response->ranges.size() != 2) {
    result.status = core::LedgerStatus::kUnavailable;
    return result;
  }
  result.status = core::LedgerStatus::kApplied;
  result.highest_token = FenceOf(response->ranges[0]).value_or(0);
  result.last_window = LastWindowOf(options_, response->ranges[1]);
  return result;
}

bool EtcdLedgerClient::ListApplied(core::Nanos timeout, std::vector<AppliedBatch>& out) {
  const HttpResult http = Post("/v3/kv/range", PrefixRangeBody(BatchesPrefix(options_)), timeout);
  if (http.verdict != Verdict::kResult) return false;
  std::optional<Response> response = ParseResponse(http.body, /*is_txn=*/false);
  if (!response || response->ranges.empty()) return false;
  out.clear();
  for (const KeyValue& kv : response->ranges.front()) {
    Json json = Json::parse(kv.value, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) return false;
    AppliedBatch batch;
    batch.write_id = json.value("write_id", std::string());
    batch.idempotency_key = json.value("key", std::string());
    batch.token = json.value("token", std::int64_t{0});
    batch.window = json.value("window", std::int64_t{0});
    auto items = json.find("items");
    batch.items = items != json.end() && items->is_array() ? static_cast<std::int64_t>(items->size()) : 0;
    const std::size_t slash = batch.write_id.rfind('/');
    batch.holder = slash == std::string::npos ? batch.write_id : batch.write_id.substr(0, slash);
    batch.revision = kv.mod_revision;
    out.push_back(std::move(batch));
  }
  std::sort(out.begin(), out.end(),
            [](const AppliedBatch& a, const AppliedBatch& b) { return a.revision < b.revision; });
  return true;
}

}  // namespace leasesim::etcd
