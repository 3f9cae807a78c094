#pragma once
// The search's waypoints toward a violation, as FuzzFactory's min/max
// feedback: for each near-miss figure, the closest any case has come so far.
// A case that comes closer than every earlier one is kept even when its
// figure falls in an already seen order of magnitude, and while it holds the
// record it is picked as a parent as often as a case reaching a path no
// other case reached. The figures measure distance to two leaders or to a
// stale write that wins; none names a protocol mistake.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace leasesim::fuzz {

// The figures that measure a distance to a violation, where smaller is
// closer and 0 means nothing of the kind happened: those the figure
// registry (base/figures.h) marks NearMiss::kSmallerIsCloser — the closest
// handover, the closest race a stale write lost at the ledger, the least
// margins by which a holder's belief, a candidate's takeover and a ledger
// write's send kept the lease contract. In the registry's order.
const std::vector<std::string_view>& DistancesToViolation();

// Keeps, per near-miss figure of the registry, the closest any case came.
class NearMissRecords {
 public:
  // Whether `figures` set a record; if so, corpus entry `holder` holds it
  // (the entry the caller is about to keep).
  bool Offer(const std::map<std::string, std::int64_t>& figures, std::size_t holder);
  // How many records corpus entry `holder` holds now.
  int HeldBy(std::size_t holder) const;

 private:
  struct Record {
    std::int64_t best = 0;
    std::size_t holder = 0;
  };
  std::map<std::string, Record> records_;
};

}  // namespace leasesim::fuzz
