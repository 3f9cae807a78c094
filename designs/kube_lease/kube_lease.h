#pragma once
// client-go's leader election (k8s.io/client-go/tools/leaderelection) on a
// coordination.k8s.io Lease, as a protocol plug-in: the Lease object is one
// key's value on the world's KV store (etcd's data model, as the API server
// keeps it), updated by compare-and-set on its resourceVersion (the key's
// mod revision). See designs/kube_lease/kube_lease.cc for each decision and
// the source it follows, docs/DESIGNS.md for what the search finds.

#include "core/protocol.h"

namespace leasesim::designs {

// Registers "kube-lease" (no fencing: the ledger only deduplicates by
// window) and "kube-lease-fenced" (the ledger compares leaseTransitions).
void RegisterKubeLease(core::ProtocolRegistry& registry);

}  // namespace leasesim::designs
