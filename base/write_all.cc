#include "base/write_all.h"

#include <unistd.h>

#include <cerrno>

namespace leasesim::base {

bool WriteAllWith(WriteCall call, int fd, std::string_view data) {
  // Each round either writes at least one byte or was interrupted; a signal
  // storm that interrupts this many writes in a row is taken as an error.
  constexpr int kInterruptsMax = 1000;
  int interrupts = 0;
  while (!data.empty()) {
    const ssize_t n = call(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR && ++interrupts < kInterruptsMax) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;  // no progress on a non-empty buffer: retrying would spin
      return false;
    }
    interrupts = 0;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool WriteAll(int fd, std::string_view data) { return WriteAllWith(&::write, fd, data); }

}  // namespace leasesim::base
