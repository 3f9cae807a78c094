#include "compare/stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

#include <absl/strings/str_format.h>

namespace leasesim::compare {
namespace {

// Doubled midranks of `values` (any order): ties share the mean of the
// ranks they span, so twice it is an integer. Also sum(t^3 - t) over tie groups.
std::vector<std::int64_t> DoubledRanks(const std::vector<std::int64_t>& values, double& tie_term) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<std::int64_t> ranks(values.size(), 0);
  tie_term = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && values[order[j]] == values[order[i]]) ++j;
    const auto doubled = static_cast<std::int64_t>(i + 1 + j);  // (i+1) + j: first and last 1-based rank
    for (std::size_t k = i; k < j; ++k) ranks[order[k]] = doubled;
    const auto t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    i = j;
  }
  return ranks;
}

// Two-sided exact p from a null distribution of an integer statistic:
// counts[s] ways to reach s; `observed` the statistic seen.
PValue ExactTwoSided(const std::vector<std::uint64_t>& counts, std::int64_t observed) {
  std::uint64_t total = 0;
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  for (std::size_t s = 0; s < counts.size(); ++s) {
    total += counts[s];
    if (static_cast<std::int64_t>(s) <= observed) low += counts[s];
    if (static_cast<std::int64_t>(s) >= observed) high += counts[s];
  }
  assert(total > 0);
  PValue p;
  p.exact = true;
  p.total = total;
  p.count = std::min(total, 2 * std::min(low, high));
  p.value = static_cast<double>(p.count) / static_cast<double>(p.total);
  return p;
}

// Two-sided normal approximation with a continuity correction of 1/2.
PValue NormalTwoSided(double statistic, double mean, double variance) {
  PValue p;
  if (variance <= 0) return p;
  const double z = std::max(0.0, std::fabs(statistic - mean) - 0.5) / std::sqrt(variance);
  p.value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return p;
}

// The k-th smallest (1-based) of the values f(x) counts: f(x) = how many
// are <= x, monotone in x, over [lo, hi]. Binary search, 64 steps at most.
template <typename CountAtMost>
std::int64_t KthSmallest(std::int64_t lo, std::int64_t hi, std::uint64_t k, const CountAtMost& count_at_most) {
  for (int step = 0; step < 64 && lo < hi; ++step) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (count_at_most(mid) >= k) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// The median of the M values (k-th smallest from `kth`), as a double.
template <typename Kth>
double MedianOfImplicit(std::uint64_t m, const Kth& kth) {
  if (m == 0) return 0;
  if (m % 2 == 1) return static_cast<double>(kth((m + 1) / 2));
  return (static_cast<double>(kth(m / 2)) + static_cast<double>(kth(m / 2 + 1))) / 2.0;
}

// Hodges–Lehmann one-sample: median of (d_i + d_j) / 2 over i <= j.
double WalshMedian(std::vector<std::int64_t> d) {
  if (d.empty()) return 0;
  std::sort(d.begin(), d.end());
  const std::size_t n = d.size();
  // Pairs i <= j with d_i + d_j <= x: (ordered pairs + diagonal) / 2.
  auto count_at_most = [&](std::int64_t x) {
    std::uint64_t ordered = 0;
    std::size_t j = n;
    for (std::size_t i = 0; i < n; ++i) {
      while (j > 0 && d[i] + d[j - 1] > x) --j;
      ordered += j;
    }
    std::uint64_t diagonal = 0;
    for (std::int64_t v : d) diagonal += 2 * v <= x ? 1 : 0;
    return (ordered + diagonal) / 2;
  };
  auto kth = [&](std::uint64_t k) { return KthSmallest(2 * d.front(), 2 * d.back(), k, count_at_most); };
  return MedianOfImplicit(static_cast<std::uint64_t>(n) * (n + 1) / 2, kth) / 2.0;
}

// Hodges–Lehmann two-sample: median of next_j - base_i over all pairs.
double ShiftMedian(std::vector<std::int64_t> base, std::vector<std::int64_t> next) {
  if (base.empty() || next.empty()) return 0;
  std::sort(base.begin(), base.end());
  std::sort(next.begin(), next.end());
  // Pairs with next_j - base_i <= x, i.e. base_i >= next_j - x.
  auto count_at_most = [&](std::int64_t x) {
    std::uint64_t count = 0;
    std::size_t i = 0;
    for (std::int64_t y : next) {
      while (i < base.size() && base[i] < y - x) ++i;
      count += base.size() - i;
    }
    return count;
  };
  auto kth = [&](std::uint64_t k) {
    return KthSmallest(next.front() - base.back(), next.back() - base.front(), k, count_at_most);
  };
  return MedianOfImplicit(static_cast<std::uint64_t>(base.size()) * next.size(), kth);
}

}  // namespace

