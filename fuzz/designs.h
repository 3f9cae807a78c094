#pragma once
// The reference designs side by side (`leasesim designs`): every registered
// design (core::Protocol::design: designs/*), in each token mode, and
// leasesim's own protocol, hunted by the plain generic search — the same
// generator and steering that hunt the zoo, nothing aimed at a design —
// over the same generated cases: cases to the first violation, its kinds,
// the shrunk counterexample, and how many of the cases violate.

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "base/input_error.h"
#include "fuzz/shrink.h"
#include "fuzz/zoo.h"

namespace leasesim::fuzz {

struct DesignRow {
  std::string design;              // the design's name; leasesim's own: "leasesim"
  std::string protocol;            // the registered protocol hunted
  bool token = false;              // its ledger compares the design's token
  int cases = 0;                   // generated cases run
  int violating = 0;               // of them, cases whose run broke a property
  int first_violation = 0;         // 1-based index of the first; 0 = none
  std::vector<std::string> kinds;  // the first violating case's kinds
  std::map<std::string, int> kind_cases;  // kind -> violating cases showing it
  // Cases where the ledger applied a stale writer's batch (stale_token_write
  // or dual_writer): what a token must bring to zero.
  int stale_applied = 0;
  runner::Scenario failing;        // the first violating case
  std::uint64_t run_seed = 0;      // its simulator seed
  bool shrunk = false;
  ShrinkOutcome shrink;            // when shrunk
};

// The table's protocols: leasesim's own first, then every protocol with a
// design, in the order registered; `only` (not empty) keeps those named.
// The bad-input error (path "--protocols") when a name in `only` is not
// such a protocol.
std::variant<std::vector<std::string>, base::InputError> DesignProtocols(const std::vector<std::string>& only);

// `runs` generated cases of session `seed` on `protocol`, every one run
// (the rate needs them all); the first violating one shrunk when `shrink`.
DesignRow HuntDesign(const std::string& protocol, int runs, std::uint64_t seed, bool shrink,
                     const HuntWatcher& watch = {});

// The table as text; `counterexamples[i]` is row i's counterexample file
// ("" none).
std::string FormatDesignTable(const std::vector<DesignRow>& rows, const std::vector<std::string>& counterexamples);

// The table as JSON (designs.json), with the session and the replay
// command of each counterexample.
std::string DesignTableJson(const std::vector<DesignRow>& rows, const std::vector<std::string>& counterexamples,
                            std::uint64_t seed, int runs, const std::string& program);

}  // namespace leasesim::fuzz
