#include "runner/record_projection.h"

#include <utility>

#include "core/kv_record_store.h"

namespace leasesim::runner {
namespace {

bool IsRangeOf(const core::KvRequestOp& op, std::string_view key) {
  return op.kind == core::KvRequestOp::Kind::kRange && op.keys.end.empty() && op.keys.key == key &&
         op.limit == 0;
}

// A guarded put of `value` on the record's key, comparing `target` with
// `number` for equality, as a create or a CAS; false for any other guard.
bool AsRecordWrite(core::KvCompareTarget target, std::int64_t number, std::string_view value, RecordCall& call) {
  const bool create = target == core::KvCompareTarget::kCreateRevision && number == 0;
  const bool cas = target == core::KvCompareTarget::kModRevision && number > 0;
  if (!create && !cas) return false;
  if (!core::DecodeLeaseRecordInto(value, call.value)) return false;
  call.kind = create ? backends::StoreOpKind::kCreate : backends::StoreOpKind::kCas;
  call.expected_mod_revision = create ? 0 : number;
  return true;
}

}  // namespace

bool AsRecordPut(const core::KvGuardedPut& put, std::string_view key, RecordCall& call) {
  if (put.key != key || put.result != core::KvCompareResult::kEqual) return false;
  return AsRecordWrite(put.target, put.number, put.value, call);
}

bool AsRecordCall(const core::KvTxn& txn, std::string_view key, RecordCall& call) {
  if (txn.compares.empty()) {
    // Read: a txn holding one range of the key.
    if (txn.success.size() != 1 || !txn.failure.empty() || !IsRangeOf(txn.success[0], key)) return false;
    call.kind = backends::StoreOpKind::kRead;
    call.expected_mod_revision = 0;
    return true;
  }
  // Create / CAS: one compare on the key, then {put key}, else {range key}.
  if (txn.compares.size() != 1 || txn.success.size() != 1 || txn.failure.size() != 1) return false;
  const core::KvCompare& compare = txn.compares[0];
  const core::KvRequestOp& put = txn.success[0];
  const bool shape = compare.key == key && compare.result == core::KvCompareResult::kEqual &&
                     put.kind == core::KvRequestOp::Kind::kPut && put.keys.key == key &&
                     put.lease == core::kNoLease && IsRangeOf(txn.failure[0], key);
  if (!shape) return false;
  return AsRecordWrite(compare.target, compare.number, put.value, call);
}

}  // namespace leasesim::runner
