#include "backends/lease_store.h"

#include <cassert>

namespace leasesim::backends {

core::StoreResult LeaseStore::Read(const std::string& key) const {
  auto it = records_.find(key);
  if (it == records_.end()) return {core::StoreStatus::kOk, core::VersionedRecord{}};
  return {core::StoreStatus::kOk, it->second};
}

core::StoreResult LeaseStore::Create(const std::string& key, const core::LeaseRecord& record) {
  auto it = records_.find(key);
  if (it != records_.end()) return {core::StoreStatus::kConflict, it->second};
  assert(records_.size() < kKeysMax);
  core::VersionedRecord& slot = records_[key];
  slot = core::VersionedRecord{true, 1, record};
  return {core::StoreStatus::kOk, slot};
}

core::StoreResult LeaseStore::CompareAndSet(const std::string& key, std::int64_t expected_version,
                                            const core::LeaseRecord& record) {
  auto it = records_.find(key);
  if (it == records_.end()) return {core::StoreStatus::kConflict, core::VersionedRecord{}};
  if (it->second.version != expected_version) return {core::StoreStatus::kConflict, it->second};
  it->second = core::VersionedRecord{true, expected_version + 1, record};
  assert(it->second.version > expected_version);
  return {core::StoreStatus::kOk, it->second};
}

}  // namespace leasesim::backends
