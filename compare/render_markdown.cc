// The Markdown of a comparison: a pull-request comment or a CI job summary.
// The verdict line first (what a reviewer reads), then the tables; long
// lists are cut (the JSON has everything) so the comment stays readable.

#include <algorithm>
#include <sstream>

#include <absl/strings/str_format.h>

#include "compare/render.h"

namespace leasesim::compare {
namespace {

// Bounds that keep a comment well under GitHub's 65536 characters.
constexpr std::size_t kFigureRowsListed = 60;

// Text safe inside a table cell: no pipes, no line breaks, not too long.
std::string Cell(const std::string& text, std::size_t max_length = 300) {
  std::string cell;
  for (char c : text) {
    if (c == '|') {
      cell += "\\|";
    } else if (c == '\n' || c == '\r') {
      cell += ' ';
    } else {
      cell += c;
    }
    if (cell.size() >= max_length) return cell + "…";
  }
  return cell;
}

std::string Code(const std::string& text) { return "`" + Cell(text, 400) + "`"; }

std::string Quantiles(const Distribution& d, std::int64_t never) {
  if (d.runs == 0) return "–";
  return FormatValue(d.median, never) + " / " + FormatValue(static_cast<double>(d.p90), never) + " / " +
         FormatValue(static_cast<double>(d.p99), never) + " / " + FormatValue(static_cast<double>(d.max), never);
}

std::string Kinds(const SeedChange& change) {
  std::string kinds;
  for (const reports::ViolationSummary& v : change.violations) {
    if (kinds.find(v.kind) == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + v.kind;
  }
  return kinds.empty() ? "–" : kinds;
}

std::string Seeds(const std::vector<SeedChange>& seeds) {
  if (seeds.empty()) return "–";
  std::string text;
  for (std::size_t i = 0; i < seeds.size() && i < kSeedsListedMax; ++i) {
    text += (i == 0 ? "" : " ") + std::to_string(seeds[i].seed);
  }
  if (seeds.size() > kSeedsListedMax) text += " … (+" + std::to_string(seeds.size() - kSeedsListedMax) + ")";
  return text;
}

void Header(const Comparison& c, std::ostream& out) {
  out << "| | base | new |\n| --- | --- | --- |\n";
  out << "| output | " << Code(c.base_directory) << " | " << Code(c.next_directory) << " |\n";
  out << "| protocol | " << (c.base_protocol.empty() ? "as in the file" : Code(c.base_protocol)) << " | "
      << (c.next_protocol.empty() ? "as in the file" : Code(c.next_protocol)) << " |\n";
  int base_failing = 0;
  int next_failing = 0;
  for (const ScenarioComparison& s : c.scenarios) {
    base_failing += static_cast<int>(s.fixed.size() + (c.live ? 0 : s.still_failing.size()));
    next_failing += static_cast<int>(s.newly_failing.size() + s.still_failing.size());
  }
  if (!c.live) out << "| failing runs | " << base_failing << " | " << next_failing << " |\n";
  out << "\n" << (c.live ? "Live runs, unpaired." : Code(c.scenario_file) + " seeds " + Code(c.seeds) +
                                                       ", runs paired by scenario and seed.") << "\n";
  for (const std::string& note : c.notes) out << "\n> Note: " << Cell(note, 600) << "\n";
}

void SeedTables(const Comparison& c, std::ostream& out) {
  if (c.newly_failing() + c.fixed() + c.still_failing() == 0) return;
  const char* unit = c.live ? "runs" : "seeds";
  out << "\n### Verdicts that differ\n\n| scenario | newly failing | fixed | still failing |\n| --- | --- | --- | --- |\n";
  for (const ScenarioComparison& s : c.scenarios) {
    if (s.newly_failing.empty() && s.fixed.empty() && s.still_failing.empty()) continue;
    out << "| " << Cell(s.name) << " | " << Seeds(s.newly_failing) << " | " << Seeds(s.fixed) << " | "
        << Seeds(s.still_failing) << " |\n";
  }
  if (c.newly_failing() == 0) return;
  out << "\n### Newly failing " << unit << " (" << c.newly_failing() << ")\n\n"
      << "| scenario | " << (c.live ? "run" : "seed") << " | new violations | replay (new side) |\n| --- | --- | --- | --- |\n";
  // The first few of every scenario, so each failing scenario shows up.
  std::size_t listed = 0;
  for (const ScenarioComparison& s : c.scenarios) {
    for (std::size_t i = 0; i < s.newly_failing.size() && i < kSeedsPerScenarioListed; ++i) {
      const SeedChange& change = s.newly_failing[i];
      const std::string first = change.violations.empty() ? "" : ": " + change.violations.front().message;
      out << "| " << Cell(s.name) << " | " << change.seed << " | **" << Kinds(change) << "**" << Cell(first, 200)
          << " | " << Code(change.replay) << " |\n";
      ++listed;
    }
  }
  if (listed < static_cast<std::size_t>(c.newly_failing())) {
    out << "\n… and " << c.newly_failing() - static_cast<int>(listed)
        << " more (every one, with its replay command, in the JSON: --json FILE).\n";
  }
}

// At most `limit` rows; the rest are counted (the JSON has them all).
void FigureTable(const std::vector<const FigureRow*>& rows, bool paired, std::size_t limit, std::ostream& out) {
  out << "| scenario | figure | better | base median / p90 / p99 / max | new median / p90 / p99 / max | "
      << "shift (HL) | mean change | r | p (Holm) | " << (paired ? "seeds moved | " : "")
      << "verdict |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | " << (paired ? "--- | " : "") << "--- |\n";
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
    const FigureRow* row = rows[i];
    const char* better = row->info.direction == Direction::kLowerIsBetter    ? "lower"
                         : row->info.direction == Direction::kHigherIsBetter ? "higher"
                                                                             : "neutral";
    const std::string relative = row->base.mean != 0 ? " (" + FormatValue(100 * row->relative, 0) + "%)" : " (from 0)";
    const std::string r = absl::StrFormat("%+.2f", row->rank_biserial);
    out << "| " << Cell(row->scenario) << " | " << Code(row->figure) << " | " << better << " | "
        << Quantiles(row->base, row->never_value) << " | " << Quantiles(row->next, row->never_value) << " | "
        << FormatValue(row->shift, 0) << " | " << FormatValue(row->mean_change, 0) << relative << " | " << r << " | "
        << FormatP(row->p_adjusted) << " | " << (paired ? std::to_string(row->differing) + "/" + std::to_string(row->base.runs) + " | " : "")
        << (row->verdict == FigureVerdict::kRegressed ? "**regressed**" : FigureVerdictName(row->verdict)) << " |\n";
  }
  if (rows.size() > limit) out << "\n… and " << rows.size() - limit << " more rows in the JSON (--json FILE).\n";
}

void FigureTables(const Comparison& c, std::ostream& out) {
  std::vector<const FigureRow*> real;
  std::vector<const FigureRow*> noise;
  for (const ScenarioComparison& s : c.scenarios) {
    for (const FigureRow& row : s.figures) {
      if (row.verdict == FigureVerdict::kSame) continue;
      (row.verdict == FigureVerdict::kNotSignificant ? noise : real).push_back(&row);
    }
  }
  // Improvements before the other real shifts.
  std::stable_sort(real.begin(), real.end(), [](const FigureRow* a, const FigureRow* b) {
    auto rank = [](FigureVerdict v) { return v == FigureVerdict::kRegressed ? 0 : v == FigureVerdict::kImproved ? 1 : 2; };
    return rank(a->verdict) < rank(b->verdict);
  });
  const auto split = std::stable_partition(real.begin(), real.end(),
                                           [](const FigureRow* row) { return row->verdict == FigureVerdict::kRegressed; });
  const std::vector<const FigureRow*> regressed(real.begin(), split);
  const std::vector<const FigureRow*> other(split, real.end());
  if (!regressed.empty()) {
    out << "\n### Figures that regressed (" << regressed.size() << ")\n\n";
    FigureTable(regressed, !c.live, kFigureRowsListed, out);
  }
  if (!other.empty()) {
    out << "\n<details><summary>Figures that moved for real, not worse beyond their tolerance (" << other.size()
        << ")</summary>\n\n";
    FigureTable(other, !c.live, kFigureRowsListed, out);
    out << "\n</details>\n";
  }
  if (!noise.empty()) {
    out << "\n<details><summary>Figures that moved, not significantly (" << noise.size() << ")</summary>\n\n";
    FigureTable(noise, !c.live, kFigureRowsListed / 2, out);
    out << "\n</details>\n";
  }
  if (real.empty() && noise.empty()) out << "\nEvery figure is the same on both sides.\n";
}

}  // namespace

std::string Markdown(const Comparison& c) {
  std::ostringstream out;
  const std::string line = VerdictLine(c);
  const std::size_t dash = line.find(" — ");
  // "**leasesim compare: worse** — 219 seeds newly fail, ..."
  out << "**" << line.substr(0, dash) << "**" << (dash == std::string::npos ? "" : line.substr(dash)) << "\n\n";
  Header(c, out);
  SeedTables(c, out);
  FigureTables(c, out);
  out << "\n<sub>" << RuleText(c) << " Medians are the middle value (or the mean of the two middle values); "
      << "p90/p99/max by nearest rank; shift: the Hodges–Lehmann estimate of new − base; r: rank-biserial. "
      << "See docs/COMPARE.md.</sub>\n";
  return out.str();
}

}  // namespace leasesim::compare
