#pragma once
// What the reports need of one run, independent of how it was produced.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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
  // The command that replays this run. Reports use it for failing runs only
  // (summary.json does not keep it for passing ones, so a merge cannot
  // restore it there).
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

struct SweepSummary {
  std::string scenario_file;
  std::string seeds;  // as the user wrote them
  // The selected scenarios, in file order (also those with no run in a shard).
  std::vector<std::string> scenarios;
  Shard shard;
  // What makes two sweeps comparable (leasesim compare), each optional:
  // the --variant every scenario ran (empty: each its own), the digest of
  // the scenario file's bytes, and per scenario the digest of its content.
  std::string variant;
  std::string file_digest;
  std::map<std::string, std::string> scenario_digests;
  std::vector<RunSummary> runs;  // in (scenario order, seed order)
  int failed() const;
};

}  // namespace leasesim::reports
