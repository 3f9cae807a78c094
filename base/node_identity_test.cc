// Node identities "n<node>#<incarnation>": format and its exact inverse.

#include "base/node_identity.h"

#include <gtest/gtest.h>

namespace leasesim::base {
namespace {

TEST(NodeIdentity, FormatsAndParsesBack) {
  EXPECT_EQ(FormatNodeIdentity(3, 2), "n3#2");
  EXPECT_EQ(FormatNodeIdentity(NodeIdentity{12, 40}), "n12#40");
  for (const NodeIdentity id : {NodeIdentity{1, 1}, NodeIdentity{64, 7}, NodeIdentity{3, 18446744073709551615ULL}}) {
    EXPECT_EQ(ParseNodeIdentity(FormatNodeIdentity(id)), id);
  }
}

TEST(NodeIdentity, RefusesAnythingElse) {
  for (const char* bad : {"", "n", "n#", "n1#", "n#1", "1#1", "N1#1", "n1.1", "n1#1#2", "n01#1", "n1#01", "n0#1",
                          "n1#0", "n-1#1", "n+1#1", " n1#1", "n1#1 ", "n1#x", "nx#1", "n99999999999#1",
                          "n1#18446744073709551616", "host-a"}) {
    EXPECT_EQ(ParseNodeIdentity(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace leasesim::base
