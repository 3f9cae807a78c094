#pragma once
// The lease record as stored under one key per job. The record is never
// deleted, so terms only grow; an empty holder means "released".

#include <cstdint>
#include <string>

#include "base/units.h"

namespace leasesim::core {

using base::Nanos;

struct LeaseRecord {
  std::string holder;             // unique per process incarnation; empty = released
  std::int64_t term = 0;          // the fencing token
  Nanos duration_ns = 0;          // how long the holder's lease lasts
  // Informational only: never used to judge expiry (clocks disagree).
  Nanos acquired_wall_ns = 0;
  Nanos renewed_wall_ns = 0;
  std::string preferred_successor;  // set by a graceful release, may be empty
  friend bool operator==(const LeaseRecord&, const LeaseRecord&) = default;
};

// A record with the version the store assigned it (per key: 1 on create,
// +1 on every change). The version is the compare-and-set guard.
struct VersionedRecord {
  bool found = false;
  std::int64_t version = 0;
  LeaseRecord record;
};

}  // namespace leasesim::core
