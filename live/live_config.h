#pragma once
// A live run's configuration checked before anything starts: the options'
// rules (timing, node count, duration, variant, faults against the run's
// shape), the protocol timing they give, and the node executable to start.

#include <optional>
#include <string>

#include "core/timing.h"
#include "live/live_run.h"

namespace leasesim::live {

// Why a phase of a run could not go on: the exit code and the message.
struct RunFailure {
  int exit_code = 2;
  std::string message;
};

// The variant list as passed to the nodes ("correct" when empty).
std::string VariantList(const std::string& variant);

core::TimingConfig TimingOf(const LiveOptions& options);

// Every rule an option must keep (exit 2), in the order a user would fix them.
std::optional<RunFailure> ValidateOptions(const LiveOptions& options);

// The node executable: --node-binary, or leasesim-live-node beside this
// executable; a failure (exit 3) when it is not there.
std::optional<RunFailure> ResolveNodeBinary(const LiveOptions& options, std::string& binary);

}  // namespace leasesim::live
