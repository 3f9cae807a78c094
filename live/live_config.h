#pragma once
// A live run's configuration checked before anything starts: the options'
// rules (timing, node count, duration, protocol, faults against the run's
// shape), the protocol timing they give, and the node executable to start.

#include <optional>
#include <string>
#include <vector>

#include "core/timing.h"
#include "live/live_run.h"

namespace leasesim::live {

// Why a phase of a run could not go on: the exit code and the message.
struct RunFailure {
  int exit_code = 2;
  std::string message;
};

// The protocol the nodes run: the option, or the registry's default when empty.
std::string ProtocolName(const std::string& protocol);

core::TimingConfig TimingOf(const LiveOptions& options);

// Every rule an option must keep (exit 2), in the order a user would fix them.
std::optional<RunFailure> ValidateOptions(const LiveOptions& options);

// The node executable and the words before its flags: --node-binary (no
// words), or this program itself with "live-node" (harness/harness.h); a
// failure (exit 3) when it is not there.
std::optional<RunFailure> ResolveNodeBinary(const LiveOptions& options, std::string& binary,
                                            std::vector<std::string>& words);

}  // namespace leasesim::live
