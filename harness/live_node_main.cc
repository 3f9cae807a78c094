// leasesim-live-node: a live run's node process with the built-in
// protocols, for runs given --node-binary (leasesim live starts its nodes
// as `leasesim live-node` by default).

#include "harness/builtin_protocols.h"
#include "live/live_node.h"

int main(int argc, char** argv) {
  leasesim::harness::RegisterBuiltinProtocols();
  return leasesim::live::RunLiveNode(argc, argv);
}
