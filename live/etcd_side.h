#pragma once
// The etcd side of a live run: the run's own 3-member loopback cluster (or
// an existing one given by --etcd), the orchestrator's own client, and the
// TCP proxies in front of etcd for the nodes a proxy fault may hit. At the
// end it reads the ledger back (the authority on what was applied), keeps
// the members' logs and stops the cluster.

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "backends/etcd/etcd_http.h"
#include "backends/etcd/etcd_ledger.h"
#include "backends/etcd/etcd_store.h"
#include "live/live_faults.h"
#include "live/live_run.h"
#include "live/processes.h"
#include "live/tcp_proxy.h"

namespace leasesim::live {

// Owns etcd for one run (see the top of the file); stops it on destruction.
class EtcdSide {
 public:
  EtcdSide() = default;
  EtcdSide(const EtcdSide&) = delete;
  EtcdSide& operator=(const EtcdSide&) = delete;

  // Starts the run's own cluster (no --etcd; secure with --etcd-secure) or
  // uses the given one with its TLS and auth options; then checks that the
  // run's keys are reachable. An error message, empty on success.
  std::string Connect(const LiveOptions& options, std::ostream& out);
  // Checks access to the run's lease key and ledger prefix; an error or empty.
  std::string CheckAccess(const std::string& lease_key, const std::string& ledger_prefix);
  // Puts every node a proxy fault names (every node, for a leader target)
  // behind its own proxy and starts them; an error, empty on success.
  std::string StartProxies(int nodes, const std::vector<LiveFault>& faults);

  // The etcd endpoints node `node` talks to (through its proxy, if any).
  const std::string& NodeUrls(int node) const;
  std::vector<std::string> AllNodeUrls() const { return node_urls_; }
  // The TLS and auth flags every node is started with.
  const std::vector<std::string>& NodeSecurityFlags() const { return node_flags_; }
  bool BehindProxy(int node) const;
  ProxyHub& proxies() { return proxies_; }
  // The run's own cluster; nullptr with --etcd.
  EtcdCluster* cluster() { return own_ ? &cluster_ : nullptr; }
  core::StoreClient& store() { return *store_; }

  // Every batch the ledger under `prefix` applied, in revision order
  // (retried for a few seconds: etcd may still be electing). false: unreadable.
  bool ReadLedger(const std::string& prefix, std::vector<etcd::AppliedBatch>& applied);
  // Copies the members' logs to OUT/etcd-m<i>.log and stops the cluster.
  void SaveLogsAndStop(const std::string& out_dir);

 private:
  EtcdCluster cluster_;  // stopped and removed on destruction
  bool own_ = false;
  std::string urls_;
  etcd::EndpointOptions client_;  // TLS and auth, no endpoints
  std::vector<std::string> node_flags_;
  std::unique_ptr<etcd::EtcdHttp> http_;
  std::unique_ptr<etcd::EtcdStoreClient> store_;
  ProxyHub proxies_;
  std::vector<std::string> node_urls_;  // by node number (index 0 unused)
  std::vector<bool> proxied_;
};

}  // namespace leasesim::live
