#include "runner/protocol_stores.h"

#include <cassert>

namespace leasesim::runner {

backends::KvServerConfig KvServerOf(core::KvStoreModel model, const sim::LatencyModel& service) {
  backends::KvServerConfig config;
  config.service = service;
  switch (model) {
    case core::KvStoreModel::kEtcd:
      // server/lease/lessor.go: expiry measured with Go's monotonic reading;
      // runLoop revokes expired leases every 500 ms; no passive expiry.
      config.ttl_clock = backends::KvTtlClock::kMonotonic;
      config.expiry_period = sim::Millis(500);
      config.expire_on_access = false;
      break;
    case core::KvStoreModel::kRedis:
      // redis.io EXPIRE ("How Redis expires keys"): an absolute Unix time
      // (the wall clock), checked on every access (passive) and by the
      // active cycle run `hz` (default 10) times a second.
      config.ttl_clock = backends::KvTtlClock::kWall;
      config.expiry_period = sim::Millis(100);
      config.expire_on_access = true;
      break;
    case core::KvStoreModel::kZooKeeper:
      // SessionTrackerImpl's ExpiryQueue: Time.currentElapsedTime() (the
      // elapsed-time clock), sessions expired every tickTime (the shipped
      // zoo_sample.cfg's tickTime=2000).
      config.ttl_clock = backends::KvTtlClock::kMonotonic;
      config.expiry_period = sim::Millis(2000);
      config.expire_on_access = false;
      // ZooKeeperServer.processConnectRequest bounds the session timeout a
      // client asks by minSessionTimeout and maxSessionTimeout, by default
      // 2 and 20 tickTimes (the Administrator's Guide).
      config.lease_ttl_min = 2 * config.expiry_period;
      config.lease_ttl_max = 20 * config.expiry_period;
      break;
  }
  return config;
}

std::string KvStoreModelName(core::KvStoreModel model) {
  switch (model) {
    case core::KvStoreModel::kEtcd: return "etcd";
    case core::KvStoreModel::kRedis: return "redis";
    case core::KvStoreModel::kZooKeeper: return "zookeeper";
  }
  assert(false && "a KvStoreModel without a name");
  return "etcd";
}

bool KvStoreModelNamed(const std::string& name, core::KvStoreModel& model) {
  for (core::KvStoreModel candidate :
       {core::KvStoreModel::kEtcd, core::KvStoreModel::kRedis, core::KvStoreModel::kZooKeeper}) {
    if (KvStoreModelName(candidate) != name) continue;
    model = candidate;
    return true;
  }
  return false;
}

void SetScenarioProtocol(Scenario& scenario, const std::string& name) {
  scenario.protocol = name;
  if (scenario.kv.servers > 0) return;  // the scenario's own stores win
  const core::ProtocolRegistry::Lookup found = core::Protocols().Find(name);
  if (!found.protocol.has_value()) return;  // the caller reports an unknown name
  const core::KvStoreNeeds& needs = found.protocol->kv_stores;
  if (needs.servers == 0) return;
  scenario.kv.servers = needs.servers;
  // One etcd in a world whose coordination store is the replicated (Raft)
  // store: that store is the etcd, as a real etcd is a Raft cluster (a
  // Kubernetes API server keeps its Leases in one too). Other models keep
  // servers of their own: Redis instances are not Raft replicas, and the
  // Raft store stands for a ZooKeeper ensemble only in part
  // (docs/SCENARIOS.md, "kv").
  if (needs.servers == 1 && needs.model == core::KvStoreModel::kEtcd && scenario.replicated.enabled) {
    scenario.kv.replicated = true;
    return;
  }
  scenario.kv.server = KvServerOf(needs.model, scenario.store.service);
}

}  // namespace leasesim::runner
