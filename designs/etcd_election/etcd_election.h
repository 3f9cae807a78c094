#pragma once
// etcd's election recipe (go.etcd.io/etcd/client/v3/concurrency: Session
// and Election) as a protocol plug-in on the world's KV store (etcd's data
// model): a session lease kept alive by the client, a campaign key under a
// prefix attached to it, and the lowest create revision leads. See
// designs/etcd_election/etcd_election.cc for each decision and its source,
// docs/DESIGNS.md for what the search finds.

#include "core/protocol.h"

namespace leasesim::designs {

// Registers "etcd-election" (no fencing: the ledger only deduplicates by
// window) and "etcd-election-fenced" (the ledger compares the leader key's
// create revision).
void RegisterEtcdElection(core::ProtocolRegistry& registry);

}  // namespace leasesim::designs
