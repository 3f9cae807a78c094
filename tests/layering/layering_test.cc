// The layering the README's layout table draws, checked against every
// #include in the tree: a file may include its own folder and the folders
// its row's "may use" column names, nothing else. The table is the single
// statement of the rule; change it there and this test follows — except for
// the few edges the design rules out (kNeverEdges), which no row may grant.

#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string SourceDir() {
  const char* dir = std::getenv("LEASESIM_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

// What a folder's files may include besides the folder itself.
struct Uses {
  std::set<std::string> all;    // every file
  std::set<std::string> tests;  // *_test.cc files, in addition
  bool contains(const std::string& folder, bool test) const {
    return all.contains(folder) || (test && tests.contains(folder));
  }
};
using Table = std::map<std::string, Uses>;

void AddFolders(const std::string& cell, std::set<std::string>& into) {
  std::stringstream cells(cell);
  std::string used;
  while (std::getline(cells, used, ',')) {
    used.erase(0, used.find_first_not_of(" `"));
    used.erase(used.find_last_not_of(" `/") + 1);
    if (!used.empty() && used != "—" && used != "-") into.insert(used);
  }
}

// Folder ("backends/etcd") -> the folders it may use, from README.md's
// "| `folder/` | what it is | may use[; tests: more] |" rows.
Table ReadLayoutTable(const std::string& readme) {
  Table table;
  std::ifstream in(readme);
  const std::regex row(R"(^\|\s*`([a-z/_]+)/`\s*\|[^|]*\|\s*([^|]*)\|\s*$)");
  std::string line;
  for (int lines = 0; lines < 100'000 && std::getline(in, line); ++lines) {
    std::smatch match;
    if (!std::regex_match(line, match, row)) continue;
    Uses& uses = table[match[1]];
    const std::string cell = match[2].str();
    const std::size_t tests = cell.find("; tests:");
    AddFolders(cell.substr(0, tests), uses.all);
    if (tests != std::string::npos) AddFolders(cell.substr(tests + 8), uses.tests);
  }
  return table;
}

// The table folder a path lies in: the longest folder that prefixes it.
std::string FolderOf(const std::string& path, const Table& table) {
  std::string best;
  for (const auto& [folder, uses] : table) {
    const bool inside = path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
                        path[folder.size()] == '/';
    if (inside && folder.size() > best.size()) best = folder;
  }
  return best;
}

// Edges the project's design rules out whatever a row says, so that
// widening the table cannot quietly undo them (README.md, below the table).
struct Edge {
  const char* from;
  const char* to;
};
constexpr Edge kNeverEdges[] = {
    {"checker", "sim"},   {"checker", "core"},  // the checker judges histories from any world
    {"sim", "core"},      {"sim", "zoo"},       // the world knows no leases
    {"sim", "backends"},  {"core", "sim"},      // a protocol sees core's seam alone
    {"zoo", "sim"},       {"examples/ttl_lock/ttl_lock", "sim"},
    {"fuzz", "sim"},  // the search drives worlds only through the runner
};

bool NeverAllowed(const std::string& from, const std::string& to) {
  return std::any_of(std::begin(kNeverEdges), std::end(kNeverEdges),
                     [&](const Edge& edge) { return from == edge.from && to == edge.to; });
}

struct Crossing {
  std::string file;
  int line = 0;
  std::string include;
};

std::vector<Crossing> Crossings(const std::string& root, const Table& table) {
  std::vector<Crossing> crossings;
  const std::regex include(R"(^\s*#\s*include\s*"([^"]+)\")");
  for (const auto& [folder, uses] : table) {
    const fs::path dir = fs::path(root) / folder;
    if (!fs::is_directory(dir)) continue;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".h" && ext != ".cc") continue;
      const std::string file = folder + "/" + entry.path().filename().string();
      const bool test = file.ends_with("_test.cc");
      std::ifstream in(entry.path());
      std::string text;
      int number = 0;
      while (number < 100'000 && std::getline(in, text)) {
        ++number;
        std::smatch match;
        if (!std::regex_search(text, match, include)) continue;
        const std::string target = FolderOf(match[1], table);
        if (target.empty() || target == folder) continue;
        if (uses.contains(target, test) && !NeverAllowed(folder, target)) continue;
        crossings.push_back({file, number, match[1]});
      }
    }
  }
  return crossings;
}

TEST(Layering, TheReadmeTableNamesEveryFolder) {
  const auto table = ReadLayoutTable(SourceDir() + "/README.md");
  for (const char* folder : {"base", "sim", "core", "zoo", "backends", "backends/etcd", "checker", "runner",
                             "fuzz", "reports", "live", "timing", "compare", "cli", "harness", "bench",
                             "examples/ttl_lock/ttl_lock", "designs/common",
                             "designs/kube_lease", "designs/etcd_election", "designs/redlock",
                             "designs/zk_election"}) {
    EXPECT_TRUE(table.contains(folder)) << folder << " has no row in README.md's layout table";
  }
  for (const auto& [folder, uses] : table) {
    for (const std::string& used : uses.all) EXPECT_TRUE(table.contains(used)) << folder << " may use unknown " << used;
    for (const std::string& used : uses.tests) EXPECT_TRUE(table.contains(used)) << folder << " tests: unknown " << used;
  }
}

TEST(Layering, TheReadmeTableGrantsNoEdgeTheDesignRulesOut) {
  const auto table = ReadLayoutTable(SourceDir() + "/README.md");
  for (const Edge& edge : kNeverEdges) {
    const auto row = table.find(edge.from);
    ASSERT_NE(row, table.end()) << edge.from << " has no row in README.md's layout table";
    EXPECT_FALSE(row->second.all.contains(edge.to)) << edge.from << "'s row may not name " << edge.to;
    EXPECT_FALSE(row->second.tests.contains(edge.to)) << edge.from << "'s tests may not use " << edge.to;
  }
}

TEST(Layering, EveryIncludeFollowsTheReadmeTable) {
  const auto table = ReadLayoutTable(SourceDir() + "/README.md");
  ASSERT_FALSE(table.empty());
  for (const Crossing& crossing : Crossings(SourceDir(), table)) {
    ADD_FAILURE() << crossing.file << ":" << crossing.line << " includes \"" << crossing.include
                  << "\", which its folder may not use (README.md, Layout)";
  }
}

// The check itself: a tree with one include across an arrow fails it.
TEST(Layering, ADeliberateBadIncludeIsCaught) {
  const fs::path root = fs::temp_directory_path() / ("leasesim-layering-test." + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "core");
  fs::create_directories(root / "sim");
  std::ofstream(root / "README.md") << "| `core/` | protocol | — |\n| `sim/` | world | — |\n";
  std::ofstream(root / "core" / "bad.cc") << "#include \"core/env.h\"\n#include \"sim/world.h\"\n";
  const auto table = ReadLayoutTable((root / "README.md").string());
  const std::vector<Crossing> crossings = Crossings(root.string(), table);
  ASSERT_EQ(crossings.size(), 1u);
  EXPECT_EQ(crossings[0].file, "core/bad.cc");
  EXPECT_EQ(crossings[0].line, 2);
  EXPECT_EQ(crossings[0].include, "sim/world.h");
  fs::remove_all(root);
}

// The search may not reach into the world past the runner: an include of
// sim/ from fuzz/ is caught even where a table's row would grant it.
TEST(Layering, TheSearchIncludingTheSimulatorIsCaughtWhateverTheTableSays) {
  const fs::path root = fs::temp_directory_path() / ("leasesim-layering-fuzz." + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "fuzz");
  fs::create_directories(root / "sim");
  fs::create_directories(root / "runner");
  std::ofstream(root / "README.md") << "| `sim/` | world | — |\n| `runner/` | runs | sim |\n"
                                    << "| `fuzz/` | search | runner, sim |\n";
  std::ofstream(root / "fuzz" / "search.cc") << "#include \"runner/run.h\"\n#include \"sim/prng.h\"\n";
  const auto table = ReadLayoutTable((root / "README.md").string());
  const std::vector<Crossing> crossings = Crossings(root.string(), table);
  ASSERT_EQ(crossings.size(), 1u);
  EXPECT_EQ(crossings[0].file, "fuzz/search.cc");
  EXPECT_EQ(crossings[0].line, 2);
  EXPECT_EQ(crossings[0].include, "sim/prng.h");
  fs::remove_all(root);
}

// The rule a protocol plug-in lives by, as the real table states it: a
// protocol (the example's own, in examples/) that reaches into the
// simulator instead of core's seam is caught.
TEST(Layering, AProtocolIncludingTheSimulatorIsCaught) {
  const fs::path root = fs::temp_directory_path() / ("leasesim-layering-protocol." + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path protocol = root / "examples" / "ttl_lock" / "ttl_lock";
  fs::create_directories(protocol);
  fs::copy_file(fs::path(SourceDir()) / "README.md", root / "README.md");
  std::ofstream(protocol / "sneaky.cc") << "#include \"core/protocol.h\"\n#include \"sim/world.h\"\n";
  const auto table = ReadLayoutTable((root / "README.md").string());
  const std::vector<Crossing> crossings = Crossings(root.string(), table);
  ASSERT_EQ(crossings.size(), 1u);
  EXPECT_EQ(crossings[0].file, "examples/ttl_lock/ttl_lock/sneaky.cc");
  EXPECT_EQ(crossings[0].include, "sim/world.h");
  fs::remove_all(root);
}

}  // namespace
