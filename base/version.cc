#include "base/version.h"

// Generated into the build tree by cmake/version_header.cmake.
#include "leasesim_version_generated.h"

namespace leasesim::base {

std::string_view VersionNumber() { return LEASESIM_VERSION_NUMBER; }

std::string_view Version() { return LEASESIM_VERSION_FULL; }

}  // namespace leasesim::base
