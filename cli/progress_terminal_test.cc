// The long commands' progress line, seen as a user sees it: the leasesim
// binary is run with its stderr on a pseudo-terminal (openpty), then on a
// pipe. On the terminal the line appears — its first report is written at
// once and its last always, so nothing here depends on timing — and is
// erased at the end; on a pipe, or with --quiet, none appears; and stdout
// and the files written are byte-identical either way.

#include <fcntl.h>
#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <tuple>
#include <vector>

#include "base/test_temp_path.h"
#include "cli/command_test_util.h"

namespace {

namespace fs = std::filesystem;
using leasesim::cli::command_test::ReadText;
using leasesim::cli::command_test::SourceDir;

enum class Stderr { kTerminal, kPipe };

struct Captured {
  int code = -1;
  std::string err;  // what reached the terminal or the pipe
  std::string out;  // stdout, from a file
};

// Everything readable from `fd` until the writer is gone (a pipe's EOF, a
// terminal's EIO once the child has exited).
std::string Drain(int fd) {
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got > 0) {
      text.append(buffer, static_cast<std::size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    return text;
  }
}

// Runs `leasesim args...` in `dir` with stdout to a file and stderr on a
// fresh pseudo-terminal (raw, 200 columns) or a pipe.
Captured RunLeasesim(const std::vector<std::string>& args, Stderr where, const fs::path& dir) {
  int reader = -1;
  int writer = -1;
  if (where == Stderr::kTerminal) {
    winsize size{};
    size.ws_row = 24;
    size.ws_col = 200;
    EXPECT_EQ(::openpty(&reader, &writer, nullptr, nullptr, &size), 0);
    termios raw{};
    EXPECT_EQ(::tcgetattr(writer, &raw), 0);
    ::cfmakeraw(&raw);  // bytes as written: no \n -> \r\n
    EXPECT_EQ(::tcsetattr(writer, TCSANOW, &raw), 0);
  } else {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    reader = fds[0];
    writer = fds[1];
  }
  const fs::path out_path = dir / "stdout.txt";
  std::vector<std::string> words = {LEASESIM_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = ::open("/dev/null", O_RDONLY);
    if (out < 0 || in < 0 || ::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(writer, 2) < 0 ||
        ::chdir(dir.c_str()) != 0) {
      ::_exit(127);
    }
    ::close(reader);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(writer);
  Captured captured;
  captured.err = Drain(reader);
  ::close(reader);
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, 0), child);
  captured.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  captured.out = ReadText(out_path);
  return captured;
}

