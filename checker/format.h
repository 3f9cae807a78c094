#pragma once
// Human-readable rendering of true times for violation messages.

#include <string>

#include "checker/history.h"

namespace leasesim::checker {

// "12.345s" (milliseconds precision; exact nanoseconds are in the history).
std::string FormatTime(TimeNs ns);

// A span of true time in milliseconds to the microsecond: "3.217 ms".
std::string FormatDuration(TimeNs ns);

}  // namespace leasesim::checker
