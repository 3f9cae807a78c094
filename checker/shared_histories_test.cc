// Every reference history in ../shared/histories gets the verdict listed in
// its expected.tsv (Porcupine's verdicts).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/edn_import.h"
#include "checker/jepsen_log_import.h"

namespace leasesim::checker {
namespace {

std::filesystem::path HistoriesDir() {
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  return std::filesystem::path(root ? root : ".") / ".." / "shared" / "histories";
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct Expected {
  std::string file;
  std::size_t ops;
  bool linearizable;
};

std::vector<Expected> ReadExpected(const std::filesystem::path& dir) {
  std::vector<Expected> rows;
  std::istringstream in(ReadAll(dir / "expected.tsv"));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    Expected row;
    std::string verdict;
    if (fields >> row.file >> row.ops >> verdict) {
      row.linearizable = verdict == "true";
      rows.push_back(row);
    }
  }
  return rows;
}

TEST(SharedHistories, EveryFileGetsItsExpectedVerdict) {
  const std::filesystem::path dir = HistoriesDir();
  if (!std::filesystem::exists(dir / "expected.tsv")) {
    GTEST_SKIP() << "shared histories not found at " << dir << " (set LEASESIM_SOURCE_DIR)";
  }
  const std::vector<Expected> rows = ReadExpected(dir);
  ASSERT_EQ(rows.size(), 56u);
  for (const Expected& row : rows) {
    SCOPED_TRACE(row.file);
    const std::string text = ReadAll(dir / row.file);
    LinResult result;
    std::size_t ops = 0;
    if (row.file.starts_with("jepsen-etcd/")) {
      ReadResult<CasRegisterOp> read = ImportJepsenLog(text);
      ASSERT_TRUE(read.ok()) << read.error->ToString();
      ops = read.records.size();
      result = CheckCasRegister(read.records);
    } else {
      ReadResult<KvOp> read = ImportEdnKv(text);
      ASSERT_TRUE(read.ok()) << read.error->ToString();
      ops = read.records.size();
      result = CheckKv(read.records);
    }
    EXPECT_EQ(ops, row.ops);
    EXPECT_EQ(result.verdict,
              row.linearizable ? LinVerdict::kLinearizable : LinVerdict::kNotLinearizable)
        << result.explanation;
    if (result.verdict == LinVerdict::kNotLinearizable) {
      EXPECT_NE(result.explanation.find("cannot be placed"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace leasesim::checker
