#include "compare/figures.h"

#include <array>
#include <charconv>
#include <string_view>

namespace leasesim::compare {
namespace {

struct Entry {
  std::string_view name;  // exact, or a prefix ending in '*'
  Direction direction;
  bool minus_one_is_never = false;
};

constexpr Direction kLower = Direction::kLowerIsBetter;
constexpr Direction kHigher = Direction::kHigherIsBetter;
constexpr Direction kNeutral = Direction::kNeutral;

// Every figure `run` and `live` write (docs/REPORTS.md, docs/LIVE.md).
// Neutral ones count what the fault script did to the protocol (a crash
// demotes its leader whatever the protocol), coverage, or simulator work.
constexpr std::array<Entry, 53> kTable = {{
    {"leaderless_ms", kLower},
    {"recovery_ms", kLower, true},
    {"leader_terms", kLower},
    {"overlap_ms", kLower},
    {"writes_during_overlap", kLower},
    {"writes_after_lease", kLower},
    {"settlements_applied", kHigher},
    {"fenced_writes_rejected", kLower},
    {"duplicate_settlements_suppressed", kLower},
    {"ledger_writes_lost", kLower},
    {"store_ops", kLower},
    {"store_ops_unknown", kLower},
    {"store_call_max_ms", kLower},
    // The search's near-miss gradient: a wider gap is safer and a slower
    // failover at once, so neither way is better.
    {"handover_gap_min_ms", kNeutral},
    {"stale_arrival_lost_by_min_ms", kNeutral},
    {"lease_end_margin_min_ms", kNeutral},
    {"takeover_margin_min_ms", kNeutral},
    {"write_lease_margin_min_ms", kNeutral},
    {"kv_ops", kNeutral},
    {"kv_lease_expiries", kNeutral},
    // Stale writes that reached the ledger: each one the fence had to stop.
    {"stale_arrivals", kLower},
    {"stale_arrivals_unsettled", kLower},
    {"demotions_crash", kNeutral},
    {"demotions_released", kNeutral},
    {"demotions_*", kLower},
    {"renew_failed_*", kLower},
    {"renewals_ok", kNeutral},
    {"sim_events", kNeutral},
    {"fault_point_*", kNeutral},
    {"probe_*", kNeutral},
    // The replicated store (docs/REPLICATED_STORE.md).
    {"store_leaders_elected", kLower},
    {"store_highest_term", kNeutral},
    {"store_first_leader_ms", kLower, true},
    {"store_failovers", kLower},
    {"store_election_ms_max", kLower},
    {"store_election_ms_mean", kLower},
    {"store_calls_answered", kNeutral},
    {"store_calls_failed", kLower},
    {"store_call_ms_mean", kLower},
    {"store_call_ms_max", kLower},
    {"store_client_unavailable_ms_max", kLower},
    {"store_client_unavailable_ms_sum", kLower},
    {"store_client_redirects", kLower},
    {"store_client_resends", kLower},
    {"store_stale_reads", kLower},
    // Live runs (docs/LIVE.md).
    {"due_windows", kNeutral},
    {"renewals", kNeutral},
    {"renewal_latency_p50_us", kLower},
    {"renewal_latency_p99_us", kLower},
    {"renewal_latency_max_us", kLower},
    {"faults_injected", kNeutral},
    {"failovers", kNeutral},
    {"failover_ms_*", kLower},
}};

bool NameMatches(std::string_view pattern, std::string_view name) {
  if (pattern.ends_with('*')) return name.starts_with(pattern.substr(0, pattern.size() - 1));
  return pattern == name;
}

}  // namespace

FigureInfo DescribeFigure(const std::string& name) {
  // An exact entry wins over a prefix (demotions_crash over demotions_*).
  const Entry* prefix = nullptr;
  for (const Entry& entry : kTable) {
    if (entry.name == name) return {entry.direction, entry.minus_one_is_never, true};
    if (prefix == nullptr && entry.name.ends_with('*') && NameMatches(entry.name, name)) prefix = &entry;
  }
  if (prefix != nullptr) return {prefix->direction, prefix->minus_one_is_never, true};
  return {};
}

const char* DirectionName(Direction direction) {
  switch (direction) {
    case Direction::kLowerIsBetter: return "lower is better";
    case Direction::kHigherIsBetter: return "higher is better";
    case Direction::kNeutral: return "neutral";
  }
  return "neutral";
}

bool Tolerance::Matches(const std::string& figure) const { return NameMatches(pattern, figure); }

std::string Tolerance::ToString() const {
  if (!relative) return "+" + std::to_string(absolute);
  std::string text = "+" + std::to_string(milli_percent / 1000);
  if (const std::int64_t fraction = milli_percent % 1000; fraction != 0) {
    std::string digits = std::to_string(1000 + fraction).substr(1);
    while (digits.back() == '0') digits.pop_back();
    text += "." + digits;
  }
  return text + "%";
}

std::optional<Tolerance> ParseTolerance(const std::string& text, std::string& error) {
  const std::string rule = "--tolerate \"" + text +
                           "\": must be FIGURE=+N% (up to 3 decimals, at most 1000%) or FIGURE=+N (the figure's "
                           "unit), FIGURE a name or a prefix ending in *";
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    error = rule;
    return std::nullopt;
  }
  Tolerance tolerance;
  tolerance.pattern = text.substr(0, equals);
  std::string_view amount = std::string_view(text).substr(equals + 1);
  if (amount.starts_with('+')) amount.remove_prefix(1);
  tolerance.relative = amount.ends_with('%');
  if (tolerance.relative) amount.remove_suffix(1);
  const std::size_t dot = amount.find('.');
  const std::string_view whole = amount.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : amount.substr(dot + 1);
  std::int64_t units = 0;
  const auto [end, problem] = std::from_chars(whole.data(), whole.data() + whole.size(), units);
  bool ok = !whole.empty() && problem == std::errc() && end == whole.data() + whole.size() && units >= 0;
  ok = ok && (tolerance.relative ? fraction.size() <= 3 && units <= 1000 : dot == std::string_view::npos);
  std::int64_t thousandths = 0;
  for (std::size_t i = 0; ok && i < 3; ++i) {
    const char digit = i < fraction.size() ? fraction[i] : '0';
    ok = digit >= '0' && digit <= '9';
    thousandths = thousandths * 10 + (digit - '0');
  }
  if (!ok || (dot != std::string_view::npos && fraction.empty())) {
    error = rule;
    return std::nullopt;
  }
  if (tolerance.relative) {
    tolerance.milli_percent = units * 1000 + thousandths;
  } else {
    tolerance.absolute = units;
  }
  return tolerance;
}

Tolerance ToleranceFor(const std::string& figure, const std::vector<Tolerance>& given) {
  const Tolerance* exact = nullptr;
  const Tolerance* prefix = nullptr;
  for (const Tolerance& tolerance : given) {
    if (!tolerance.Matches(figure)) continue;
    (tolerance.pattern.ends_with('*') ? prefix : exact) = &tolerance;
  }
  if (exact != nullptr) return *exact;
  if (prefix != nullptr) return *prefix;
  return Tolerance{.pattern = figure, .relative = true, .milli_percent = kDefaultToleranceMilliPercent};
}

}  // namespace leasesim::compare
