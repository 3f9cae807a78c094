#include "fuzz/baseline.h"

#include <ostream>
#include <set>

#include "fuzz/shrink.h"
#include "core/protocol.h"
#include "runner/protocol_stores.h"

namespace leasesim::fuzz {
namespace {

std::set<std::string> KindsOf(const runner::RunResult& result) {
  std::set<std::string> kinds;
  for (const checker::Violation& violation : result.unexpected) kinds.insert(violation.kind);
  return kinds;
}

// The violations of `result` that fail the property on their own and whose
// kind `other` (the other protocol's run of the same case) does not show.
std::vector<checker::Violation> Beyond(const std::string& property, const runner::RunResult& result,
                                       const runner::RunResult& other) {
  const std::set<std::string> other_kinds = KindsOf(other);
  std::vector<checker::Violation> beyond;
  for (const checker::Violation& violation : result.unexpected) {
    if (other_kinds.contains(violation.kind)) continue;
    runner::RunResult alone;
    alone.unexpected = {violation};
    if (!Holds(property, alone, {})) beyond.push_back(violation);
  }
  return beyond;
}

runner::RunResult RunAs(runner::Scenario scenario, const std::string& protocol, std::uint64_t seed) {
  runner::SetScenarioProtocol(scenario, protocol);
  return runner::RunScenario(scenario, seed);
}

// Shrinks a worse case while the new side keeps failing with its new
// kinds; the result is kept only if the baseline still passes it that way.
void ShrinkWorse(WorseCase& worse, const std::string& baseline, const std::string& property) {
  std::vector<std::string> kinds;
  for (const checker::Violation& violation : worse.new_violations) kinds.push_back(violation.kind);
  const ShrinkOutcome shrunk = Shrink(worse.scenario, worse.seed, FailsWithAnyOf(kinds));
  const runner::RunResult base = RunAs(shrunk.scenario, baseline, worse.seed);
  std::vector<checker::Violation> still = Beyond(property, shrunk.result, base);
  if (still.empty()) return;
  worse.scenario = shrunk.scenario;
  worse.scenario.name = "worse-" + std::to_string(worse.index);
  worse.new_violations = std::move(still);
  const std::set<std::string> base_kinds = KindsOf(base);
  worse.baseline_kinds.assign(base_kinds.begin(), base_kinds.end());
  worse.shrunk = true;
}

}  // namespace

std::string CheckBaseline(const FuzzOptions& options, const std::string& baseline_protocol) {
  if (const std::string problem = core::Protocols().Find(baseline_protocol).error; !problem.empty()) {
    return "--baseline-protocol: " + problem;
  }
  if (options.property == "same-seed-same-trace") {
    return "--baseline-protocol compares two protocols; the same-seed-same-trace property compares a run with itself";
  }
  return "";
}

BaselineOutcome RunAgainstBaseline(const FuzzOptions& options, const std::string& baseline_protocol, std::ostream& log) {
  BaselineOutcome outcome;
  SearchOptions search = SearchOptionsOf(options);
  int index = 0;
  search.fails = [&](const runner::Scenario& scenario, std::uint64_t seed, const runner::RunResult& result) {
    ++index;
    const runner::RunResult base = RunAs(scenario, baseline_protocol, seed);
    std::vector<checker::Violation> worse = Beyond(options.property, result, base);
    if (!worse.empty()) {
      ++outcome.worse;
      if (outcome.worse_cases.size() < kWorseCasesKept) {
        WorseCase kept{.index = index, .scenario = scenario, .seed = seed, .new_violations = std::move(worse)};
        kept.scenario.name = "worse-" + std::to_string(index);
        const std::set<std::string> base_kinds = KindsOf(base);
        kept.baseline_kinds.assign(base_kinds.begin(), base_kinds.end());
        outcome.worse_cases.push_back(std::move(kept));
      }
    } else if (!Beyond(options.property, base, result).empty()) {
      ++outcome.better;
    } else if (!Holds(options.property, result, {}) && !Holds(options.property, base, {})) {
      ++outcome.both_failing;
    }
    return false;  // differential sessions run every case
  };
  outcome.search = Search(search);
  outcome.cases = outcome.search.runs;
  if (options.shrink && !outcome.worse_cases.empty()) {
    log << "fuzz: shrinking worse case " << outcome.worse_cases.front().index << " while the baseline passes it\n";
    ShrinkWorse(outcome.worse_cases.front(), baseline_protocol, options.property);
  }
  return outcome;
}

}  // namespace leasesim::fuzz
