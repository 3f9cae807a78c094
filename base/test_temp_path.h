#pragma once
// Scratch paths for tests, unique to the test process: two suites running
// at once on one machine (two build trees, CI beside a developer) must not
// share, or delete, each other's files; and a test directory is removed
// when its process exits, so repeated suites leave nothing behind.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace leasesim::base {

inline std::filesystem::path TestTempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()));
}

namespace test_temp_internal {
inline std::vector<std::filesystem::path>& Made() {
  static std::vector<std::filesystem::path> made;
  return made;
}
inline void RemoveMade() {
  std::error_code ignored;
  for (const std::filesystem::path& dir : Made()) std::filesystem::remove_all(dir, ignored);
}
}  // namespace test_temp_internal

// An empty directory for one test, removed when the process exits.
inline std::filesystem::path FreshTestDir(const std::string& name) {
  const std::filesystem::path dir = TestTempPath(name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<std::filesystem::path>& made = test_temp_internal::Made();
  if (made.empty()) std::atexit(test_temp_internal::RemoveMade);
  made.push_back(dir);
  return dir;
}

}  // namespace leasesim::base
