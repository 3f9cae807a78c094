#include "runner/protocol_stores.h"

#include <gtest/gtest.h>

#include "runner/scenario_parser.h"
#include "runner/test_scenarios.h"

namespace leasesim::runner {
namespace {

using testing::ScenarioJson;

// A registered protocol that needs five Redis-like stores, as Redlock does;
// removed again so other tests see the registry as it was.
class ProtocolStores : public ::testing::Test {
 protected:
  void SetUp() override {
    core::Protocol needs_stores = core::LeasesimProtocol();
    needs_stores.name = "needs-five-redis";
    needs_stores.kv_stores = {.servers = 5, .model = core::KvStoreModel::kRedis};
    saved_ = core::Protocols();
    ASSERT_TRUE(core::Protocols().Add(needs_stores));
  }
  void TearDown() override { core::Protocols() = saved_; }

  static Scenario ParseOne(const std::string& fields) {
    auto parsed = ParseScenarioText("s.json", ScenarioJson(fields));
    EXPECT_TRUE(std::holds_alternative<ScenarioFile>(parsed)) << std::get<ParseError>(parsed).message;
    return std::get<ScenarioFile>(parsed).scenarios.at(0);
  }

 private:
  core::ProtocolRegistry saved_;
};

TEST_F(ProtocolStores, AProtocolsNeedsGiveTheWorldItsStores) {
  const Scenario s = ParseOne(R"("protocol": "needs-five-redis")");
  EXPECT_EQ(s.kv.servers, 5);
  EXPECT_EQ(s.kv.server.ttl_clock, backends::KvTtlClock::kWall);
  EXPECT_TRUE(s.kv.server.expire_on_access);
  EXPECT_EQ(s.kv.server.expiry_period, sim::Millis(100));
}

TEST_F(ProtocolStores, FaultsMayNameTheStoresAProtocolNeeds) {
  const Scenario s = ParseOne(R"("protocol": "needs-five-redis",
      "faults": [{"at_ms": 1000, "kind": "kv_clock_step", "kv": "kv3", "step_ms": 5000}])");
  ASSERT_EQ(s.faults.size(), 1u);
  EXPECT_EQ(s.faults[0].kv, 3);
}

TEST_F(ProtocolStores, TheScenariosOwnStoresWin) {
  const Scenario s = ParseOne(R"("protocol": "needs-five-redis", "kv": {"servers": 2, "model": "zookeeper"})");
  EXPECT_EQ(s.kv.servers, 2);
  EXPECT_EQ(s.kv.server.ttl_clock, backends::KvTtlClock::kMonotonic);
  EXPECT_EQ(s.kv.server.expiry_period, sim::Millis(2000));
}

TEST_F(ProtocolStores, AnOverrideGivesTheStoresToo) {
  Scenario s = ParseOne("");
  EXPECT_EQ(s.kv.servers, 0);
  SetScenarioProtocol(s, "needs-five-redis");
  EXPECT_EQ(s.protocol, "needs-five-redis");
  EXPECT_EQ(s.kv.servers, 5);
}

TEST_F(ProtocolStores, AModelsFieldsAreOverriddenOneByOne) {
  const Scenario s = ParseOne(R"("kv": {"servers": 1, "model": "redis", "expire_on_access": false})");
  EXPECT_EQ(s.kv.server.ttl_clock, backends::KvTtlClock::kWall);
  EXPECT_FALSE(s.kv.server.expire_on_access);
}

TEST_F(ProtocolStores, AnUnknownModelIsNamed) {
  auto parsed = ParseScenarioText("s.json", ScenarioJson(R"("kv": {"servers": 1, "model": "consul"})"));
  ASSERT_TRUE(std::holds_alternative<ParseError>(parsed));
  EXPECT_NE(std::get<ParseError>(parsed).message.find("scenarios[0].kv.model: must be"), std::string::npos)
      << std::get<ParseError>(parsed).message;
}

TEST(KvStoreModels, NamesGoBothWays) {
  for (core::KvStoreModel model :
       {core::KvStoreModel::kEtcd, core::KvStoreModel::kRedis, core::KvStoreModel::kZooKeeper}) {
    core::KvStoreModel back = core::KvStoreModel::kEtcd;
    ASSERT_TRUE(KvStoreModelNamed(KvStoreModelName(model), back));
    EXPECT_EQ(back, model);
  }
}

}  // namespace
}  // namespace leasesim::runner
