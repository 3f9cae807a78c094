#pragma once
// SHA-256 (FIPS 180-4) of a byte string, for content digests in outputs:
// summary.json names the scenario file and each scenario by digest, so
// tools (leasesim compare, merge) can tell whether two outputs ran the same
// thing. Written from the standard; not used for security.

#include <string>
#include <string_view>

namespace leasesim::base {

// "sha256:" followed by 64 lowercase hex digits.
std::string Sha256Digest(std::string_view bytes);

}  // namespace leasesim::base
