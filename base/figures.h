#pragma once
// The figure registry: every figure a run writes into summary.json,
// defined once — its name, unit, which way is better, who produces it and
// what it means. `leasesim compare`, the search's near-miss records and
// docs/REPORTS.md's figure table follow from it; tests/figures fails on a
// figure some run produces that is not defined here, and on one defined
// here that no run produces. Producers keep writing names as strings (a
// run's figures are a name -> integer map); the registry is what those
// strings must agree with.
//
// A family ("demotions_*") stands for one figure per reason, point, probe
// or index: its '*' matches any non-empty text. An exact entry wins over a
// family (demotions_crash over demotions_*).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/enum_names.h"

namespace leasesim::base {

// Which way a figure is better, for a comparison of two sweeps.
enum class FigureDirection {
  kLowerIsBetter,
  kHigherIsBetter,
  kNeutral,  // reported, never gated: what the faults caused, coverage, simulator work
};
inline constexpr EnumNames<FigureDirection, 3> kFigureDirectionNames{{
    {FigureDirection::kLowerIsBetter, "lower is better"},
    {FigureDirection::kHigherIsBetter, "higher is better"},
    {FigureDirection::kNeutral, "neutral"},
}};

// Who writes a figure into a run's figures.
enum class FigureSource {
  kHistory,          // checker/history_figures.cc: from the history alone, simulated and live runs alike
  kSimulator,        // runner/judgement.cc, runner/recorder.cc: what only the simulated world knows
  kReplicatedStore,  // backends/replicated_figures.cc: worlds with a replicated store
  kKvStore,          // runner/judgement.cc: worlds with KV hosts
  kTiming,           // timing/measure.cc: the runs of `leasesim timing`
  kLive,             // live/live_judge.cc: live runs only
};
inline constexpr EnumNames<FigureSource, 6> kFigureSourceNames{{
    {FigureSource::kHistory, "history"},
    {FigureSource::kSimulator, "simulator"},
    {FigureSource::kReplicatedStore, "replicated store"},
    {FigureSource::kKvStore, "KV store"},
    {FigureSource::kTiming, "timing"},
    {FigureSource::kLive, "live"},
}};

// Whether the search steers by a figure as a near miss (fuzz/near_miss_records.h).
enum class NearMiss {
  kNone,
  kSmallerIsCloser,  // a distance to a violation: smaller is closer, 0 means nothing of the kind happened
  kLargerIsCloser,   // an amount of what violations are made of (time with two leaders, stale writes)
};

// One figure, or one family of figures.
struct FigureDefinition {
  std::string_view name;  // exact, or a family with one '*'
  std::string_view unit;  // "ms", "us" or "count"
  FigureDirection direction = FigureDirection::kNeutral;
  FigureSource source = FigureSource::kHistory;
  std::string_view meaning;  // one line, for docs/REPORTS.md
  bool minus_one_is_never = false;  // -1 = it never happened (ranked worse than any value)
  NearMiss near_miss = NearMiss::kNone;
};

// Families that code reads back by their members' names.
inline constexpr std::string_view kFaultPointFigurePrefix = "fault_point_";  // fault_point_NAME: times reached
inline constexpr std::string_view kProbeFigurePrefix = "probe_";             // probe_NAME: times reached

// Every definition, in the order docs/REPORTS.md lists them.
std::span<const FigureDefinition> FigureDefinitions();

// The definition `figure` (a figure's name, not a family's) falls under:
// its exact entry, else the family with the longest fixed text that
// matches it; null when the registry does not define it.
const FigureDefinition* FindFigure(std::string_view figure);

// Whether `figure` is `pattern`, or a member of it when pattern holds a
// '*' (which matches any non-empty text).
bool FigureNameMatches(std::string_view pattern, std::string_view figure);

// docs/REPORTS.md's figure table (Markdown), rendered from the registry.
std::string FigureTableMarkdown();

}  // namespace leasesim::base
