#pragma once
// How a 64-bit hash is written wherever a person or a file reads one (a
// run's trace hash in the console, summary.json, junit.xml, report.html and
// timelines.json): 16 lowercase hex digits, zero-padded, so the same run
// prints the same text everywhere and goldens compare byte for byte.

#include <cstdint>
#include <string>

namespace leasesim::base {

// "000000000000beef" for 0xbeef.
std::string HashText(std::uint64_t hash);

}  // namespace leasesim::base
