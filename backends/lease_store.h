#pragma once
// The lease store's state machine: per-key records with per-key versions
// (1 on create, +1 on every successful CAS). Pure and synchronous: the
// simulated servers wrap it, and tests use it as the reference model.

#include <cstdint>
#include <map>
#include <string>

#include "core/env.h"

namespace leasesim::backends {

// The records of one store, by key: read, create-if-absent and compare-and-set.
class LeaseStore {
 public:
  core::StoreResult Read(const std::string& key) const;
  core::StoreResult Create(const std::string& key, const core::LeaseRecord& record);
  core::StoreResult CompareAndSet(const std::string& key, std::int64_t expected_version,
                                  const core::LeaseRecord& record);

 private:
  static constexpr std::size_t kKeysMax = 100'000;
  std::map<std::string, core::VersionedRecord> records_;
};

}  // namespace leasesim::backends
