#include "live/run_mechanisms.h"

namespace leasesim::live {
namespace {

constexpr core::Nanos kReadTimeout = 500'000'000;

}  // namespace

int RunMechanisms::LeaseHolderNode() {
  const core::StoreResult read = etcd_.store().Read(lease_key_, kReadTimeout);
  if (read.status != core::StoreStatus::kOk || !read.current.found) return 0;
  return fleet_.NodeOfHolder(read.current.record.holder);
}

// EtcdCluster numbers members from 0; the fault table from 1.
int RunMechanisms::EtcdLeaderMember() {
  EtcdCluster* cluster = etcd_.cluster();
  return cluster == nullptr ? 0 : cluster->Leader() + 1;
}

bool RunMechanisms::EtcdMemberRunning(int member) {
  EtcdCluster* cluster = etcd_.cluster();
  return cluster != nullptr && member >= 1 && member <= EtcdCluster::kMembers && cluster->running(member - 1);
}

void RunMechanisms::KillEtcdMember(int member) {
  if (EtcdMemberRunning(member)) etcd_.cluster()->Kill(member - 1);
}

std::string RunMechanisms::RestartEtcdMember(int member) {
  EtcdCluster* cluster = etcd_.cluster();
  if (cluster == nullptr || member < 1 || member > EtcdCluster::kMembers) return "no such member";
  std::string error;
  return cluster->Restart(member - 1, error) ? std::string() : error;
}

}  // namespace leasesim::live
