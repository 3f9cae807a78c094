#pragma once
// Finding where two runs of the same scenario and seed stopped agreeing:
// the first trace event at which their retained traces differ.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/trace.h"

namespace leasesim::runner {

struct Divergence {
  std::uint64_t index = 0;  // position of the first differing event (0-based)
  sim::Nanos time = 0;      // its virtual time (the earlier of the two)
  // The two versions; nullopt where that trace had already ended.
  std::optional<sim::TraceEvent> first;
  std::optional<sim::TraceEvent> second;
};

// nullopt when the traces are identical.
std::optional<Divergence> FirstDivergence(const std::vector<sim::TraceEvent>& first,
                                          const std::vector<sim::TraceEvent>& second);

// "trace event #1234 at 12.345678901 s: {...} vs {...}".
std::string DescribeDivergence(const Divergence& divergence);

}  // namespace leasesim::runner
