#pragma once
// What the reports need of one run, independent of how it was produced.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/version.h"

namespace leasesim::reports {

struct ViolationSummary {
  std::string kind;
  std::string message;
  std::int64_t at_ns = 0;
  bool expected = false;  // the scenario listed this kind as expected
};

struct RunSummary {
  std::string scenario;
  std::uint64_t seed = 0;
  bool ok = true;
  std::uint64_t trace_hash = 0;
  std::vector<ViolationSummary> violations;
  std::vector<std::string> notes;
  std::map<std::string, std::int64_t> figures;
  // The command that replays this run (summary.json keeps it for every run,
  // so a merge restores it; junit.xml carries it as a property).
  std::string replay_command;
};

// Which part of a sweep a summary holds: runs whose index in the full sweep
// order (scenario order, then seed order) is congruent to index-1 mod count.
struct Shard {
  int index = 1;  // 1-based
  int count = 1;
  bool whole() const { return count == 1; }
  friend bool operator==(const Shard&, const Shard&) = default;
};

// The file's suite-wide requirements (require_fault_points, require_probes)
// and, once judged, those no run met. Only a whole sweep can judge them: a
// shard records them and `leasesim merge` judges the merged runs.
struct SuiteRequirements {
  std::vector<std::string> fault_points;  // each must fire in some run
  std::vector<std::string> probes;        // each must be reached in some run
  bool judged = false;                    // false in a shard's output
  std::vector<std::string> fault_points_unmet;  // when judged
  std::vector<std::string> probes_unmet;        // when judged
  bool any() const { return !fault_points.empty() || !probes.empty(); }
  // Judged with nothing unmet; a shard's (unjudged) requirements fail nothing.
  bool failed() const { return judged && (!fault_points_unmet.empty() || !probes_unmet.empty()); }
};

struct SweepSummary {
  // The build that ran the sweep (base::Version()), and the SHA-256 of the
  // scenario file's bytes (64 hex digits; empty when there is no file).
  std::string leasesim_version = std::string(base::Version());
  std::string file_digest;
  std::string scenario_file;
  std::string seeds;  // as the user wrote them
  // The selected scenarios, in file order (also those with no run in a shard).
  std::vector<std::string> scenarios;
  Shard shard;
  // What makes two sweeps comparable (leasesim compare), each optional:
  // the --protocol every scenario ran (empty: each its own), file_digest
  // above, and per scenario the SHA-256 (64 hex digits) of its content.
  std::string protocol;
  std::map<std::string, std::string> scenario_digests;
  // Per scenario, the protocol its runs ran (the override, or its own).
  std::map<std::string, std::string> scenario_protocols;
  std::vector<RunSummary> runs;  // in (scenario order, seed order)
  SuiteRequirements suite;
  // Why the sweep ended before its last run (--fail-fast); empty when whole.
  std::string stopped;
  int failed() const;  // failing runs (the suite's verdict is suite.failed())
};

}  // namespace leasesim::reports
