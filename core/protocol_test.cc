// The protocol registry: names, aliases, combinations, the default, and the
// errors a user sees for a name it does not know.

#include "core/protocol.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace leasesim::core {
namespace {

// A protocol that builds nothing useful: only its name matters here.
Protocol Named(const std::string& name) {
  return Protocol{.name = name,
                  .summary = "test",
                  .build = [](Env&, const NodeSetup&) -> std::unique_ptr<ProtocolNode> { return nullptr; }};
}

TEST(ProtocolRegistry, FindsByNameAndAliasInTheOrderAdded) {
  ProtocolRegistry registry;
  ASSERT_TRUE(registry.Add(Named("b-lease")));
  ASSERT_TRUE(registry.Add(Named("a-lease")));
  ASSERT_TRUE(registry.AddAlias("old-name", "a-lease"));
  EXPECT_EQ(registry.Names(), "b-lease, a-lease");
  EXPECT_EQ(registry.default_name(), "b-lease");  // the first added
  const ProtocolRegistry::Lookup aliased = registry.Find("old-name");
  ASSERT_TRUE(aliased.protocol.has_value()) << aliased.error;
  EXPECT_EQ(aliased.protocol->name, "a-lease");
  ASSERT_EQ(registry.All().size(), 2u);
  EXPECT_EQ(registry.All()[0]->name, "b-lease");
}

TEST(ProtocolRegistry, RefusesBadAndDuplicateNames) {
  ProtocolRegistry registry;
  EXPECT_TRUE(registry.Add(Named("mine")));
  EXPECT_FALSE(registry.Add(Named("mine")));
  EXPECT_FALSE(registry.Add(Named("")));
  EXPECT_FALSE(registry.Add(Named("a,b")));  // commas join combinations
  EXPECT_FALSE(registry.Add(Protocol{.name = "no-builder"}));
  EXPECT_FALSE(registry.AddAlias("other", "missing"));
  EXPECT_FALSE(registry.AddAlias("mine", "mine"));
  EXPECT_FALSE(registry.SetDefault("missing"));
  EXPECT_EQ(registry.default_name(), "mine");
}

TEST(ProtocolRegistry, AnUnknownNameIsAnErrorNamingTheKnownOnes) {
  ProtocolRegistry registry;
  registry.Add(Named("mine"));
  const ProtocolRegistry::Lookup missing = registry.Find("yours");
  EXPECT_FALSE(missing.protocol.has_value());
  EXPECT_EQ(missing.error, "unknown protocol \"yours\" (known: mine)");
}

TEST(ProtocolRegistry, CombinersResolveWhatNoEntryNames) {
  ProtocolRegistry registry;
  registry.Add(Named("mine"));
  registry.AddCombiner([](std::string_view name, Protocol& protocol, std::string& error) {
    if (name == "mine,broken") {
      protocol = Named("mine,broken");
      protocol.ledger_checks_fence = false;
      return true;
    }
    if (name.find(',') == std::string_view::npos) return false;
    error = "cannot combine " + std::string(name);
    return true;
  });
  const ProtocolRegistry::Lookup combined = registry.Find("mine,broken");
  ASSERT_TRUE(combined.protocol.has_value()) << combined.error;
  EXPECT_FALSE(combined.protocol->ledger_checks_fence);
  EXPECT_EQ(registry.Find("mine,other").error, "cannot combine mine,other");
  EXPECT_NE(registry.Find("other").error.find("unknown protocol"), std::string::npos);
}

TEST(ProtocolRegistry, LeasesimIsAlwaysThereAndTheDefault) {
  const ProtocolRegistry::Lookup found = Protocols().Find(kLeasesimProtocol);
  ASSERT_TRUE(found.protocol.has_value()) << found.error;
  EXPECT_TRUE(found.protocol->mistake.empty());
  EXPECT_TRUE(found.protocol->ledger_checks_fence);
  EXPECT_EQ(Protocols().default_name(), kLeasesimProtocol);
}

}  // namespace
}  // namespace leasesim::core
