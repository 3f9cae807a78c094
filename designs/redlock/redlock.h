#pragma once
// `redlock`: the Redlock algorithm (redis.io/docs/latest/develop/use/patterns/
// distributed-locks/) on N independent single-server Redis stores, as a
// leader election for the settlement job: a service that runs its job
// while it holds the lock, extending it as node-redlock's `using` does.
// It has no fencing token (its random value is not ordered), so it is
// registered untokened only. designs/redlock/README.md says what follows
// which source, and what the checker can and cannot judge for it.

#include "core/protocol.h"

namespace leasesim::designs {

inline constexpr const char* kRedlockProtocol = "redlock";

void RegisterRedlock(core::ProtocolRegistry& registry);

}  // namespace leasesim::designs
