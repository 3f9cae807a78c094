#pragma once
// leasesim compare: what a protocol change did, from the outputs of two
// sweeps over the same scenarios and seeds (or two sets of live runs).
// Every simulated run is a pure function of (scenario, seed), so the same
// fault script hit both sides of each pair: per scenario, the seeds that
// newly fail, got fixed or still fail, and per figure both distributions
// and whether the shift is real (a paired test over seeds; unpaired for
// live runs), judged against a per-figure tolerance. The rule is in
// docs/COMPARE.md; Markdown, JSON and console renderings in render.h.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "base/input_error.h"
#include "compare/figures.h"
#include "compare/side.h"
#include "compare/stats.h"

namespace leasesim::compare {

struct CompareOptions {
  std::vector<Tolerance> tolerances;  // --tolerate, in order
  double alpha = 0.05;                // family-wise, Holm over every directional figure tested
  bool allow_scenario_change = false;
};

inline constexpr int kExitNotWorse = 0;
inline constexpr int kExitWorse = 1;
inline constexpr int kExitBadInput = 2;

// One seed whose verdict changed or stayed failing; the violations and the
// replay command are the new side's (the base side's for a fixed seed).
struct SeedChange {
  std::uint64_t seed = 0;
  std::vector<reports::ViolationSummary> violations;  // unexpected ones
  std::string replay;
};

// A figure's sample on one side.
struct Distribution {
  int runs = 0;
  double median = 0;
  std::int64_t p90 = 0;
  std::int64_t p99 = 0;
  std::int64_t max = 0;
  double mean = 0;
  int never = 0;  // runs whose value was -1 = never (minus_one_is_never figures)
};

enum class FigureVerdict {
  kSame,              // identical on every seed (paired) or identical samples
  kNotSignificant,    // moved, but the test does not call it real at alpha
  kWithinTolerance,   // real, but smaller than the tolerance (either way)
  kImproved,          // real, better, beyond the tolerance
  kRegressed,         // real, worse, beyond the tolerance: fails the comparison
  kShifted,           // real and beyond the tolerance on a neutral figure (not gated)
};
const char* FigureVerdictName(FigureVerdict verdict);

struct FigureRow {
  std::string scenario;
  std::string figure;
  FigureInfo info;
  Distribution base;
  Distribution next;
  bool paired = true;
  int differing = 0;         // paired: seeds whose values differ
  SignedRank signed_rank;    // paired
  RankSum rank_sum;          // unpaired (live)
  double p = 1;              // the test's two-sided p-value
  double p_adjusted = 1;     // Holm-adjusted over the directional figures tested (p for neutral ones)
  double shift = 0;          // Hodges–Lehmann estimate of new - base
  double rank_biserial = 0;  // effect size in [-1, 1], positive: new higher
  double mean_change = 0;    // mean of new - base (paired) or new mean - base mean
  double relative = 0;       // mean_change / |base mean|; 0 when the base mean is 0
  // minus_one_is_never figures: the value -1 ("never") was ranked as, one
  // above every value either side saw (0: none). Quantiles equal to it read "never".
  std::int64_t never_value = 0;
  Tolerance tolerance;
  FigureVerdict verdict = FigureVerdict::kSame;
};

struct ScenarioComparison {
  std::string name;
  int runs = 0;  // pairs (paired) or base runs (live)
  int next_runs = 0;
  int traces_differ = 0;  // paired: runs whose trace hashes differ
  // Paired: by seed. Live (unpaired): newly_failing holds the new side's
  // failing runs with a violation kind no base run showed, fixed the base's
  // failing runs with a kind no new run showed, still_failing the rest of
  // the new side's failing runs; `seed` is then the run's number.
  std::vector<SeedChange> newly_failing;
  std::vector<SeedChange> fixed;
  std::vector<SeedChange> still_failing;
  std::vector<FigureRow> figures;  // by figure name
};

struct Comparison {
  std::string base_directory;
  std::string next_directory;
  std::string base_protocol;  // "" when each scenario ran its own
  std::string next_protocol;
  std::string scenario_file;
  std::string seeds;
  bool live = false;
  CompareOptions options;
  std::vector<std::string> notes;
  std::vector<ScenarioComparison> scenarios;

  int newly_failing() const;
  int fixed() const;
  int still_failing() const;
  int CountFigures(FigureVerdict verdict) const;
  int runs() const;
  // Nothing moved: same verdicts, every figure the same.
  bool identical() const;
  // 1 when a seed newly fails or a directional figure regressed, else 0.
  int ExitCode() const;
};

// The comparison, or the bad-input error saying why the two sides cannot
// be compared (exit 2): Pairing::refusal.
std::variant<Comparison, base::InputError> Compare(const Side& base, const Side& next, const CompareOptions& options);

// Compares two output directories (LoadSide, then Compare); a directory
// that cannot be read is refused as its argument, BASE_DIR or NEW_DIR (the
// rule names the directory or file and what is wrong).
std::variant<Comparison, base::InputError> CompareDirectories(const std::string& base, const std::string& next,
                                                              const CompareOptions& options);

}  // namespace leasesim::compare
