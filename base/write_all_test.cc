// The write-all loop: partial writes and EINTR are retried, real errors end it.

#include "base/write_all.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include <gtest/gtest.h>

namespace leasesim::base {
namespace {

std::string written;
int calls = 0;

// Writes at most 3 bytes per call and is interrupted before every other one.
ssize_t Choppy(int, const void* data, std::size_t size) {
  if (++calls % 2 == 1) {
    errno = EINTR;
    return -1;
  }
  const std::size_t n = size < 3 ? size : 3;
  written.append(static_cast<const char*>(data), n);
  return static_cast<ssize_t>(n);
}

ssize_t AlwaysInterrupted(int, const void*, std::size_t) {
  ++calls;
  errno = EINTR;
  return -1;
}

ssize_t NoSpace(int, const void*, std::size_t) {
  errno = ENOSPC;
  return -1;
}

ssize_t NoProgress(int, const void*, std::size_t) { return 0; }

TEST(WriteAll, RetriesPartialWritesAndInterruptions) {
  written.clear();
  calls = 0;
  const std::string line = "{\"t\":\"si\",\"op\":17}\n";
  EXPECT_TRUE(WriteAllWith(&Choppy, 1, line));
  EXPECT_EQ(written, line);
  EXPECT_EQ(calls, static_cast<int>(2 * ((line.size() + 2) / 3)));  // writes of <= 3 bytes, each after an EINTR
  EXPECT_TRUE(WriteAllWith(&Choppy, 1, ""));
}

TEST(WriteAll, GivesUpOnRealErrorsAndEndlessInterruptions) {
  errno = 0;
  EXPECT_FALSE(WriteAllWith(&NoSpace, 1, "x"));
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_FALSE(WriteAllWith(&NoProgress, 1, "x"));
  EXPECT_EQ(errno, EIO);
  calls = 0;
  EXPECT_FALSE(WriteAllWith(&AlwaysInterrupted, 1, "x"));
  EXPECT_EQ(errno, EINTR);
  EXPECT_EQ(calls, 1000);  // bounded
}

TEST(WriteAll, WritesToARealPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string data(1000, 'z');
  EXPECT_TRUE(WriteAll(fds[1], data));
  ::close(fds[1]);
  std::string read_back;
  char buffer[256];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) read_back.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  EXPECT_EQ(read_back, data);
  EXPECT_FALSE(WriteAll(fds[1], "closed"));
  EXPECT_EQ(errno, EBADF);
}

}  // namespace
}  // namespace leasesim::base
