#pragma once
// The KV stores a scenario's world offers its protocol. A scenario may say
// them itself (its "kv" block); otherwise its protocol's needs
// (core::Protocol::kv_stores) decide, so `fuzz --protocol redlock` draws
// worlds with Redlock's five Redis hosts without a scenario file saying so.

#include <string>

#include "core/protocol.h"
#include "runner/scenario.h"

namespace leasesim::runner {

// A KV store host's configuration as `model` documents it (docs/STORE_MODEL.md):
// which clock judges a TTL, the expiry loop's period, passive expiry.
// `service` is the store's service time.
backends::KvServerConfig KvServerOf(core::KvStoreModel model, const sim::LatencyModel& service);

// The model's name in scenario files ("etcd", "redis", "zookeeper"), and back
// (false: no such model).
std::string KvStoreModelName(core::KvStoreModel model);
bool KvStoreModelNamed(const std::string& name, core::KvStoreModel& model);

// Sets the protocol the scenario runs (a registered name) and, when the
// scenario has no KV stores of its own, gives it those the protocol needs
// (one etcd on the scenario's replicated store, when it has one).
// Every place that chooses a scenario's protocol goes through here.
void SetScenarioProtocol(Scenario& scenario, const std::string& name);

}  // namespace leasesim::runner
