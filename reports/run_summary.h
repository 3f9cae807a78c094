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
  std::string replay_command;
};

struct SweepSummary {
  std::string scenario_file;
  std::string seeds;  // as the user wrote them
  std::vector<RunSummary> runs;  // in (scenario order, seed order)
  int failed() const;
};

}  // namespace leasesim::reports
