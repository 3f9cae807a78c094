#pragma once
// The statistics of a comparison, over integer figures: order statistics,
// the Wilcoxon signed-rank test for runs paired by seed, the Mann–Whitney U
// test for unpaired samples (live runs), Hodges–Lehmann estimates of the
// shift, and Holm's step-down correction over many tests.
//
// Deterministic and exact where it is cheap: ranks are counted doubled (so
// midranks of ties stay integers), exact null distributions are integer
// counts over 2^n sign assignments or C(N, n) rank subsets, and only the
// normal approximation of large samples goes through floating point
// (std::erfc; no std:: distributions). Two-sided p-values throughout.

#include <cstdint>
#include <string>
#include <vector>

namespace leasesim::compare {

// The median as a person writes it: the middle value, or the mean of the
// two middle values (so x.5 is possible). Not empty.
double Median(std::vector<std::int64_t> values);

// A two-sided p-value; when exact, also as the fraction count / total.
struct PValue {
  double value = 1.0;
  bool exact = false;
  std::uint64_t count = 0;  // exact: sign assignments (or rank subsets) at least as extreme, both tails
  std::uint64_t total = 0;  // exact: 2^n (or C(N, n))
};

// Exact null distributions are counted up to these sizes (counts fit 64
// bits: 2^60, C(40, 20)); above them the normal approximation with the tie
// correction and a continuity correction of 1/2 is used.
inline constexpr int kSignedRankExactMax = 60;
inline constexpr int kRankSumExactMax = 40;

// Wilcoxon signed-rank over paired differences (new - base per seed):
// zeros are dropped (Wilcoxon's convention), |d| ranked with midranks.
struct SignedRank {
  int pairs = 0;      // all differences
  int nonzero = 0;    // the n the test runs on
  std::int64_t w_plus_x2 = 0;   // twice the rank sum of the positive differences
  std::int64_t w_minus_x2 = 0;  // twice the rank sum of the negative differences
  PValue p;
  // Rank-biserial correlation (W+ - W-) / (W+ + W-), in [-1, 1]; 0 when all
  // differences are zero. Positive: new tends to be higher.
  double rank_biserial = 0;
  // Hodges–Lehmann estimate of the shift: the median of the Walsh averages
  // (d_i + d_j) / 2, i <= j, over all differences (zeros included).
  double hodges_lehmann = 0;
};
SignedRank WilcoxonSignedRank(const std::vector<std::int64_t>& differences);

// Mann–Whitney U (Wilcoxon rank-sum) of `next` against `base`, unpaired,
// midranks for ties (exact permutation counts with ties up to
// kRankSumExactMax observations in all).
struct RankSum {
  int base_n = 0;
  int next_n = 0;
  std::int64_t u_x2 = 0;  // twice U of `next`: pairs with next > base, ties counting 1/2
  PValue p;
  // Rank-biserial r = 2U / (n1 n2) - 1 in [-1, 1]; positive: new higher.
  double rank_biserial = 0;
  // Hodges–Lehmann shift: the median of all differences next_j - base_i.
  double hodges_lehmann = 0;
};
RankSum MannWhitney(const std::vector<std::int64_t>& base, const std::vector<std::int64_t>& next);

// Holm's step-down adjustment: adjusted[i] = max over the first k of the
// sorted p-values of (m - j) p_(j), capped at 1; a hypothesis is rejected
// at family-wise level alpha when its adjusted p-value is <= alpha.
std::vector<double> HolmAdjust(const std::vector<double>& p_values);

// "0.0012", "3.1e-09": a p-value for people (4 significant digits).
std::string FormatP(double p);

}  // namespace leasesim::compare
