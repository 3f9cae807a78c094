// leasesim: deterministic simulation and fault injection for lease-based
// leader election (README.md). The harness's entry point with the built-in
// protocols registered.

#include "harness/builtin_protocols.h"
#include "harness/harness.h"

int main(int argc, char** argv) {
  leasesim::harness::RegisterBuiltinProtocols();
  return leasesim::harness::Main(argc, argv);
}
