// ttl-lock-harness: the whole leasesim command for ttl-lock, this project's
// own lease code (ttl_lock/ttl_lock.h). Built from leasesim's installed
// package alone:  ttl-lock-harness fuzz --runs 300 --seed 1
//                 ttl-lock-harness run scenarios.json --protocol ttl-lock-fixed

#include "core/protocol.h"
#include "harness/harness.h"
#include "ttl_lock/ttl_lock.h"

int main(int argc, char** argv) {
  leasesim::core::ProtocolRegistry& protocols = leasesim::core::Protocols();
  protocols.Add(ttl_lock::TtlLockProtocol("ttl-lock", /*wall_clock_validity=*/true));
  protocols.Add(ttl_lock::TtlLockProtocol("ttl-lock-fixed", /*wall_clock_validity=*/false));
  protocols.SetDefault("ttl-lock");
  return leasesim::harness::Main(argc, argv);
}
