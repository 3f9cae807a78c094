#include "harness/builtin_protocols.h"

#include "core/protocol.h"
#include "designs/etcd_election/etcd_election.h"
#include "designs/kube_lease/kube_lease.h"
#include "designs/redlock/redlock.h"
#include "designs/zk_election/zk_election.h"
#include "zoo/variants.h"

namespace leasesim::harness {

void RegisterBuiltinProtocols() {
  // Called from main (and test mains) before any thread starts.
  static bool registered = false;
  if (registered) return;
  registered = true;
  zoo::RegisterZooProtocols(core::Protocols());
  designs::RegisterKubeLease(core::Protocols());
  designs::RegisterEtcdElection(core::Protocols());
  designs::RegisterRedlock(core::Protocols());
  designs::RegisterZkElection(core::Protocols());
}

}  // namespace leasesim::harness
