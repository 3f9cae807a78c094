#pragma once
// What the command tests share: a command run in-process (its exit status
// and both streams), a written file's text, and the source tree (ctest sets
// LEASESIM_SOURCE_DIR; run by hand from the checkout, the working directory).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace leasesim::cli::command_test {

// What one invocation of a command did.
struct Outcome {
  int code = 0;
  std::string out;
  std::string err;
};

using Command = int (*)(const std::vector<std::string>&, std::ostream&, std::ostream&);

inline Outcome Invoke(Command command, const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = command(args, out, err);
  return {code, out.str(), err.str()};
}

// A file's whole text; one that cannot be opened fails the test.
inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.is_open()) << path << " cannot be read";
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string SourceDir() {
  const char* root = std::getenv("LEASESIM_SOURCE_DIR");
  return root == nullptr ? "." : root;
}

}  // namespace leasesim::cli::command_test
