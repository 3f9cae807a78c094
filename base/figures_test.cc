// The figure registry's own rules: names unique, each family with one '*',
// an exact entry before any family, the families code reads back by prefix
// present, and lookups that pick the right definition.

#include "base/figures.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

namespace leasesim::base {
namespace {

TEST(Figures, NamesAreUniqueAndFamiliesHaveOneWildcard) {
  std::set<std::string_view> names;
  for (const FigureDefinition& definition : FigureDefinitions()) {
    EXPECT_TRUE(names.insert(definition.name).second) << definition.name << " is defined twice";
    EXPECT_LE(std::count(definition.name.begin(), definition.name.end(), '*'), 1) << definition.name;
    EXPECT_TRUE(definition.unit == "ms" || definition.unit == "us" || definition.unit == "count")
        << definition.name << ": unit " << definition.unit;
    // The name says its unit (docs/REPORTS.md: "_ms" figures are milliseconds).
    EXPECT_EQ(definition.unit == "ms", definition.name.find("_ms") != std::string_view::npos) << definition.name;
    EXPECT_EQ(definition.unit == "us", definition.name.find("_us") != std::string_view::npos) << definition.name;
    EXPECT_FALSE(definition.meaning.empty()) << definition.name;
    EXPECT_EQ(definition.meaning.find('|'), std::string_view::npos) << definition.name << ": breaks the table";
  }
}

// Every exact name is found as itself, never as a family's member.
TEST(Figures, AnExactNameFindsItsOwnDefinition) {
  for (const FigureDefinition& definition : FigureDefinitions()) {
    if (definition.name.find('*') != std::string_view::npos) continue;
    EXPECT_EQ(FindFigure(definition.name), &definition) << definition.name;
  }
}

TEST(Figures, FamiliesTakeTheirMembersAndExactEntriesWin) {
  const FigureDefinition* deadline = FindFigure("demotions_deadline");
  ASSERT_NE(deadline, nullptr);
  EXPECT_EQ(deadline->name, "demotions_*");
  EXPECT_EQ(deadline->direction, FigureDirection::kLowerIsBetter);
  EXPECT_EQ(FindFigure("demotions_crash")->direction, FigureDirection::kNeutral);
  EXPECT_EQ(FindFigure("timing_failover_3_ms")->name, "timing_failover_*_ms");
  EXPECT_EQ(FindFigure("timing_failovers")->name, "timing_failovers");
  EXPECT_TRUE(FindFigure("timing_recovery_0_ms")->minus_one_is_never);
  EXPECT_EQ(FindFigure(std::string(kProbeFigurePrefix) + "lease_created")->name, "probe_*");
  EXPECT_EQ(FindFigure(std::string(kFaultPointFigurePrefix) + "before_ledger_write")->name, "fault_point_*");
  EXPECT_EQ(FindFigure("demotions_"), nullptr) << "a family's '*' stands for some text";
  EXPECT_EQ(FindFigure("timing_failover__ms"), nullptr);
  EXPECT_EQ(FindFigure("something_new"), nullptr);
}

TEST(Figures, APatternMatchesItselfOrItsFamilysMembers) {
  EXPECT_TRUE(FigureNameMatches("leaderless_ms", "leaderless_ms"));
  EXPECT_FALSE(FigureNameMatches("leaderless_ms", "leaderless_ms_max"));
  EXPECT_TRUE(FigureNameMatches("renew_failed_*", "renew_failed_timeout"));
  EXPECT_FALSE(FigureNameMatches("renew_failed_*", "renewals_ok"));
  EXPECT_TRUE(FigureNameMatches("timing_failover_*_ms", "timing_failover_12_ms"));
  EXPECT_FALSE(FigureNameMatches("timing_failover_*_ms", "timing_failover_12"));
}

TEST(Figures, TheTableHasARowPerDefinition) {
  const std::string table = FigureTableMarkdown();
  EXPECT_EQ(static_cast<std::size_t>(std::count(table.begin(), table.end(), '\n')), FigureDefinitions().size() + 2);
  EXPECT_NE(table.find("| `recovery_ms` | ms | lower is better; -1 = never | history | "), std::string::npos) << table;
}

}  // namespace
}  // namespace leasesim::base
