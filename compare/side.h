#pragma once
// One side of a comparison as read from disk: the summary.json a `leasesim
// run` (or `merge`) left in a directory, or the summaries of several
// `leasesim live` runs (a directory holding one live summary.json, or
// subdirectories that each hold one). Also the check that two sides can be
// compared at all: the same scenario file content, scenarios and seeds.

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/input_error.h"
#include "reports/run_summary.h"

namespace leasesim::compare {

struct Side {
  std::string directory;
  bool live = false;
  // The sweep; for live sides, every live run pooled (in directory order).
  reports::SweepSummary sweep;
  std::vector<std::string> sources;  // the summary.json files read
};

// Live summaries are pooled from at most this many subdirectories.
inline constexpr std::size_t kLiveRunsMax = 1000;

// The side, or an error naming the directory or file and what is wrong.
std::variant<Side, std::string> LoadSide(const std::string& directory);

// What two sides are compared on: the scenarios both hold (in base order),
// notes for the reader (a scenario only one side has, content that changed
// when that is allowed), and, when they are not the same experiment, the
// bad-input error that refuses them: its path the summary.json field the
// sides disagree on (seeds, shard, file_digest, scenarios, runs), its rule
// how.
struct Pairing {
  std::vector<std::string> scenarios;
  std::vector<std::string> notes;
  std::optional<base::InputError> refusal;
};

// allow_scenario_change: differing file or scenario digests (or scenario
// lists) become notes instead of a refusal; seeds must still agree.
Pairing PairSides(const Side& base, const Side& next, bool allow_scenario_change);

}  // namespace leasesim::compare
