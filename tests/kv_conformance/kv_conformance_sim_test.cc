// The KV conformance cases on the simulated single store
// (backends/sim_kv_server.h) in a tiny world: one client host, one store
// host, a 1 ms network. Each case runs as a task on the client host.

#include <gtest/gtest.h>

#include <memory>

#include "backends/sim_kv_server.h"
#include "tests/kv_conformance/kv_conformance.h"

namespace leasesim::kvtest {
namespace {

// Numbers the calls; the cases judge the answers themselves.
class CountingObserver final : public backends::KvObserver {
 public:
  std::int64_t KvInvoked(int, std::string_view, const backends::KvRequest&) override { return next_++; }
  void KvApplied(std::int64_t, const backends::KvReply&) override {}
  void KvCompleted(std::int64_t, const backends::KvReply&) override {}
  void KvLeaseExpired(const backends::KvExpiry&) override {}

 private:
  std::int64_t next_ = 0;
};

// A fresh simulated store playing etcd, and a client of it.
class SimStore final : public KvConformanceStore {
 public:
  SimStore() {
    world_.Start(client_host_);
    world_.Start(store_host_);
    backends::KvServerConfig config{.service = {.base_ns = sim::Millis(2)},
                                    .ttl_clock = backends::KvTtlClock::kMonotonic};
    config.state.history_revisions = kWindow;
    server_ = std::make_unique<backends::SimKvServer>(world_, store_host_, base::Prng(2), config, observer_);
    server_->Start();
    client_ = std::make_unique<backends::SimKvClient>(world_, network_, client_host_, 1, "n1#1", *server_, observer_);
  }

  core::KvClient& client() override { return *client_; }

  // The store keeps the last kWindow revisions: writing past them is how
  // its history is compacted (etcd --auto-compaction-mode=revision).
  void CompactBelow(std::int64_t revision) override {
    for (int i = 0; i < 4 * kWindow && server_->state().compact_revision() < revision; ++i) {
      core::KvTxn filler;
      filler.success.push_back(core::KvRequestOp::Put("zz-filler", std::to_string(i)));
      ASSERT_EQ(client_->Txn(filler, sim::Seconds(2)).status, core::KvStatus::kOk);
    }
    ASSERT_GE(server_->state().compact_revision(), revision);
  }

  // Runs `body` as a task on the client host until it returns; false when
  // it never did.
  bool Run(void (*body)(KvConformanceStore&)) {
    bool finished = false;
    world_.Spawn(client_host_, [&] {
      body(*this);
      finished = true;
    });
    world_.RunUntil(sim::Seconds(120));
    return finished;
  }

 private:
  static constexpr int kWindow = 16;
  sim::World world_{5, false};
  sim::HostId client_host_ = world_.AddHost({.name = "n1"});
  sim::HostId store_host_ = world_.AddHost({.name = "kv"});
  sim::Network network_{world_, base::Prng(1), {.latency = {.base_ns = sim::Millis(1)}}};
  CountingObserver observer_;
  std::unique_ptr<backends::SimKvServer> server_;
  std::unique_ptr<backends::SimKvClient> client_;
};

class SimKvConformance : public ::testing::TestWithParam<int> {};

TEST_P(SimKvConformance, Case) {
  SimStore store;
  EXPECT_TRUE(store.Run(KvConformanceCases()[GetParam()].run)) << "the case never finished";
}

INSTANTIATE_TEST_SUITE_P(Kv, SimKvConformance, ::testing::Range(0, static_cast<int>(KvConformanceCases().size())),
                         [](const ::testing::TestParamInfo<int>& param_info) {
                           return KvConformanceCaseName(param_info.param);
                         });

}  // namespace
}  // namespace leasesim::kvtest
