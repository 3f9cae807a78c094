// One definition per figure: every figure a simulated run writes is
// defined in the figure registry (base/figures.h), every definition is
// written by some run, and docs/REPORTS.md's table is the registry's.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>

#include "base/figures.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "timing/measure.h"

namespace leasesim {
namespace {

std::string SourceDir() {
  const char* dir = std::getenv("LEASESIM_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

// Figure -> a scenario that wrote it, over ci.json's scenarios (seeds 1-2),
// each run measured as `leasesim timing` measures its runs, so the
// history's, the simulator's, the replicated store's and timing's figures
// all appear. Run once for the tests below.
const std::map<std::string, std::string>& WrittenFigures() {
  static const std::map<std::string, std::string> written = [] {
    std::map<std::string, std::string> figures;
    auto loaded = runner::LoadScenarioFile(SourceDir() + "/scenarios/ci.json");
    if (const auto* error = std::get_if<base::InputError>(&loaded)) {
      ADD_FAILURE() << error->ToString();
      return figures;
    }
    const runner::RunFunction measuring = timing::MeasuringRun({.p99_ms = 50, .p999_ms = 200, .timeout_ms = 1000});
    for (const runner::Scenario& scenario : std::get<runner::ScenarioFile>(loaded).scenarios) {
      for (std::uint64_t seed = 1; seed <= 2; ++seed) {
        for (const auto& [name, value] : measuring(scenario, seed, {}).figures) figures.emplace(name, scenario.name);
      }
    }
    return figures;
  }();
  return written;
}

TEST(FigureRegistry, EveryFigureARunWritesIsDefined) {
  ASSERT_FALSE(WrittenFigures().empty());
  for (const auto& [figure, scenario] : WrittenFigures()) {
    EXPECT_NE(base::FindFigure(figure), nullptr)
        << figure << " (written in ci.json's " << scenario << ") is not defined in base/figures.cc";
  }
}

// KV-store figures are checked by tests/kv_store (no ci.json scenario has
// KV hosts), live ones by live/live_history_test.cc.
TEST(FigureRegistry, EveryDefinedFigureIsWrittenBySomeRun) {
  std::set<const base::FigureDefinition*> written;
  for (const auto& [figure, scenario] : WrittenFigures()) written.insert(base::FindFigure(figure));
  for (const base::FigureDefinition& definition : base::FigureDefinitions()) {
    if (definition.source == base::FigureSource::kKvStore || definition.source == base::FigureSource::kLive) continue;
    EXPECT_TRUE(written.contains(&definition))
        << definition.name << " is defined in base/figures.cc but no run of ci.json (seeds 1-2) wrote it";
  }
}

TEST(FigureRegistry, DocsReportsListsExactlyTheRegistrysFigures) {
  std::ifstream in(SourceDir() + "/docs/REPORTS.md");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::string docs = text.str();
  const std::string begin = "<!-- figure table: rendered from base/figures.cc, checked by tests/figures -->\n";
  const std::size_t from = docs.find(begin);
  const std::size_t to = docs.find("<!-- end of figure table -->");
  ASSERT_NE(from, std::string::npos) << "docs/REPORTS.md has lost its figure table's opening marker";
  ASSERT_NE(to, std::string::npos) << "docs/REPORTS.md has lost its figure table's closing marker";
  ASSERT_LT(from, to);
  const std::string table = docs.substr(from + begin.size(), to - from - begin.size());
  EXPECT_EQ(table, base::FigureTableMarkdown())
      << "docs/REPORTS.md's figure table differs from the registry; paste this between its markers:\n"
      << base::FigureTableMarkdown();
}

}  // namespace
}  // namespace leasesim