double Median(std::vector<std::int64_t> values) {
  assert(!values.empty());
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  if (n % 2 == 1) return static_cast<double>(values[n / 2]);
  return (static_cast<double>(values[n / 2 - 1]) + static_cast<double>(values[n / 2])) / 2.0;
}

SignedRank WilcoxonSignedRank(const std::vector<std::int64_t>& differences) {
  SignedRank result;
  result.pairs = static_cast<int>(differences.size());
  result.hodges_lehmann = WalshMedian(differences);
  std::vector<std::int64_t> magnitudes;
  std::vector<bool> positive;
  for (std::int64_t d : differences) {
    if (d == 0) continue;
    magnitudes.push_back(d < 0 ? -d : d);
    positive.push_back(d > 0);
  }
  const auto n = static_cast<std::int64_t>(magnitudes.size());
  result.nonzero = static_cast<int>(n);
  if (n == 0) return result;
  double tie_term = 0;
  const std::vector<std::int64_t> ranks = DoubledRanks(magnitudes, tie_term);
  for (std::size_t i = 0; i < ranks.size(); ++i) (positive[i] ? result.w_plus_x2 : result.w_minus_x2) += ranks[i];
  result.rank_biserial = static_cast<double>(result.w_plus_x2 - result.w_minus_x2) /
                         static_cast<double>(result.w_plus_x2 + result.w_minus_x2);
  if (n <= kSignedRankExactMax) {
    // Under the null each sign is a fair coin: count the 2^n subsets by their doubled rank sum.
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(n * (n + 1)) + 1, 0);
    counts[0] = 1;
    for (std::int64_t r : ranks) {
      for (auto s = static_cast<std::int64_t>(counts.size()) - 1; s >= r; --s) {
        counts[static_cast<std::size_t>(s)] += counts[static_cast<std::size_t>(s - r)];
      }
    }
    result.p = ExactTwoSided(counts, result.w_plus_x2);
  } else {
    const auto nd = static_cast<double>(n);
    const double variance = nd * (nd + 1) * (2 * nd + 1) / 24.0 - tie_term / 48.0;
    result.p = NormalTwoSided(static_cast<double>(result.w_plus_x2) / 2.0, nd * (nd + 1) / 4.0, variance);
  }
  return result;
}

RankSum MannWhitney(const std::vector<std::int64_t>& base, const std::vector<std::int64_t>& next) {
  RankSum result;
  result.base_n = static_cast<int>(base.size());
  result.next_n = static_cast<int>(next.size());
  if (base.empty() || next.empty()) return result;
  std::vector<std::int64_t> pooled = base;
  pooled.insert(pooled.end(), next.begin(), next.end());
  double tie_term = 0;
  const std::vector<std::int64_t> ranks = DoubledRanks(pooled, tie_term);
  std::int64_t next_rank_x2 = 0;
  for (std::size_t i = base.size(); i < pooled.size(); ++i) next_rank_x2 += ranks[i];
  const auto n1 = static_cast<std::int64_t>(base.size());
  const auto n2 = static_cast<std::int64_t>(next.size());
  const std::int64_t total_n = n1 + n2;
  result.u_x2 = next_rank_x2 - n2 * (n2 + 1);
  result.rank_biserial = static_cast<double>(result.u_x2) / static_cast<double>(n1 * n2) - 1.0;
  result.hodges_lehmann = ShiftMedian(base, next);
  if (total_n <= kRankSumExactMax) {
    // Every choice of n2 of the N (tied) ranks for `next` is equally likely:
    // ways[c][s] subsets of c ranks with doubled sum s.
    const auto sums = static_cast<std::size_t>(total_n * (total_n + 1)) + 1;
    std::vector<std::vector<std::uint64_t>> ways(static_cast<std::size_t>(n2) + 1, std::vector<std::uint64_t>(sums, 0));
    ways[0][0] = 1;
    for (std::int64_t r : ranks) {
      for (std::size_t c = static_cast<std::size_t>(n2); c >= 1; --c) {
        for (auto s = static_cast<std::int64_t>(sums) - 1; s >= r; --s) {
          ways[c][static_cast<std::size_t>(s)] += ways[c - 1][static_cast<std::size_t>(s - r)];
        }
      }
    }
    result.p = ExactTwoSided(ways[static_cast<std::size_t>(n2)], next_rank_x2);
  } else {
    const auto a = static_cast<double>(n1);
    const auto b = static_cast<double>(n2);
    const auto nn = static_cast<double>(total_n);
    const double variance = a * b / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
    result.p = NormalTwoSided(static_cast<double>(result.u_x2) / 2.0, a * b / 2.0, variance);
  }
  return result;
}

std::vector<double> HolmAdjust(const std::vector<double>& p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m, 1.0);
  double running = 0;
  for (std::size_t j = 0; j < m; ++j) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - j) * p_values[order[j]]));
    adjusted[order[j]] = running;
  }
  return adjusted;
}

std::string FormatP(double p) {
  return absl::StrFormat("%.3g", p);
}

}  // namespace leasesim::compare
