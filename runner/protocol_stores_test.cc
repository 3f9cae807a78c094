#include "runner/protocol_stores.h"

#include <gtest/gtest.h>

#include "runner/scenario_parser.h"
#include "runner/test_scenarios.h"

namespace leasesim::runner {
namespace {

using testing::ScenarioErrorOf;
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
    core::Protocol needs_etcd = core::LeasesimProtocol();
    needs_etcd.name = "needs-one-etcd";
    needs_etcd.kv_stores = {.servers = 1, .model = core::KvStoreModel::kEtcd};
    ASSERT_TRUE(core::Protocols().Add(needs_etcd));
  }
  void TearDown() override { core::Protocols() = saved_; }

  static Scenario ParseOne(const std::string& fields) {
    auto parsed = ParseScenarioText("s.json", ScenarioJson(fields));
    EXPECT_TRUE(std::holds_alternative<ScenarioFile>(parsed)) << std::get<base::InputError>(parsed).ToString();
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
  ASSERT_TRUE(std::holds_alternative<base::InputError>(parsed));
  EXPECT_NE(std::get<base::InputError>(parsed).ToString().find("scenarios[0].kv.model: must be"), std::string::npos)
      << std::get<base::InputError>(parsed).ToString();
}

// "kv": {"replicated": true}: the one KV store is the replicated store's;
// it has no host of its own, so the kv_* faults cannot name one.
TEST_F(ProtocolStores, AKvStoreOnTheReplicatedStoreHasNoHostOfItsOwn) {
  auto parsed = ParseScenarioText("s.json", testing::ReplicatedScenarioJson(R"("kv": {"replicated": true})"));
  ASSERT_TRUE(std::holds_alternative<ScenarioFile>(parsed)) << std::get<base::InputError>(parsed).ToString();
  const Scenario& s = std::get<ScenarioFile>(parsed).scenarios.at(0);
  EXPECT_TRUE(s.kv.replicated);
  EXPECT_EQ(s.kv.servers, 1);
  EXPECT_EQ(s.kv.hosts(), 0);
  const std::string kv_fault = ScenarioErrorOf(testing::ReplicatedScenarioJson(
      R"("kv": {"replicated": true}, "faults": [{"at_ms": 1000, "kind": "kv_pause", "kv": "kv", "duration_ms": 10}])"));
  EXPECT_NE(kv_fault.find("faults[0].kv: the KV store is on the replicated store"), std::string::npos) << kv_fault;
}

TEST_F(ProtocolStores, AKvStoreOnTheReplicatedStoreNeedsOneAndNoServerKnobs) {
  const std::string single = ScenarioErrorOf(ScenarioJson(R"("kv": {"replicated": true})"));
  EXPECT_NE(single.find("scenarios[0].kv.replicated: needs \"store\": {\"kind\": \"replicated\"}"),
            std::string::npos)
      << single;
  const std::string two =
      ScenarioErrorOf(testing::ReplicatedScenarioJson(R"("kv": {"replicated": true, "servers": 2})"));
  EXPECT_NE(two.find("scenarios[0].kv.servers: must be 1 with \"replicated\""), std::string::npos) << two;
  const std::string knob =
      ScenarioErrorOf(testing::ReplicatedScenarioJson(R"("kv": {"replicated": true, "model": "zookeeper"})"));
  EXPECT_NE(knob.find("scenarios[0].kv.model: is a single KV server's"), std::string::npos) << knob;
}

// A protocol needing one etcd, in a world whose store is replicated, gets
// it on that store; one needing Redis stores keeps servers of its own.
TEST_F(ProtocolStores, OneEtcdInAReplicatedWorldIsTheReplicatedStore) {
  auto parsed = ParseScenarioText("s.json", testing::ReplicatedScenarioJson(R"("protocol": "needs-one-etcd")"));
  ASSERT_TRUE(std::holds_alternative<ScenarioFile>(parsed)) << std::get<base::InputError>(parsed).ToString();
  EXPECT_TRUE(std::get<ScenarioFile>(parsed).scenarios.at(0).kv.replicated);
  auto redis = ParseScenarioText("s.json", testing::ReplicatedScenarioJson(R"("protocol": "needs-five-redis")"));
  ASSERT_TRUE(std::holds_alternative<ScenarioFile>(redis)) << std::get<base::InputError>(redis).ToString();
  EXPECT_FALSE(std::get<ScenarioFile>(redis).scenarios.at(0).kv.replicated);
  EXPECT_EQ(std::get<ScenarioFile>(redis).scenarios.at(0).kv.hosts(), 5);
  EXPECT_FALSE(ParseOne(R"("protocol": "needs-one-etcd")").kv.replicated);  // a single store server: its own etcd
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
