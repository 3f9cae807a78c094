// The KV conformance cases on a real etcd (one member on loopback, started
// fresh for each case) through the etcd backend's EtcdKvClient. Skipped
// when /usr/bin/etcd is absent; ctest label "live".

#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>

#include "backends/etcd/etcd_kv.h"
#include "backends/etcd/etcd_kv_json.h"
#include "backends/etcd/one_etcd_test_util.h"
#include "tests/kv_conformance/kv_conformance.h"

namespace leasesim::kvtest {
namespace {

// A fresh etcd member as a conformance store, reached through EtcdKvClient.
class EtcdStore final : public KvConformanceStore {
 public:
  EtcdStore() : http_({.endpoints = {etcd_.url()}}), kv_(http_) {}
  bool ready() const { return etcd_.ready(); }
  core::KvClient& client() override { return kv_; }
  // etcd's Compact RPC: revisions below `revision` are gone from the watch
  // history (rpc.proto CompactionRequest); physical: answered once done.
  void CompactBelow(std::int64_t revision) override {
    const etcd::HttpResult answer =
        http_.Post("/v3/kv/compaction", etcd::CompactionBody(revision), 2 * base::kNanosPerSecond);
    ASSERT_EQ(answer.verdict, etcd::Verdict::kResult) << answer.error;
  }

 private:
  etcd::OneEtcd etcd_;
  etcd::EtcdHttp http_;
  etcd::EtcdKvClient kv_;
};

class EtcdLiveKvConformance : public ::testing::TestWithParam<int> {};

TEST_P(EtcdLiveKvConformance, Case) {
  if (::access(etcd::kEtcd, X_OK) != 0) GTEST_SKIP() << etcd::kEtcd << " is absent (apt-get install etcd-server)";
  EtcdStore store;
  ASSERT_TRUE(store.ready()) << "etcd did not start";
  KvConformanceCases()[GetParam()].run(store);
}

INSTANTIATE_TEST_SUITE_P(Kv, EtcdLiveKvConformance,
                         ::testing::Range(0, static_cast<int>(KvConformanceCases().size())),
                         [](const ::testing::TestParamInfo<int>& param_info) {
                           return KvConformanceCaseName(param_info.param);
                         });

}  // namespace
}  // namespace leasesim::kvtest
