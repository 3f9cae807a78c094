#include "fuzz/near_miss_records.h"

#include "base/figures.h"

namespace leasesim::fuzz {

const std::vector<std::string_view>& DistancesToViolation() {
  static const std::vector<std::string_view> distances = [] {
    std::vector<std::string_view> names;
    for (const base::FigureDefinition& definition : base::FigureDefinitions()) {
      if (definition.near_miss == base::NearMiss::kSmallerIsCloser) names.push_back(definition.name);
    }
    return names;
  }();
  return distances;
}

bool NearMissRecords::Offer(const std::map<std::string, std::int64_t>& figures, std::size_t holder) {
  bool set = false;
  for (const auto& [name, value] : figures) {
    if (value <= 0) continue;
    const base::FigureDefinition* definition = base::FindFigure(name);
    if (definition == nullptr || definition->near_miss == base::NearMiss::kNone) continue;
    const bool smaller = definition->near_miss == base::NearMiss::kSmallerIsCloser;
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
