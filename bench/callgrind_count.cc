#include "bench/callgrind_count.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace leasesim::bench {
namespace {

// What callgrind counts: the function bench_ratio --profile runs the hour in.
constexpr const char* kCountedFunction = "leasesim::bench::RunStandardHour*";

// Runs `args` (args[0] looked up on the caller's PATH) in `dir`, with
// nothing in its environment, its output to `log`; the exit status, or 127
// when it could not be started.
int RunWithoutEnvironment(const std::string& dir, const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  char* no_environment[] = {nullptr};
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) return 127;
  if (child == 0) {
    if (std::freopen(log.c_str(), "w", stdout) == nullptr || dup2(fileno(stdout), fileno(stderr)) < 0 ||
        chdir(dir.c_str()) != 0) {
      _exit(127);
    }
    execvpe(argv[0], argv.data(), no_environment);
    _exit(127);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The "totals:" line of a callgrind output file (its one event, Ir).
std::optional<std::int64_t> ReadTotal(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("totals: ", 0) != 0) continue;
    char* end = nullptr;
    const long long total = std::strtoll(line.c_str() + 8, &end, 10);
    if (end == line.c_str() + 8 || total <= 0) return std::nullopt;
    return total;
  }
  return std::nullopt;
}

std::string ReadLog(const std::string& path) {
  std::ifstream in(path);
  std::string text, line;
  while (std::getline(in, line)) text += "  " + line + "\n";
  return text;
}

}  // namespace

std::string SelfExecutable() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "" : self.string();
}

InstructionCount CountHourInstructions(const std::string& binary, std::uint64_t seed) {
  const std::filesystem::path path(binary);
  const std::string stem = "leasesim-callgrind-" + std::to_string(getpid());
  const std::filesystem::path out = std::filesystem::temp_directory_path() / (stem + ".out");
  const std::filesystem::path log = std::filesystem::temp_directory_path() / (stem + ".log");
  const std::vector<std::string> args = {
      "valgrind", "--tool=callgrind", "--callgrind-out-file=" + out.string(),
      std::string("--toggle-collect=") + kCountedFunction, "--dump-instr=no", "--compress-strings=no",
      "./" + path.filename().string(), "--profile", "--seed", std::to_string(seed)};
  const int status = RunWithoutEnvironment(path.parent_path().string(), args, log.string());
  const std::optional<std::int64_t> total = status == 0 ? ReadTotal(out.string()) : std::nullopt;
  const std::string output = ReadLog(log.string());
  std::error_code ignored;
  std::filesystem::remove(out, ignored);
  std::filesystem::remove(log, ignored);
  if (status == 127) {
    return "could not run valgrind (is it installed? scripts/install-deps.sh --tests installs it)\n" + output;
  }
  if (status != 0) return "valgrind --tool=callgrind exited " + std::to_string(status) + ":\n" + output;
  if (!total) return "callgrind wrote no instruction total (" + out.string() + ")\n" + output;
  return *total;
}

}  // namespace leasesim::bench
