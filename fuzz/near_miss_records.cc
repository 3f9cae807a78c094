#include "fuzz/near_miss_records.h"

#include <array>
#include <string_view>

namespace leasesim::fuzz {
namespace {

// Amounts, where larger is closer: time with two leaders, writes sent while
// two nodes led, writes after the lease, stale writes reaching the ledger.
constexpr std::array<std::string_view, 4> kCloserWhenLarger = {"overlap_ms", "writes_during_overlap",
                                                               "writes_after_lease", "stale_arrivals"};

}  // namespace

bool NearMissRecords::Offer(const std::map<std::string, std::int64_t>& figures, std::size_t holder) {
  bool set = false;
  for (const auto& [name, value] : figures) {
    if (value <= 0) continue;
    bool smaller = false;
    bool larger = false;
    for (std::string_view figure : kDistancesToViolation) smaller = smaller || figure == name;
    for (std::string_view figure : kCloserWhenLarger) larger = larger || figure == name;
    if (!smaller && !larger) continue;
    const auto it = records_.find(name);
    const bool closer = it == records_.end() || (smaller ? value < it->second.best : value > it->second.best);
    if (!closer) continue;
    records_[name] = Record{value, holder};
    set = true;
  }
  return set;
}

int NearMissRecords::HeldBy(std::size_t holder) const {
  int held = 0;
  for (const auto& [name, record] : records_) held += record.holder == holder ? 1 : 0;
  return held;
}

}  // namespace leasesim::fuzz
