#pragma once
// What a timeline picture of one run shows: plain data in true nanoseconds
// since the start of the run, independent of the simulator and the checker
// (the runner converts a recorded history into it), so the picture can be
// drawn again from timelines.json by `leasesim merge`.

#include <cstdint>
#include <string>
#include <vector>

namespace leasesim::reports {

// A node believed it held the lease over [from_ns, until_ns).
struct TimelineBelief {
  int node = 0;
  std::string holder;  // the process identity, e.g. "n1#2"
  std::int64_t term = 0;
  std::int64_t from_ns = 0;
  std::int64_t until_ns = 0;
  std::string end_reason;
  friend bool operator==(const TimelineBelief&, const TimelineBelief&) = default;
};

// The store's record named `holder` (empty: released) over [from_ns, until_ns).
struct TimelineHolder {
  int node = 0;  // the node whose write put the record there
  std::string holder;
  std::int64_t term = 0;
  std::int64_t from_ns = 0;
  std::int64_t until_ns = 0;
  friend bool operator==(const TimelineHolder&, const TimelineHolder&) = default;
};

// An injected fault. Instantaneous faults (crash, restart, clock_step) have
// end_ns == start_ns. `nodes` empty: the fault hit no node lane (e.g. a
// store-side fault, or a partition cutting only the store off).
struct TimelineFault {
  std::string kind;
  std::vector<int> nodes;
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  bool within_assumptions = true;
  std::string description;
  friend bool operator==(const TimelineFault&, const TimelineFault&) = default;
};

// One business write attempt at the ledger. result: "applied",
// "rejected_stale", "duplicate" or "lost".
struct TimelineWrite {
  int node = 0;
  std::string holder;
  std::int64_t token = 0;
  std::int64_t window = 0;
  std::int64_t sent_ns = 0;
  std::int64_t arrived_ns = -1;  // -1: never arrived
  std::string result;
  bool lease_valid_at_send = true;
  friend bool operator==(const TimelineWrite&, const TimelineWrite&) = default;
};

struct TimelineViolation {
  std::string kind;
  std::string message;
  std::int64_t at_ns = 0;
  std::vector<int> nodes;
  bool expected = false;
  friend bool operator==(const TimelineViolation&, const TimelineViolation&) = default;
};

struct Timeline {
  std::string scenario;
  std::uint64_t seed = 0;
  bool ok = true;
  std::uint64_t trace_hash = 0;
  int node_count = 0;
  std::int64_t end_ns = 0;
  std::vector<TimelineBelief> beliefs;
  std::vector<TimelineHolder> holders;
  std::vector<TimelineFault> faults;
  std::vector<TimelineWrite> writes;
  std::vector<TimelineViolation> violations;
  std::vector<std::string> notes;
  std::string replay_command;
  friend bool operator==(const Timeline&, const Timeline&) = default;
};

// How many failing runs report.html draws a timeline for (the first ones in
// sweep order); the rest are listed with their replay commands.
inline constexpr std::size_t kTimelinesMax = 20;

}  // namespace leasesim::reports
