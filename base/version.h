#pragma once
// The leasesim version this binary was built as, for `leasesim --version`
// and the reports: a sweep's outputs name the build that produced them, and
// `leasesim merge` refuses shards of different builds.

#include <string_view>

namespace leasesim::base {

// CMake's project version, e.g. "0.3.0".
std::string_view VersionNumber();

// The project version plus, when built from a git checkout that is not
// exactly the release tag, what `git describe --tags --always --dirty` said:
// "0.3.0+git.37e42dd" or "0.3.0+git.37e42dd.dirty".
std::string_view Version();

}  // namespace leasesim::base
