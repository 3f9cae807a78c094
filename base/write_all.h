#pragma once
// Writing a whole buffer to a POSIX file descriptor: write(2) may write only
// part of it, or be interrupted by a signal before writing anything (EINTR);
// both are retried until every byte is out or a real error occurs.

#include <sys/types.h>

#include <cstddef>
#include <string_view>

namespace leasesim::base {

// True when all of `data` was written; false on an error (errno says which),
// after which an unknown prefix of `data` may have been written.
bool WriteAll(int fd, std::string_view data);

// The same loop over any write(2)-like call (tests pass one that writes a
// byte at a time or fails with EINTR on purpose).
using WriteCall = ssize_t (*)(int fd, const void* data, std::size_t size);
bool WriteAllWith(WriteCall call, int fd, std::string_view data);

}  // namespace leasesim::base
