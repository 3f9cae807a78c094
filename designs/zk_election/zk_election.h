#pragma once
// `zk-election` and `zk-election-fenced`: ZooKeeper's leader recipe
// (Programmer's Guide, "Leader Election": ephemeral sequential nodes under
// a prefix, the lowest leads, each candidate watches its predecessor) as
// Apache Curator's LeaderLatch runs it with Curator 5's default
// (Standard) ConnectionStateErrorPolicy, on a ZooKeeper-model KV store. The
// belief is LeaderLatch.hasLeadership(); the token is the node's sequence.
// designs/zk_election/README.md says what follows which source.

#include "core/protocol.h"

namespace leasesim::designs {

inline constexpr const char* kZkElectionProtocol = "zk-election";
inline constexpr const char* kZkElectionFencedProtocol = "zk-election-fenced";

void RegisterZkElection(core::ProtocolRegistry& registry);

}  // namespace leasesim::designs
