#pragma once
// The fault table's mechanisms (FaultMechanisms) over a live run's real
// machinery: signals to the node processes, the etcd cluster's members, the
// proxies, and the lease record in etcd to find the lease holder.

#include <string>

#include "live/etcd_side.h"
#include "live/live_faults.h"
#include "live/node_fleet.h"

namespace leasesim::live {

// The real mechanisms of one run (see the top of the file).
class RunMechanisms final : public FaultMechanisms {
 public:
  RunMechanisms(NodeFleet& fleet, EtcdSide& etcd, std::string lease_key)
      : fleet_(fleet), etcd_(etcd), lease_key_(std::move(lease_key)) {}

  int LeaseHolderNode() override;
  int EtcdLeaderMember() override;
  int RunningIncarnation(int node) override { return fleet_.RunningIncarnation(node); }
  bool EtcdMemberRunning(int member) override;
  void StopNode(int node) override { fleet_.Stop(node); }
  void ContinueNode(int node, int incarnation) override { fleet_.Continue(node, incarnation); }
  void ArmStop(int node) override { fleet_.ArmStop(node); }
  void DisarmStop(int node, int incarnation) override { fleet_.DisarmStop(node, incarnation); }
  void KillNode(int node) override { fleet_.Kill(node); }
  int RestartNode(int node) override { return fleet_.Launch(node); }
  std::vector<Incarnation> SelfStoppedNodes() override { return fleet_.Reap(); }
  void KillEtcdMember(int member) override;
  std::string RestartEtcdMember(int member) override;
  bool BehindProxy(int node) override { return etcd_.BehindProxy(node); }
  void CutNode(int node, bool cut) override { etcd_.proxies().SetCut(node, cut); }
  void SlowNode(int node, LinkLatency to_etcd, LinkLatency from_etcd) override {
    etcd_.proxies().SetLatency(node, {to_etcd.base_ms, to_etcd.jitter_ms}, {from_etcd.base_ms, from_etcd.jitter_ms});
  }
  void StallNode(int node, bool stalled) override { etcd_.proxies().SetStall(node, stalled); }

 private:
  NodeFleet& fleet_;
  EtcdSide& etcd_;
  std::string lease_key_;
};

}  // namespace leasesim::live
