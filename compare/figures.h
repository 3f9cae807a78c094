#pragma once
// What each figure of summary.json means to a comparison, as the figure
// registry (base/figures.h) defines it: which way is better (lower
// leaderless time, higher settlements applied, or neither: counts of what
// the fault script did, coverage), whether -1 stands for "never" (a run
// that never recovered is worse than any that did); and the tolerance a
// regression must exceed (--tolerate FIGURE=+5%).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/figures.h"
#include "base/input_error.h"

namespace leasesim::compare {

// Which way a figure is better: the figure registry's (base/figures.h).
using Direction = base::FigureDirection;

struct FigureInfo {
  Direction direction = Direction::kNeutral;
  bool minus_one_is_never = false;  // -1 = it never happened (recovery_ms, store_first_leader_ms)
  bool known = false;               // false: a figure the registry does not define (neutral)
};

// The figure's meaning to a comparison, from its definition in the figure
// registry (base/figures.h): by exact name or by family (demotions_*, ...).
FigureInfo DescribeFigure(const std::string& name);

// "lower is better", "higher is better", "neutral".
const char* DirectionName(Direction direction);

// How much worse a figure may get before it counts as a regression (the
// shift estimate, in the worse direction, must exceed it). Relative
// tolerances are of the base side's median (when that median is 0, any
// shift exceeds them); absolute ones in the figure's own unit.
struct Tolerance {
  std::string pattern;          // a figure name, or a family with one '*' (demotions_*)
  bool relative = true;
  std::int64_t milli_percent = 0;  // relative: 5% = 5000
  std::int64_t absolute = 0;       // !relative
  bool Matches(const std::string& figure) const;
  std::string ToString() const;  // "+5%", "+200"
};

// The default: worse by more than 5% of the base median.
inline constexpr std::int64_t kDefaultToleranceMilliPercent = 5000;

// "leaderless_ms=+5%", "demotions_*=+0.5%", "store_ops=+200" -> a tolerance;
// otherwise nothing, with `error` the one bad-input error: its path the flag
// ("--tolerate"), its rule naming the text and the form it must take.
std::optional<Tolerance> ParseTolerance(const std::string& text, base::InputError& error);

// The tolerance for a figure: the last matching --tolerate (an exact name
// wins over a family), or the default.
Tolerance ToleranceFor(const std::string& figure, const std::vector<Tolerance>& given);

}  // namespace leasesim::compare
