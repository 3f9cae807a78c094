#pragma once
// The project's one percentile: the nearest-rank rule on integers, so a
// figure or a table computed from it is the same on every machine (no
// interpolation, no floating point). compare/ (distributions), timing/
// (failover and recovery percentiles) and live/ (renewal latency) use it.

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace leasesim::base {

// The smallest value with at least per_mille/1000 of `values` at or below
// it: the ceil(n * per_mille / 1000)-th smallest (per_mille in [1, 1000]:
// 500 the lower median, 990 the p99, 1000 the maximum). 0 when `values`
// is empty. `values` need not be sorted.
inline std::int64_t NearestRank(std::vector<std::int64_t> values, int per_mille) {
  assert(per_mille >= 1);
  assert(per_mille <= 1000);
  if (values.empty()) return 0;
  const std::size_t n = values.size();
  const std::size_t rank = std::max<std::size_t>((n * static_cast<std::size_t>(per_mille) + 999) / 1000, 1);
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

}  // namespace leasesim::base
