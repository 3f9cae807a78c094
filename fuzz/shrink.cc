#include "fuzz/shrink.h"

#include <algorithm>
#include <set>

#include "base/units.h"
#include "runner/fault_catalogue.h"
#include "runner/nemesis.h"

namespace leasesim::fuzz {
namespace {

using runner::Fault;
using runner::Nanos;
using runner::Scenario;

using base::Millis;
using base::Seconds;
using base::WholeMillis;
using base::kNanosPerSecond;

bool RefOk(const runner::NodeRef& ref, int nodes) { return ref.is_role() || ref.node <= nodes; }

bool MembersOk(const std::vector<runner::Member>& members, int nodes) {
  for (const runner::Member& member : members) {
    if (member.kind == runner::Member::Kind::kNode && !RefOk(member.node, nodes)) return false;
  }
  return true;
}

// The scenario with nodes above `nodes` gone, and every fault that named them.
Scenario WithNodes(const Scenario& scenario, int nodes) {
  Scenario smaller = scenario;
  smaller.nodes = nodes;
  std::erase_if(smaller.clocks, [&](const runner::ClockSetting& c) { return c.node > nodes; });
  std::erase_if(smaller.timing_by_node, [&](const runner::NodeTiming& t) { return t.node > nodes; });
  std::erase_if(smaller.faults, [&](const Fault& fault) {
    if (!RefOk(fault.node, nodes) || !MembersOk(fault.from, nodes) || !MembersOk(fault.to, nodes)) return true;
    for (const auto& group : fault.groups) {
      if (!MembersOk(group, nodes)) return true;
    }
    return false;
  });
  for (Fault& fault : smaller.faults) {
    if (fault.successor > nodes) fault.successor = 0;
    // A partition may now have an empty side: drop empty groups.
    std::erase_if(fault.groups, [](const std::vector<runner::Member>& g) { return g.empty(); });
  }
  std::erase_if(smaller.faults, [](const Fault& fault) {
    return fault.kind == runner::FaultKind::kPartition && fault.groups.size() < 2;
  });
  return smaller;
}

bool HasDuration(const Fault& fault) {
  return runner::SpecOf(fault.kind).fields.contains(runner::FaultField::kDuration);
}

// Shrinks a failing scenario: adopts each smaller candidate that still
// fails, within a budget of runs.
class Shrinker {
 public:
  Shrinker(std::uint64_t seed, const StillFails& still_fails, int runs_max)
      : seed_(seed), still_fails_(still_fails), runs_max_(runs_max) {}

  // Runs `candidate`; adopts it when it still fails.
  bool Try(const Scenario& candidate) {
    if (runs_ >= runs_max_) return false;
    ++runs_;
    runner::RunResult result = runner::RunScenario(candidate, seed_);
    if (!still_fails_(result)) return false;
    best_ = candidate;
    best_result_ = std::move(result);
    return true;
  }

  ShrinkOutcome Run(Scenario start) {
    best_ = std::move(start);
    ++runs_;
    best_result_ = runner::RunScenario(best_, seed_);
    bool progress = true;
    while (progress && runs_ < runs_max_) {
      progress = false;
      progress |= RemoveFaults();
      progress |= ShortenFaults();
      progress |= SimplerStrikes();
      progress |= FewerNodes();
      progress |= ShorterRun();
    }
    return ShrinkOutcome{best_, best_result_, runs_};
  }

 private:
  bool RemoveFaults() {
    bool progress = false;
    // Halves first (cheap when most faults are noise), then one at a time.
    for (std::size_t chunk = std::max<std::size_t>(1, best_.faults.size() / 2); chunk >= 1; chunk /= 2) {
      for (std::size_t start = 0; start < best_.faults.size();) {
        Scenario candidate = best_;
        const std::size_t end = std::min(best_.faults.size(), start + chunk);
        candidate.faults.erase(candidate.faults.begin() + static_cast<std::ptrdiff_t>(start),
                               candidate.faults.begin() + static_cast<std::ptrdiff_t>(end));
        if (Try(candidate)) {
          progress = true;  // same start now names the next faults
        } else {
          start += chunk;
        }
      }
      if (chunk == 1) break;
    }
    return progress;
  }

  bool ShortenFaults() {
    bool progress = false;
    for (std::size_t i = 0; i < best_.faults.size(); ++i) {
      if (!HasDuration(best_.faults[i])) continue;
      // Halve while it keeps failing, in whole milliseconds.
      while (best_.faults[i].duration >= Millis(2)) {
        Scenario candidate = best_;
        candidate.faults[i].duration = WholeMillis(candidate.faults[i].duration / 2);
        if (!Try(candidate)) break;
        progress = true;
      }
    }
    return progress;
  }

  // Armed faults strike at an earlier arrival (the first, if the failure
  // allows), whatever the lease; scheduler hiccups go if the failure does
  // without them. Default settings cost no runs.
  bool SimplerStrikes() {
    bool progress = false;
    for (std::size_t i = 0; i < best_.faults.size(); ++i) {
      const int arrival = best_.faults[i].arrival;
      for (int earlier : {1, arrival / 2}) {  // halving again in the next pass
        if (earlier < 1 || earlier >= arrival) continue;
        Scenario candidate = best_;
        candidate.faults[i].arrival = earlier;
        if (Try(candidate)) {
          progress = true;
          break;
        }
      }
      if (best_.faults[i].lease_remaining_below > 0) {
        Scenario candidate = best_;
        candidate.faults[i].lease_remaining_below = 0;
        progress = Try(candidate) || progress;
      }
    }
    if (best_.buggify.enabled()) {
      Scenario candidate = best_;
      candidate.buggify = runner::BuggifyConfig{};
      progress = Try(candidate) || progress;
    }
    return progress;
  }

  bool FewerNodes() {
    bool progress = false;
    while (best_.nodes > 1) {
      if (!Try(WithNodes(best_, best_.nodes - 1))) break;
      progress = true;
    }
    return progress;
  }

  bool ShorterRun() {
    bool progress = false;
    Nanos floor = Seconds(1);
    for (const Fault& fault : best_.faults) floor = std::max(floor, fault.at);
    while (best_.duration > floor + Seconds(1)) {
      Scenario candidate = best_;
      candidate.duration = std::max(floor, (floor + best_.duration) / 2 / kNanosPerSecond * kNanosPerSecond);
      if (candidate.duration >= best_.duration) break;
      for (Fault& fault : candidate.faults) fault.at = std::min(fault.at, candidate.duration);
      if (!Try(candidate)) break;
      progress = true;
    }
    return progress;
  }

  std::uint64_t seed_;
  const StillFails& still_fails_;
  int runs_max_;
  int runs_ = 0;
  Scenario best_;
  runner::RunResult best_result_;
};

}  // namespace

ShrinkOutcome Shrink(const Scenario& failing, std::uint64_t seed, const StillFails& still_fails, int runs_max) {
  Scenario start = runner::ExpandNemesis(failing, seed);
  Shrinker shrinker(seed, still_fails, runs_max);
  return shrinker.Run(std::move(start));
}

StillFails FailsWithAnyOf(std::vector<std::string> kinds) {
  return [kinds = std::move(kinds)](const runner::RunResult& result) {
    for (const checker::Violation& violation : result.unexpected) {
      if (std::find(kinds.begin(), kinds.end(), violation.kind) != kinds.end()) return true;
    }
    return false;
  };
}

}  // namespace leasesim::fuzz
