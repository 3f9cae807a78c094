#pragma once
// The trace of a run: every observable step folds into a running 64-bit
// hash that identifies the run (same seed and scenario, same hash). When
// retention is on, the steps are also kept, to print them or to find the
// first step at which two runs diverge.

#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace leasesim::sim {

struct TraceEvent {
  Nanos time;
  std::int32_t host;
  const char* kind;  // a string literal: what happened
  std::int64_t a;
  std::int64_t b;
  std::string ToJson() const;
  friend bool operator==(const TraceEvent& x, const TraceEvent& y);
};

class Trace {
 public:
  explicit Trace(bool retain_events) : retain_(retain_events) {}

  void Record(Nanos time, std::int32_t host, const char* kind, std::int64_t a = 0,
              std::int64_t b = 0);
  std::uint64_t hash() const { return hash_; }
  std::uint64_t count() const { return count_; }
  const std::vector<TraceEvent>& events() const { return events_; }

 private:
  static constexpr std::size_t kRetainedEventsMax = 20'000'000;
  // Kinds are string literals: remember each one's content hash by address
  // (the hash itself depends only on the content, so runs stay comparable),
  // in an open-addressed table that never evicts: a direct-mapped cache
  // thrashed whenever two busy kinds' addresses shared a slot, which moved
  // with every rebuild. Half full at most; a kind past that is hashed anew.
  static constexpr std::size_t kKindSlots = 256;  // a power of two
  static constexpr std::size_t kKindProbesMax = 16;
  std::uint64_t KindHash(const char* kind);
  const char* kind_keys_[kKindSlots] = {};
  std::uint64_t kind_hashes_[kKindSlots] = {};
  std::size_t kinds_kept_ = 0;
  bool retain_;
  std::uint64_t hash_ = 0x6a09e667f3bcc909ULL;
  std::uint64_t count_ = 0;
  std::vector<TraceEvent> events_;
};

std::string FormatHash(std::uint64_t hash);

}  // namespace leasesim::sim
