#pragma once
// The aimed bug-zoo hunt: every broken protocol variant (zoo/variants.h)
// with the scenario that hunts it (scenarios/zoo.json) — a base world,
// sometimes a hand-written setup fault, and a nemesis whose faults are drawn
// from each seed. The harness is
// measured by how many seeds it needs to catch each variant, and by how
// small the shrunk counterexample is; the correct protocol must show no
// violation on any of these scenarios.

#include <cstdint>
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "base/input_error.h"
#include "fuzz/shrink.h"
#include "runner/scenario.h"

namespace leasesim::fuzz {

struct ZooEntry {
  std::string variant;        // the zoo variant's name
  runner::Scenario scenario;  // with its nemesis; variant set
};

// The zoo scenario file's entries, one per scenario (each must name a
// broken variant), or the bad-input error saying why the file cannot be
// used (its field's path and rule; the caller names the file: In(path)).
std::variant<std::vector<ZooEntry>, base::InputError> LoadZoo(const std::string& path);

// The label of the correct protocol's row (its false alarms), beside the
// variants' rows; ZooRow::correct marks that row.
inline constexpr const char* kCorrectRow = "correct";

// Every variant escaping fewer seeds than this is a regression.
inline constexpr int kZooSeedBudget = 30;

struct ZooRow {
  std::string variant;        // kCorrectRow in the correct protocol's row
  bool correct = false;       // the correct protocol's row, not a variant's hunt
  bool caught = false;
  std::vector<std::string> kinds;  // violation kinds of the first catching run
  std::uint64_t first_seed = 0;    // seeds until the first catch (seeds run 1, 2, ...); 0 = escaped
  int seeds_run = 0;
  bool shrunk = false;
  ShrinkOutcome shrink;            // when shrunk
  // For the correct protocol's row: runs and false alarms over every zoo scenario.
  int runs = 0;
  int false_alarms = 0;
  std::string false_alarm;         // the first, as "scenario seed N: kind"
};

// Where one hunt stands, for a progress display: runs made (seeds, or
// generated cases) of at most runs_max; then whether it is shrinking.
struct HuntProgress {
  int runs = 0;
  int runs_max = 0;
  bool shrinking = false;
};
using HuntWatcher = std::function<void(const HuntProgress&)>;

// Hunts one variant over seeds 1..seeds; stops at the first catch and
// shrinks it when `shrink`. `watch` (optional) hears of every run.
ZooRow HuntVariant(const ZooEntry& entry, int seeds, bool shrink, const HuntWatcher& watch = {});

// Hunts one variant with the generic search alone (fuzz/search.h): no
// variant-specific world, no hand-written fault; at most runs_max generated
// cases of session `seed`; row.first_seed is the number of cases run to the
// first catch.
ZooRow HuntGeneric(const std::string& variant, int runs_max, std::uint64_t seed, bool shrink,
                   const HuntWatcher& watch = {});

// The generic search with the correct protocol: runs and false alarms.
ZooRow CheckCorrectGeneric(int runs, std::uint64_t seed, const HuntWatcher& watch = {});

// The table `leasesim zoo --generic` prints: each variant's cases to the
// first catch by the generic search beside the aimed hunt's seeds.
std::string FormatGenericTable(const std::vector<ZooRow>& generic, const std::vector<ZooRow>& aimed);

// The correct protocol over every zoo scenario for seeds 1..seeds.
ZooRow CheckCorrect(const std::vector<ZooEntry>& entries, int seeds, const HuntWatcher& watch = {});

// The table `leasesim zoo` prints.
std::string FormatZooTable(const std::vector<ZooRow>& rows);

// Violation kinds as a table cell: "a,b,c".
std::string JoinKinds(const std::vector<std::string>& kinds);

}  // namespace leasesim::fuzz
