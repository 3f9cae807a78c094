// The main of test binaries that run worlds: the built-in protocols
// registered, as in the leasesim binary, then GoogleTest.

#include <gtest/gtest.h>

#include "harness/builtin_protocols.h"

int main(int argc, char** argv) {
  leasesim::harness::RegisterBuiltinProtocols();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
