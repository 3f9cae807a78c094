#include "core/kv_store.h"

#include <cassert>
#include <memory>
#include <string>
#include <vector>
#include <utility>

namespace leasesim::core {

std::string KvPrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    const auto last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

KvKeys KvKeys::Prefix(std::string_view prefix) { return KvKeys{std::string(prefix), KvPrefixEnd(prefix)}; }

bool KvKeys::Contains(std::string_view candidate) const {
  if (end.empty()) return candidate == key;
  if (candidate < std::string_view(key)) return false;
  const bool to_the_end = end.size() == 1 && end[0] == '\0';
  return to_the_end || candidate < std::string_view(end);
}

KvRequestOp KvRequestOp::Range(KvKeys keys, KvSortBy sort_by, std::int64_t limit) {
  assert(limit >= 0);
  KvRequestOp op;
  op.kind = Kind::kRange;
  op.keys = std::move(keys);
  op.sort_by = sort_by;
  op.limit = limit;
  return op;
}

KvRequestOp KvRequestOp::Put(std::string_view key, std::string value, KvLeaseId lease) {
  KvRequestOp op;
  op.kind = Kind::kPut;
  op.keys = KvKeys::Single(key);
  op.value = std::move(value);
  op.lease = lease;
  return op;
}

KvRequestOp KvRequestOp::Delete(KvKeys keys) {
  KvRequestOp op;
  op.kind = Kind::kDelete;
  op.keys = std::move(keys);
  return op;
}

KvTxn KvGuardedPutTxn(KvGuardedPut put) {
  assert(put.target != KvCompareTarget::kValue);
  KvTxn txn;
  txn.compares.push_back(KvCompare{.key = put.key, .target = put.target, .result = put.result,
                                   .number = put.number, .value = {}});
  txn.failure.push_back(KvRequestOp::Range(KvKeys::Single(put.key)));
  txn.success.push_back(KvRequestOp::Put(put.key, std::move(put.value)));
  return txn;
}

KvGuardedPutResult KvGuardedPutResultOf(const KvTxnResult& result) {
  KvGuardedPutResult guarded;
  guarded.status = result.status;
  guarded.succeeded = result.succeeded;
  guarded.revision = result.revision;
  if (result.status != KvStatus::kOk || result.succeeded) return guarded;
  assert(result.responses.size() == 1);
  const std::vector<KvEntry>& kvs = result.responses.front().kvs;
  assert(kvs.size() <= 1);  // a range of one key
  if (kvs.empty()) return guarded;
  guarded.current = kvs.front();
  return guarded;
}

KvTxnResult KvGuardedPutTxnResult(const KvGuardedPutResult& result) {
  KvTxnResult txn;
  txn.status = result.status;
  txn.succeeded = result.succeeded;
  txn.revision = result.revision;
  // etcd answers a branch only when the txn ran (nothing was applied else).
  if (result.status != KvStatus::kOk) return txn;
  KvResponseOp& response = txn.responses.emplace_back();
  response.kind = result.succeeded ? KvRequestOp::Kind::kPut : KvRequestOp::Kind::kRange;
  if (result.current) response.kvs.push_back(*result.current);
  // A range counts the keys it found; a put without prev_kv counts nothing.
  response.count = result.succeeded ? 0 : static_cast<std::int64_t>(response.kvs.size());
  return txn;
}

KvGuardedPutResult KvClient::GuardedPut(KvGuardedPut put, Nanos timeout) {
  return KvGuardedPutResultOf(TxnOwned(KvGuardedPutTxn(std::move(put)), timeout));
}

KvTxnResult KvClient::Range(const KvRequestOp& range, Nanos timeout) {
  assert(range.kind == KvRequestOp::Kind::kRange);
  KvTxn txn;
  txn.success.push_back(range);
  return TxnOwned(std::move(txn), timeout);
}

KvWatchResult KvClient::WatchWhile(const KvKeys& keys, std::int64_t start_revision,
                                   const std::function<Nanos()>& next_timeout, const std::function<bool()>& again) {
  for (;;) {
    KvWatchResult result = Watch(keys, start_revision, next_timeout());
    if (result.status != KvStatus::kTimeout || !again()) return result;
  }
}

KvWatchAnswer KvClient::WatchWhileShared(const KvKeys& keys, std::int64_t start_revision,
                                         const std::function<Nanos()>& next_timeout,
                                         const std::function<bool()>& again, Nanos& last_timeout) {
  const std::function<Nanos()> drawn = [&] { return last_timeout = next_timeout(); };
  return std::make_shared<const KvWatchResult>(WatchWhile(keys, start_revision, drawn, again));
}

}  // namespace leasesim::core
