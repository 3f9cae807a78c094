#pragma once
// ttl-lock: a small lease lock of a team's own, put under leasesim as a
// protocol plug-in (docs/YOUR_PROTOCOL.md). One key holds the lock record;
// a candidate takes it over by compare-and-set once the record stood still
// for the holder's lease; the holder renews it by compare-and-set and runs
// the settlement job while its lease is valid, writing each window's batch
// to the fenced ledger with its term as the token.
//
// It has one deliberate, realistic mistake, for the example to find: as
// shipped ("ttl-lock"), the holder measures its own lease on the wall clock
// (a `time.Now()` deadline), so a wall clock stepped back by NTP makes it
// act on a lease that already ended. "ttl-lock-fixed" measures it on the
// boot clock (CLOCK_BOOTTIME), which no step moves.
//
// It sees only leasesim's core seam (core/protocol.h and what it includes).

#include <string>

#include "core/protocol.h"

namespace ttl_lock {

// The protocol, registered as `name`; `wall_clock_validity` keeps the mistake.
leasesim::core::Protocol TtlLockProtocol(std::string name, bool wall_clock_validity);

}  // namespace ttl_lock
