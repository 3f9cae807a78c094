#pragma once
// One replica process of a live run, as a function: the `live-node`
// command of any harness binary (harness/harness.h), so each node runs the
// protocols its program registered, and the leasesim-live-node binary.

#include <string_view>

namespace leasesim::live {

// The hidden command word a live run starts its nodes with.
inline constexpr std::string_view kLiveNodeCommand = "live-node";

// argv[0] is the command's name; the flags follow (see its usage). Runs
// until killed or SIGTERM; returns the process exit code (2 usage, 3 etcd
// refuses the node's credentials or permissions).
int RunLiveNode(int argc, char** argv);

}  // namespace leasesim::live
