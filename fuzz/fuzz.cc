#include "fuzz/fuzz.h"

#include <algorithm>
#include <functional>
#include <ostream>

#include <rapidcheck.h>

#include "fuzz/shrink.h"
#include "runner/fault_generator.h"

namespace leasesim::fuzz {
namespace {

using runner::Nanos;
using runner::Scenario;

constexpr Nanos kMs = sim::kNanosPerMilli;

const std::vector<std::string> kProperties = {
    "all",
    "no-stale-token-write",
    "no-dual-writer",
    "no-duplicate-settlement",
    "no-lease-overlap",
    "recovery",
    "same-seed-same-trace",
};

// The fault script comes from the one fault generator
// (runner/fault_generator.h) fed by a choice sequence: every choice the
// generator makes (which kinds are on, how many faults, each one's time,
// target, length, fault point, arrival, ...) is the next number of the
// sequence, reduced to the range asked for. RapidCheck shrinks the numbers
// toward zero, i.e. toward the first choice of each range: fewer faults,
// earlier, shorter, aimed at the leader. A sequence that runs out answers 0.
constexpr std::size_t kChoices = 160;

class ChoiceDraw final : public runner::FaultDraw {
 public:
  explicit ChoiceDraw(const std::vector<std::uint32_t>& choices) : choices_(choices) {}
  std::uint64_t Below(std::uint64_t bound) override {
    if (next_ >= choices_.size()) return 0;
    return choices_[next_++] % bound;
  }