// Every file under `dir`, named, in name order: what a run wrote.
std::string Written(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code missing;
  for (fs::recursive_directory_iterator it(dir, missing), end; !missing && it != end; it.increment(missing)) {
    if (it->is_regular_file()) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  std::string text;
  for (const fs::path& file : files) text += fs::relative(file, dir).string() + ":\n" + ReadText(file);
  return text;
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The same command with stderr on a terminal, then on a pipe, then on a
// terminal with --quiet: the line shows on the first only; stdout and the
// files under out/ are the same all three times.
struct ThreeRuns {
  Captured terminal, pipe, quiet;
  std::string written;  // the files the terminal's run wrote
};

ThreeRuns RunThreeWays(const std::string& name, const std::vector<std::string>& args) {
  ThreeRuns runs;
  std::vector<std::string> contents;
  for (auto [run, where, quiet] : {std::tuple{&runs.terminal, Stderr::kTerminal, false},
                                   std::tuple{&runs.pipe, Stderr::kPipe, false},
                                   std::tuple{&runs.quiet, Stderr::kTerminal, true}}) {
    const fs::path dir = leasesim::base::FreshTestDir("leasesim_progress_" + name + std::to_string(contents.size()));
    std::vector<std::string> words = args;
    if (quiet) words.push_back("--quiet");
    *run = RunLeasesim(words, where, dir);
    contents.push_back(Written(dir / "out"));
  }
  EXPECT_EQ(runs.terminal.out, runs.pipe.out);
  EXPECT_EQ(runs.terminal.out, runs.quiet.out);
  runs.written = contents[0];
  EXPECT_EQ(contents[0], contents[1]);
  EXPECT_EQ(contents[0], contents[2]);
  EXPECT_EQ(runs.terminal.code, runs.pipe.code);
  EXPECT_EQ(runs.terminal.code, runs.quiet.code);
  EXPECT_FALSE(Has(runs.pipe.err, "\r")) << runs.pipe.err;
  EXPECT_FALSE(Has(runs.quiet.err, "\r")) << runs.quiet.err;
  return runs;
}

// The line's last report, then the erasure, end what the terminal got.
void ExpectErasedAtTheEnd(const std::string& err, const std::string& last_report) {
  const std::size_t last = err.rfind("\r[");
  ASSERT_NE(last, std::string::npos) << err;
  EXPECT_EQ(err.compare(last, last_report.size(), last_report), 0) << err;
  EXPECT_NE(err.find("\r\x1b[K", last), std::string::npos) << err;
}

TEST(ProgressTerminal, FuzzShowsCasesCoverageAndViolationsOnATerminalOnly) {
  const ThreeRuns runs =
      RunThreeWays("fuzz", {"fuzz", "--runs", "6", "--seed", "1", "--variant", "correct", "--out", "out"});
  EXPECT_EQ(runs.terminal.code, 0) << runs.terminal.out << runs.terminal.err;
  EXPECT_TRUE(Has(runs.terminal.out, "ok: 6 case(s) passed")) << runs.terminal.out;
  // The first report, before the first case, is written at once.
  EXPECT_EQ(runs.terminal.err.rfind("\r[0/6 cases, ETA ?] 0.0/s; 0 violating, probes 0/", 0), 0u) << runs.terminal.err;
  EXPECT_TRUE(Has(runs.terminal.err, ", near misses 0")) << runs.terminal.err;
  ExpectErasedAtTheEnd(runs.terminal.err, "\r[6/6 cases, ETA 0 s] ");
  EXPECT_TRUE(Has(runs.terminal.err.substr(runs.terminal.err.rfind("\r[")), "; 0 violating, probes "));
  EXPECT_FALSE(Has(runs.pipe.err, "cases,")) << runs.pipe.err;
}

TEST(ProgressTerminal, FuzzFailureClearsTheLineBeforeReportingAndWritesTheSameCounterexample) {
  const ThreeRuns runs = RunThreeWays(
      "fuzz_fail", {"fuzz", "--runs", "50", "--seed", "1", "--variant", "blind-write", "--no-shrink", "--out", "out"});
  EXPECT_TRUE(Has(runs.written, "counterexample.json:\n{")) << runs.written;
  EXPECT_EQ(runs.terminal.code, 1) << runs.terminal.out << runs.terminal.err;
  EXPECT_TRUE(Has(runs.terminal.out, "FAIL property all")) << runs.terminal.out;
  // The failing case counts as violating in the last report.
  const std::string& err = runs.terminal.err;
  const std::size_t last = err.rfind("\r[");
  ASSERT_NE(last, std::string::npos) << err;
  EXPECT_TRUE(Has(err.substr(last), "; 1 violating, probes ")) << err;
  EXPECT_TRUE(err.ends_with("\x1b[K\r\x1b[K")) << err;
}

TEST(ProgressTerminal, ExploreShowsPlacementsAndViolationsOnATerminalOnly) {
  const std::string file = SourceDir() + "/scenarios/explore.json";
  const ThreeRuns runs = RunThreeWays("explore",
                                      {"explore", file, "--scenario", "two-nodes", "--faults", "1", "--limit", "5",
                                       "--variant", "blind-write", "--out", "out"});
  EXPECT_TRUE(Has(runs.terminal.out, "ran 5 of 5 placements")) << runs.terminal.out;
  EXPECT_EQ(runs.terminal.err.rfind("\r[0/5 placements, ETA ?] 0.0/s; 0 violating", 0), 0u) << runs.terminal.err;
  ExpectErasedAtTheEnd(runs.terminal.err, "\r[5/5 placements, ETA 0 s] ");
  // The elapsed time still follows on stderr, on a line of its own.
  EXPECT_TRUE(Has(runs.terminal.err, "\r\x1b[Kexplore: 5 placements in ")) << runs.terminal.err;
  EXPECT_FALSE(Has(runs.pipe.err, "placements,")) << runs.pipe.err;
  EXPECT_TRUE(Has(runs.pipe.err, "explore: 5 placements in ")) << runs.pipe.err;
}

}  // namespace
