#pragma once
// One set of conformance cases for the KV seam (core::KvClient), written
// once against the seam and run on every store that serves it: the
// simulated single store (kv_conformance_sim_test.cc) and real etcd
// (kv_conformance_live_test.cc). The store modelled is etcd, so where the
// two disagree the simulated one is wrong unless etcd's documentation says
// the behaviour is undefined. Each case starts on an empty store (revision
// 1, as a fresh etcd answers), so it checks exact revisions.

#include <cstdint>
#include <span>
#include <string>

#include "core/kv_store.h"

namespace leasesim::kvtest {

// What a case needs of a store besides its client.
class KvConformanceStore {
 public:
  virtual ~KvConformanceStore() = default;
  virtual core::KvClient& client() = 0;
  // Makes the store forget the watch history of every revision below
  // `revision` (etcd: a Compact RPC at `revision`; the simulated store keeps
  // a window of revisions, so it writes until the window has passed it).
  // After it, the store's revision may have moved on.
  virtual void CompactBelow(std::int64_t revision) = 0;
};

// A case: gtest assertions inside, on a fresh store.
struct KvConformanceCase {
  const char* name;
  void (*run)(KvConformanceStore& store);
};

std::span<const KvConformanceCase> KvConformanceCases();

// For INSTANTIATE_TEST_SUITE_P's test names.
std::string KvConformanceCaseName(int index);

}  // namespace leasesim::kvtest
