#include "fuzz/fuzz.h"

#include <algorithm>
#include <functional>
#include <ostream>


#include "fuzz/shrink.h"
#include "fuzz/search.h"

namespace leasesim::fuzz {
namespace {

using runner::Nanos;
using runner::Scenario;


const std::vector<std::string> kProperties = {
    "all",
    "no-stale-token-write",
    "no-dual-writer",
    "no-duplicate-settlement",
    "no-lease-overlap",
    "recovery",
    "same-seed-same-trace",
};

bool HasKind(const runner::RunResult& result, std::initializer_list<const char*> kinds) {
  for (const checker::Violation& violation : result.unexpected) {
    for (const char* kind : kinds) {
      if (violation.kind == kind) return true;
    }
  }
  return false;
}

}  // namespace

const std::vector<std::string>& FuzzProperties() { return kProperties; }

std::optional<base::InputError> CheckPropertyName(const std::string& property) {
  if (std::find(kProperties.begin(), kProperties.end(), property) != kProperties.end()) return std::nullopt;
  std::string names;
  for (const std::string& name : kProperties) names += (names.empty() ? "" : ", ") + name;
  return base::InputError{"--property", "unknown property \"" + property + "\" (known: " + names + ")"};
}

bool Holds(const std::string& property, const runner::RunResult& result,
           const std::function<runner::RunResult()>& rerun) {
  if (property == "all") return result.ok();
  if (property == "no-stale-token-write") return !HasKind(result, {"stale_token_write"});
  if (property == "no-dual-writer") return !HasKind(result, {"dual_writer", "term_reuse"});
  if (property == "no-duplicate-settlement") return !HasKind(result, {"duplicate_settlement"});
  if (property == "no-lease-overlap") {
    return !HasKind(result, {"lease_overlap", "write_outside_lease", "lease_outlived", "early_takeover"});
  }
  if (property == "recovery") return !HasKind(result, {"slow_recovery", "missed_settlement"});
  if (property == "same-seed-same-trace") {
    const runner::RunResult again = rerun();
    return again.trace_hash == result.trace_hash && again.trace_events == result.trace_events;
  }
  return result.ok();
}

SearchOptions SearchOptionsOf(const FuzzOptions& options) {
  SearchOptions search;
  search.runs = options.runs;
  search.seed = options.seed;
  search.protocol = options.protocol;
  search.steer = options.steer;
  search.time_budget_ms = options.time_budget_ms;
  search.on_progress = options.on_progress;
  return search;
}

FuzzOutcome RunFuzz(const FuzzOptions& options, std::ostream& log) {
  SearchOptions search = SearchOptionsOf(options);
  search.fails = [&](const Scenario& scenario, std::uint64_t seed, const runner::RunResult& result) {
    return !Holds(options.property, result, [&] { return runner::RunScenario(scenario, seed); });
  };
  const SearchOutcome found = Search(search);
  FuzzOutcome outcome;
  outcome.cases = found.runs;
  outcome.search = found;
  if (!found.failed) return outcome;
  outcome.failed = true;
  outcome.run_seed = found.run_seed;
  log << "fuzz: property " << options.property << " failed at case " << found.failing_run << " of the session ("
      << found.failing.faults.size() << " fault(s) before shrinking)\n";
  Scenario failing = found.failing;
  failing.name = "counterexample";
  if (options.shrink && options.property != "same-seed-same-trace") {
    const ShrinkOutcome polished = Shrink(failing, found.run_seed, [&](const runner::RunResult& run) {
      return !Holds(options.property, run, {});
    });
    failing = polished.scenario;
    outcome.shrink_runs = polished.runs;
  }
  outcome.counterexample = failing;
  outcome.violations = runner::RunScenario(failing, found.run_seed).unexpected;
  return outcome;
}

}  // namespace leasesim::fuzz
