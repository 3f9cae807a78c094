#include "harness/builtin_protocols.h"

#include "core/protocol.h"
#include "designs/etcd_election/etcd_election.h"
#include "designs/kube_lease/kube_lease.h"
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
}

}  // namespace leasesim::harness
