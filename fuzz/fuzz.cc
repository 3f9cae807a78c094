#include "fuzz/fuzz.h"

#include <algorithm>
#include <functional>
#include <ostream>

#include <rapidcheck.h>

#include "core/fault_points.h"
#include "fuzz/shrink.h"

namespace leasesim::fuzz {
namespace {

using runner::Fault;
using runner::FaultKind;
using runner::Nanos;
using runner::NodeRef;
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

// One generated fault, in small integers RapidCheck shrinks toward zero:
// kind 0 is a crash, target 0 the leader, length 0 the shortest.
struct FaultGene {
  int kind = 0;          // index into kGeneKinds
  int at_permille = 0;   // when, as a share of the faultable part of the run
  int length_permille = 0;
  int target = 0;        // 0 leader, 1 follower, 2.. node number - 1
  int point = 0;         // 0 none, 1.. a fault point
  bool beyond = false;   // pause/suspend/clog/drift beyond the assumptions
  bool negative = false; // drift / step direction
};

enum GeneKind {
  kGCrash, kGPause, kGSuspend, kGIsolateFromStore, kGIsolate, kGPartitionOneWay, kGClog, kGStoreOutage,
  kGStoreLatency, kGClockDrift, kGClockStep, kGShutdown, kGeneKinds
};

struct FuzzCase {
  int nodes = 3;
  int timing = 0;          // preset
  int period_ms = 1000;
  int batch_items = 1;
  int loss_permille = 0;
  int duration_s = 60;
  std::vector<FaultGene> faults;
  std::uint64_t seed = 1;  // the simulator's seed
};

rc::Gen<FaultGene> GenFault() {
  return rc::gen::build<FaultGene>(
      rc::gen::set(&FaultGene::kind, rc::gen::inRange(0, static_cast<int>(kGeneKinds))),
      rc::gen::set(&FaultGene::at_permille, rc::gen::inRange(0, 1001)),
      rc::gen::set(&FaultGene::length_permille, rc::gen::inRange(0, 1001)),
      rc::gen::set(&FaultGene::target, rc::gen::inRange(0, 6)),
      rc::gen::set(&FaultGene::point, rc::gen::inRange(0, static_cast<int>(core::fault_points::kAll.size()))),
      rc::gen::set(&FaultGene::beyond, rc::gen::arbitrary<bool>()),
      rc::gen::set(&FaultGene::negative, rc::gen::arbitrary<bool>()));
}

rc::Gen<FuzzCase> GenCase() {
  return rc::gen::build<FuzzCase>(
      rc::gen::set(&FuzzCase::nodes, rc::gen::inRange(2, 6)),
      rc::gen::set(&FuzzCase::timing, rc::gen::inRange(0, 3)),
      rc::gen::set(&FuzzCase::period_ms, rc::gen::element(200, 500, 1000, 2000, 5000)),
      rc::gen::set(&FuzzCase::batch_items, rc::gen::inRange(1, 9)),
      rc::gen::set(&FuzzCase::loss_permille, rc::gen::inRange(0, 21)),
      rc::gen::set(&FuzzCase::duration_s, rc::gen::inRange(30, 121)),
      rc::gen::set(&FuzzCase::faults, rc::gen::resize(8, rc::gen::container<std::vector<FaultGene>>(GenFault()))),
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

NodeRef TargetOf(int target, int nodes) {
  if (target == 0) return NodeRef{.leader = true};
  if (target == 1) return NodeRef{.follower = true};
  return NodeRef{.node = std::min(target - 1, nodes)};
}

Nanos Scale(int permille, Nanos low, Nanos high) {
  return (low + (high - low) * permille / 1000) / kMs * kMs;
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
  const core::TimingConfig& t = s.timing;
  const Nanos budget = t.pause_budget;
  const Nanos lease = t.lease_duration;
  const Nanos faultable = s.duration * 3 / 4;
  for (const FaultGene& gene : c.faults) {
    Fault f;
    f.at = std::max(kMs, Scale(gene.at_permille, 0, faultable));
    f.node = TargetOf(gene.target, c.nodes);
    const Nanos outage = Scale(gene.length_permille, 1000 * kMs, 3 * lease);
    const Nanos pause = gene.beyond ? Scale(gene.length_permille, budget + kMs, budget + 3 * lease)
                                    : Scale(gene.length_permille, kMs, budget);
    const std::string point =
        gene.point == 0 ? std::string() : std::string(core::fault_points::kAll[static_cast<std::size_t>(gene.point - 1)]);
    auto restarts = [&](Nanos at) {
      for (int node = 1; node <= c.nodes && at <= s.duration; ++node) {
        s.faults.push_back(Fault{.at = at, .kind = FaultKind::kRestart, .node = NodeRef{.node = node}});
      }
    };
    switch (gene.kind) {
      case kGCrash:
        f.kind = FaultKind::kCrash;
        f.at_point = point;
        s.faults.push_back(f);
        restarts(f.at + Scale(gene.length_permille, kMs, lease));
        continue;
      case kGPause:
      case kGSuspend:
        f.kind = gene.kind == kGPause ? FaultKind::kPause : FaultKind::kSuspend;
        f.duration = std::max(kMs, pause);
        f.at_point = point;
        break;
      case kGIsolateFromStore:
      case kGIsolate:
        f.kind = gene.kind == kGIsolate ? FaultKind::kIsolate : FaultKind::kIsolateFromStore;
        f.duration = outage;
        break;
      case kGPartitionOneWay:
      case kGClog: {
        f.kind = gene.kind == kGClog ? FaultKind::kClog : FaultKind::kPartitionOneWay;
        f.duration = gene.kind == kGClog ? std::max(kMs, pause) : outage;
        const runner::Member node{runner::Member::Kind::kNode, f.node};
        const runner::Member service{gene.point % 2 == 0 ? runner::Member::Kind::kStore : runner::Member::Kind::kLedger, {}};
        f.from = {gene.negative ? service : node};
        f.to = {gene.negative ? node : service};
        f.node = NodeRef{};
        break;
      }
      case kGStoreOutage:
        f.kind = FaultKind::kStoreOutage;
        f.duration = outage;
        f.outage = gene.negative ? backends::StoreOutage::kBlackhole : backends::StoreOutage::kUnavailable;
        break;
      case kGStoreLatency:
        f.kind = FaultKind::kStoreLatency;
        f.duration = outage;
        f.extra = Scale(gene.length_permille, 10 * kMs, 2 * t.request_timeout);
        break;
      case kGClockDrift: {
        f.kind = FaultKind::kClockDrift;
        const std::int64_t magnitude = gene.beyond ? t.drift_bound_ppm + 1 + 400 * gene.length_permille
                                                   : t.drift_bound_ppm * gene.length_permille / 1000;
        f.drift_ppm = gene.negative ? -magnitude : magnitude;
        break;
      }
      case kGClockStep:
        f.kind = FaultKind::kClockStep;
        f.step = (gene.negative ? -1 : 1) * Scale(gene.length_permille, 1000 * kMs, 6 * lease);
        break;
      case kGShutdown:
        if (gene.point == 5) {  // stop the world in the middle of the release
          s.faults.push_back(Fault{.at = f.at, .kind = FaultKind::kPause, .node = NodeRef{.leader = true},
                                   .duration = std::max(kMs, pause),
                                   .at_point = std::string(core::fault_points::kDuringRelease)});
        }
        f.kind = FaultKind::kShutdown;
        f.node = NodeRef{.leader = true};
        f.successor = gene.target >= 2 ? std::min(gene.target - 1, c.nodes) : 0;
        s.faults.push_back(f);
        restarts(f.at + Scale(gene.length_permille, 1000 * kMs, 3 * lease));
        continue;
      default:
        continue;
    }
    s.faults.push_back(f);
  }
  std::stable_sort(s.faults.begin(), s.faults.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
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