 private:
  const std::vector<std::uint32_t>& choices_;
  std::size_t next_ = 0;
};

struct FuzzCase {
  int nodes = 3;
  int timing = 0;          // preset
  int period_ms = 1000;
  int batch_items = 1;
  int loss_permille = 0;
  int duration_s = 60;
  std::vector<std::uint32_t> choices;  // the fault generator's
  std::uint64_t seed = 1;  // the simulator's seed
};

rc::Gen<FuzzCase> GenCase() {
  return rc::gen::build<FuzzCase>(
      rc::gen::set(&FuzzCase::nodes, rc::gen::inRange(2, 6)),
      rc::gen::set(&FuzzCase::timing, rc::gen::inRange(0, 3)),
      rc::gen::set(&FuzzCase::period_ms, rc::gen::element(200, 500, 1000, 2000, 5000)),
      rc::gen::set(&FuzzCase::batch_items, rc::gen::inRange(1, 9)),
      rc::gen::set(&FuzzCase::loss_permille, rc::gen::inRange(0, 21)),
      rc::gen::set(&FuzzCase::duration_s, rc::gen::inRange(30, 121)),
      rc::gen::set(&FuzzCase::choices, rc::gen::container<std::vector<std::uint32_t>>(kChoices, rc::gen::arbitrary<std::uint32_t>())),
      rc::gen::set(&FuzzCase::seed, rc::gen::inRange<std::uint64_t>(1, 1'000'000)));
}

core::TimingConfig Preset(int index) {
  core::TimingConfig t;
  switch (index) {
    case 1:  // tight: little room between the deadline and a takeover
      t = {.lease_duration = 10000 * kMs, .renew_interval = 2000 * kMs, .renew_deadline = 9000 * kMs,
           .retry = 200 * kMs, .request_timeout = 1000 * kMs, .drift_bound_ppm = 100,
           .safety_margin = 200 * kMs, .pause_budget = 500 * kMs};
      break;
    case 2:  // short leases
      t = {.lease_duration = 3000 * kMs, .renew_interval = 1000 * kMs, .renew_deadline = 2000 * kMs,
           .retry = 300 * kMs, .request_timeout = 500 * kMs, .drift_bound_ppm = 1000,
           .safety_margin = 200 * kMs, .pause_budget = 500 * kMs};
      break;
    default:  // the documented defaults
      t = {.lease_duration = 10000 * kMs, .renew_interval = 3000 * kMs, .renew_deadline = 7000 * kMs,
           .retry = 1000 * kMs, .request_timeout = 1000 * kMs, .drift_bound_ppm = 1000,
           .safety_margin = 500 * kMs, .pause_budget = 2000 * kMs};
      break;
  }
  return t;
}

// What fuzzing asks of the generator: every kind, up to eight faults, within
// and beyond the assumptions, strikes timed by protocol state, swarm style.
runner::NemesisConfig GeneratorConfig() {
  runner::NemesisConfig config;
  config.enabled = true;
  config.faults_max = 8;
  config.within_assumptions = false;
  config.timed_strikes = true;
  return config;
}

Scenario ToScenario(const FuzzCase& c, const std::string& variant) {
  Scenario s;
  s.name = "counterexample";
  s.nodes = c.nodes;
  s.duration = c.duration_s * sim::kNanosPerSecond;
  s.timing = Preset(c.timing);
  s.variant = variant;
  s.settlement_period = c.period_ms * kMs;
  s.batch_items = c.batch_items;
  s.settlement_poll = std::max<Nanos>(kMs, s.settlement_period / 10 / kMs * kMs);
  s.store.service = sim::LatencyModel{.base_ns = 2 * kMs, .jitter_ns = 3 * kMs, .tail_ppm = 10'000, .tail_ns = 200 * kMs};
  s.network.latency = sim::LatencyModel{.base_ns = kMs, .jitter_ns = 2 * kMs};
  s.network.loss_ppm = static_cast<std::uint32_t>(c.loss_permille) * 1000;
  ChoiceDraw draw(c.choices);
  s.faults = runner::DrawFaults(s, GeneratorConfig(), draw);
  return s;
}

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

std::optional<std::string> CheckPropertyName(const std::string& property) {
  if (std::find(kProperties.begin(), kProperties.end(), property) != kProperties.end()) return std::nullopt;
  std::string names;
  for (const std::string& name : kProperties) names += (names.empty() ? "" : ", ") + name;
  return "unknown property \"" + property + "\" (known: " + names + ")";
}

bool Holds(const std::string& property, const runner::RunResult& result,
           const std::function<runner::RunResult()>& rerun) {
  if (property == "all") return result.ok();
  if (property == "no-stale-token-write") return !HasKind(result, {"stale_token_write"});
  if (property == "no-dual-writer") return !HasKind(result, {"dual_writer", "term_reuse"});
  if (property == "no-duplicate-settlement") return !HasKind(result, {"duplicate_settlement"});
  if (property == "no-lease-overlap") return !HasKind(result, {"lease_overlap", "write_outside_lease"});
  if (property == "recovery") return !HasKind(result, {"slow_recovery", "missed_settlement"});
  if (property == "same-seed-same-trace") {
    const runner::RunResult again = rerun();
    return again.trace_hash == result.trace_hash && again.trace_events == result.trace_events;
  }
  return result.ok();
}

FuzzOutcome RunFuzz(const FuzzOptions& options, std::ostream& log) {
  FuzzOutcome outcome;
  bool have_failure = false;
  Scenario last_failing;
  std::uint64_t last_seed = 0;
  const auto property = [&] {
    const FuzzCase c = *GenCase();
    const Scenario scenario = ToScenario(c, options.variant);
    ++outcome.cases;
    const runner::RunResult result = runner::RunScenario(scenario, c.seed);
    const bool holds = Holds(options.property, result, [&] { return runner::RunScenario(scenario, c.seed); });
    if (!holds) {
      // Shrinking descends through failing cases only: the last failing case
      // seen is the minimal one RapidCheck reports.
      have_failure = true;
      last_failing = scenario;
      last_seed = c.seed;
    }
    RC_ASSERT(holds);
  };
  rc::detail::TestParams params;
  params.seed = options.seed;
  params.maxSuccess = options.runs;
  params.maxSize = 100;
  params.disableShrinking = !options.shrink;
  rc::detail::TestMetadata metadata;
  metadata.id = "leasesim-fuzz";
  metadata.description = "leasesim fuzz";
  // Our own (silent) listener: the session is reported below, with the
  // leasesim commands that reproduce it, not as RC_PARAMS.
  struct Quiet final : rc::detail::TestListener {
    void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
    void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
    void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
  } quiet;
  const rc::detail::TestResult result =
      rc::detail::checkProperty(rc::detail::toProperty(property), metadata, params, quiet);
  rc::detail::FailureResult failure;
  if (!result.match(failure) || !have_failure) return outcome;
  outcome.failed = true;
  outcome.message = failure.description;
  outcome.run_seed = last_seed;
  log << "fuzz: property " << options.property << " failed after " << failure.numSuccess
      << " passing case(s); RapidCheck shrank it to " << last_failing.faults.size() << " fault(s)\n";
  if (options.shrink && options.property != "same-seed-same-trace") {
    const ShrinkOutcome polished = Shrink(last_failing, last_seed, [&](const runner::RunResult& run) {
      return !Holds(options.property, run, {});
    });
    last_failing = polished.scenario;
  }
  outcome.counterexample = last_failing;
  outcome.violations = runner::RunScenario(last_failing, last_seed).unexpected;
  return outcome;
}

}  // namespace leasesim::fuzz
