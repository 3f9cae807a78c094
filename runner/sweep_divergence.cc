#include "runner/sweep_divergence.h"

#include <algorithm>

namespace leasesim::runner {
namespace {

std::string TrueTime(sim::Nanos ns) {
  std::string fraction = std::to_string(ns % sim::kNanosPerSecond);
  fraction.insert(fraction.begin(), 9 - std::min<std::size_t>(fraction.size(), 9), '0');
  return std::to_string(ns / sim::kNanosPerSecond) + "." + fraction + " s";
}

}  // namespace

std::optional<Divergence> FirstDivergence(const std::vector<sim::TraceEvent>& first,
                                          const std::vector<sim::TraceEvent>& second) {
  const std::size_t common = std::min(first.size(), second.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (first[i] == second[i]) continue;
    return Divergence{i, std::min(first[i].time, second[i].time), first[i], second[i]};
  }
  if (first.size() == second.size()) return std::nullopt;
  Divergence divergence;
  divergence.index = common;
  if (common < first.size()) {
    divergence.first = first[common];
    divergence.time = first[common].time;
  } else {
    divergence.second = second[common];
    divergence.time = second[common].time;
  }
  return divergence;
}

std::string DescribeDivergence(const Divergence& divergence) {
  auto version = [](const std::optional<sim::TraceEvent>& event) {
    return event ? event->ToJson() : std::string("(trace ended)");
  };
  return "trace event #" + std::to_string(divergence.index) + " at " + TrueTime(divergence.time) + ": " +
         version(divergence.first) + " vs " + version(divergence.second);
}

}  // namespace leasesim::runner
