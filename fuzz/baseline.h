#pragma once
// `leasesim fuzz --baseline-protocol NAME`: a differential session. Every case
// the generic search generates (fuzz/search.h, steered by the new side's
// runs) runs on both protocols — the new one (--protocol, default leasesim)
// and the baseline V — with the same scenario and simulator seed, so the
// same fault script hits both. A case is worse when the new side shows a
// violation (one the property judges) of a kind the baseline's run does
// not; better when it is the other way round. The session does not stop at
// a failure: it runs every case and keeps the first worse ones, the first
// of them shrunk while the baseline still passes it.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "fuzz/fuzz.h"
#include "fuzz/search.h"
#include "runner/scenario.h"

namespace leasesim::fuzz {

inline constexpr std::size_t kWorseCasesKept = 10;

struct WorseCase {
  int index = 0;                // 1-based case number in the session
  runner::Scenario scenario;    // the new side's case (explicit faults); named "worse-K"
  std::uint64_t seed = 0;       // the simulator seed both sides ran
  std::vector<checker::Violation> new_violations;  // of kinds the baseline's run did not show
  std::vector<std::string> baseline_kinds;         // what the baseline's run did show (may be empty)
  bool shrunk = false;
};

struct BaselineOutcome {
  int cases = 0;
  int worse = 0;
  int better = 0;       // the baseline shows a kind the new side does not (and the new side nothing worse)
  int both_failing = 0; // each side fails, neither with a kind the other lacks
  std::vector<WorseCase> worse_cases;  // the first kWorseCasesKept, in session order
  SearchOutcome search;
};

// An error message when the options cannot run differentially (an unknown
// baseline, or the determinism property, which compares a run with itself).
std::string CheckBaseline(const FuzzOptions& options, const std::string& baseline_protocol);

BaselineOutcome RunAgainstBaseline(const FuzzOptions& options, const std::string& baseline_protocol, std::ostream& log);

}  // namespace leasesim::fuzz
