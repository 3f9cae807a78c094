// The verdict words, the console text and the JSON of a comparison.

#include <cmath>
#include <sstream>

#include <absl/strings/str_cat.h>
#include <absl/strings/str_format.h>
#include <nlohmann/json.hpp>

#include "compare/render.h"

namespace leasesim::compare {
namespace {

using OrderedJson = nlohmann::ordered_json;

std::string Plural(int count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string SideName(const std::string& directory, const std::string& protocol) {
  return directory + (protocol.empty() ? "" : " (" + protocol + ")");
}

OrderedJson DistributionJson(const Distribution& d) {
  OrderedJson json;
  json["runs"] = d.runs;
  json["median"] = d.median;
  json["p90"] = d.p90;
  json["p99"] = d.p99;
  json["max"] = d.max;
  json["mean"] = d.mean;
  if (d.never > 0) json["never"] = d.never;
  return json;
}

OrderedJson FigureJson(const FigureRow& row) {
  OrderedJson json;
  json["figure"] = row.figure;
  json["direction"] = DirectionName(row.info.direction);
  json["base"] = DistributionJson(row.base);
  json["new"] = DistributionJson(row.next);
  json["verdict"] = FigureVerdictName(row.verdict);
  if (row.verdict == FigureVerdict::kSame) return json;
  json["test"] = row.paired ? "wilcoxon-signed-rank" : "mann-whitney-u";
  if (row.paired) json["seeds_differing"] = row.differing;
  const PValue& p = row.paired ? row.signed_rank.p : row.rank_sum.p;
  json["p"] = row.p;
  if (p.exact) json["p_exact"] = std::to_string(p.count) + "/" + std::to_string(p.total);
  json["p_holm"] = row.p_adjusted;
  json["hodges_lehmann_shift"] = row.shift;
  json["rank_biserial"] = row.rank_biserial;
  json["mean_change"] = row.mean_change;
  json["relative_change"] = row.relative;
  json["tolerance"] = row.tolerance.ToString();
  if (row.never_value != 0) json["never_ranked_as"] = row.never_value;
  return json;
}

OrderedJson SeedsJson(const std::vector<SeedChange>& seeds) {
  OrderedJson list = OrderedJson::array();
  for (const SeedChange& change : seeds) {
    OrderedJson entry;
    entry["seed"] = change.seed;
    OrderedJson violations = OrderedJson::array();
    for (const reports::ViolationSummary& v : change.violations) violations.push_back({{"kind", v.kind}, {"message", v.message}});
    entry["violations"] = std::move(violations);
    entry["replay"] = change.replay;
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace

std::string VerdictWord(const Comparison& c) {
  if (c.ExitCode() != kExitNotWorse) return "worse";
  return c.identical() ? "no difference" : "not worse";
}

std::string VerdictLine(const Comparison& c) {
  const int regressed = c.CountFigures(FigureVerdict::kRegressed);
  const int improved = c.CountFigures(FigureVerdict::kImproved);
  const std::string runs = Plural(c.runs(), c.live ? "live run" : "run", c.live ? "live runs" : "runs") + " of " +
                           Plural(static_cast<int>(c.scenarios.size()), "scenario", "scenarios");
  std::string line = "leasesim compare: " + VerdictWord(c) + " — ";
  if (c.identical()) {
    line += runs + ": the same verdicts and the same figures " + (c.live ? "in both samples" : "on every seed");
    int traces = 0;
    for (const ScenarioComparison& s : c.scenarios) traces += s.traces_differ;
    if (!c.live) line += traces == 0 ? " (identical traces)" : " (" + Plural(traces, "trace differs", "traces differ") + ")";
    return line;
  }
  line += Plural(c.newly_failing(), c.live ? "run newly fails" : "seed newly fails",
                 c.live ? "runs newly fail" : "seeds newly fail") +
          ", " + Plural(regressed, "figure regressed", "figures regressed") + "; " +
          Plural(c.fixed(), "fixed", "fixed") + ", " + Plural(improved, "figure improved", "figures improved") + " (" +
          runs + ")";
  return line;
}

std::string RuleText(const Comparison& c) {
  std::ostringstream text;
  text << "A figure regresses when its shift is real — the "
       << (c.live ? "Mann–Whitney U test of the two samples (unpaired)" : "Wilcoxon signed-rank test over the seeds (paired)")
       << ", two-sided, Holm-adjusted over every directional figure that moved, gives p ≤ " << c.options.alpha
       << " — and goes the worse way by more than its tolerance: the rank-biserial r and the mean change both "
          "point the worse way, and the mean change exceeds the tolerance (default +5% of the base mean; any change "
          "when the base mean is 0; --tolerate FIGURE=+N% or =+N). Neutral figures are reported, never gated. "
          "The comparison fails (exit 1) when a "
       << (c.live ? "new-side run fails with a violation kind no base run showed" : "seed newly fails")
       << " or a figure regresses.";
  return text.str();
}

std::string FormatValue(double value, std::int64_t never_value) {
  if (never_value != 0 && value >= static_cast<double>(never_value)) return "never";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return absl::StrCat(static_cast<std::int64_t>(value));
  }
  std::string s = absl::StrFormat("%.2f", value);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string ConsoleText(const Comparison& c) {
  std::ostringstream out;
  out << VerdictLine(c) << "\n";
  out << "  base " << SideName(c.base_directory, c.base_protocol) << ", new " << SideName(c.next_directory, c.next_protocol)
      << (c.live ? ", live runs (unpaired)" : ", " + c.scenario_file + " seeds " + c.seeds) << "\n";
  for (const std::string& note : c.notes) out << "  note: " << note << "\n";
  for (const ScenarioComparison& s : c.scenarios) {
    for (std::size_t i = 0; i < s.newly_failing.size() && i < kSeedsPerScenarioListed; ++i) {
      const SeedChange& change = s.newly_failing[i];
      out << "NEW FAIL " << s.name << (c.live ? " run " : " seed ") << change.seed;
      for (const reports::ViolationSummary& v : change.violations) out << "\n  " << v.kind << ": " << v.message;
      out << "\n  replay: " << change.replay << "\n";
    }
    if (s.newly_failing.size() > kSeedsPerScenarioListed) {
      out << "  ... and " << s.newly_failing.size() - kSeedsPerScenarioListed << " more newly failing in " << s.name
          << "\n";
    }
  }
  std::size_t shown = 0;
  for (const ScenarioComparison& s : c.scenarios) {
    for (const FigureRow& row : s.figures) {
      if (row.verdict != FigureVerdict::kRegressed || shown++ >= kSeedsListedMax) continue;
      out << "REGRESSED " << s.name << " " << row.figure << ": median " << FormatValue(row.base.median, row.never_value)
          << " -> " << FormatValue(row.next.median, row.never_value) << ", shift " << FormatValue(row.shift, 0)
          << ", mean change " << FormatValue(row.mean_change, 0)
          << (row.base.mean != 0 ? " (" + FormatValue(100 * row.relative, 0) + "%)" : " (from 0)") << ", p(Holm) "
          << FormatP(row.p_adjusted) << "\n";
    }
  }
  if (shown > kSeedsListedMax) out << "  ... " << shown - kSeedsListedMax << " more regressed figures\n";
  return out.str();
}

std::string Json(const Comparison& c) {
  OrderedJson json;
  json["format"] = "leasesim-compare";
  json["version"] = kCompareJsonVersion;
  json["verdict"] = VerdictWord(c);
  json["exit_code"] = c.ExitCode();
  json["summary"] = VerdictLine(c);
  json["base"] = {{"directory", c.base_directory}, {"protocol", c.base_protocol}};
  json["new"] = {{"directory", c.next_directory}, {"protocol", c.next_protocol}};
  json["live"] = c.live;
  json["scenario_file"] = c.scenario_file;
  json["seeds"] = c.seeds;
  json["alpha"] = c.options.alpha;
  json["rule"] = RuleText(c);
  json["notes"] = c.notes;
  json["totals"] = {{"runs", c.runs()},
                    {"newly_failing", c.newly_failing()},
                    {"fixed", c.fixed()},
                    {"still_failing", c.still_failing()},
                    {"figures_regressed", c.CountFigures(FigureVerdict::kRegressed)},
                    {"figures_improved", c.CountFigures(FigureVerdict::kImproved)}};
  OrderedJson scenarios = OrderedJson::array();
  for (const ScenarioComparison& s : c.scenarios) {
    OrderedJson entry;
    entry["name"] = s.name;
    entry["runs"] = s.runs;
    if (c.live) entry["new_runs"] = s.next_runs;
    if (!c.live) entry["traces_differ"] = s.traces_differ;
    entry["newly_failing"] = SeedsJson(s.newly_failing);
    entry["fixed"] = SeedsJson(s.fixed);
    entry["still_failing"] = SeedsJson(s.still_failing);
    OrderedJson figures = OrderedJson::array();
    for (const FigureRow& row : s.figures) figures.push_back(FigureJson(row));
    entry["figures"] = std::move(figures);
    scenarios.push_back(std::move(entry));
  }
  json["scenarios"] = std::move(scenarios);
  return json.dump(2) + "\n";
}

}  // namespace leasesim::compare
