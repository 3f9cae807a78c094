#include "timing/worlds.h"

#include <algorithm>

#include "base/units.h"
#include "timing/explain.h"

namespace leasesim::timing {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::int64_t kBatchItems = 4;
constexpr std::int64_t kOutlierPpm = 100;      // one message in 10,000 ...
constexpr std::int64_t kOutlierOverP999 = 2;   // ... held up to twice the p999
constexpr std::int64_t kBeyondDriftPpmMin = 100'000;  // the beyond-bound drift: at least 10 % ...
constexpr std::int64_t kBeyondDriftPpmMax = 500'000;  // ... at most what clock_drift accepts
constexpr std::int64_t kNetworkJitterMs = 1;   // without regions: 0..1 ms each way

std::int64_t Ms(base::Nanos ns) { return ns / base::kNanosPerMilli; }

Json Latency(std::int64_t base, std::int64_t jitter, std::int64_t tail_ppm, std::int64_t tail) {
  Json json = {{"base", base}, {"jitter", jitter}};
  if (tail_ppm > 0 && tail > 0) {
    json["tail_p"] = static_cast<double>(tail_ppm) / base::kPpmOne;
    json["tail"] = tail;
  }
  return json;
}

// When the fault strikes, relative to the lease: the run settles for two
// leases, then faults come at 2, 5 and 8 leases; it ends at 11.
struct Clock {
  std::int64_t lease = 0;
  std::int64_t at(std::int64_t leases) const { return leases * lease; }
};

Json NodeFault(std::int64_t at, const char* kind, std::int64_t duration = 0, const char* point = nullptr) {
  Json fault = {{"at_ms", at}, {"kind", kind}, {"node", "leader"}};
  if (duration > 0) fault["duration_ms"] = duration;
  if (point != nullptr) fault["at_point"] = point;
  return fault;
}

void AddRestarts(Json& faults, std::int64_t at, int nodes) {
  for (int node = 1; node <= nodes; ++node) faults.push_back({{"at_ms", at}, {"kind", "restart"}, {"node", node}});
}

// What every world shares: the timing, latency, clocks at the drift bound,
// the regions, the run's length; Scenario() wraps a fault script in it.
struct Builder {
  const Targets& targets;
  const core::TimingConfig& timing;
  const RegionsPlan* regions;
  LatencyShape latency;
  Clock clock;
  int nodes = 3;

  Json Scenario(const std::string& name, const std::string& description, Json faults) const {
    Json s;
    s["name"] = name;
    s["description"] = description;
    s["nodes"] = nodes;
    s["duration_ms"] = clock.at(11);
    s["lease"] = LeaseJson(timing);
    s["settlement"] = {{"period_ms", std::max<std::int64_t>(1000, NiceDown(clock.lease / 2))}, {"batch_items", kBatchItems}};
    s["store"] = {{"kind", "linearizable"}, {"latency_ms", latency.service}};
    s["network"] = {{"latency_ms", latency.network}};
    if (regions != nullptr) s["regions"] = regions->json;
    if (targets.drift_bound_ppm > 0) {
      // The slowest leader and the fastest candidate the bound allows.
      s["clocks"] = Json::array({{{"node", 1}, {"drift_ppm", -targets.drift_bound_ppm}},
                                 {{"node", 2}, {"drift_ppm", targets.drift_bound_ppm}}});
    }
    if (!faults.empty()) s["faults"] = std::move(faults);
    s["expect"] = {{"violations", Json::array()}};
    return s;
  }
};

Json PausesWithinBudget(const Builder& b) {
  const std::int64_t pause = b.targets.pause_budget_ms;
  Json faults = Json::array();
  faults.push_back(NodeFault(b.clock.at(2), "pause", pause));
  faults.push_back(NodeFault(b.clock.at(3), "pause", pause, "before_renew"));
  faults.push_back(NodeFault(b.clock.at(5), "pause", pause, "before_ledger_write"));
  faults.push_back(NodeFault(b.clock.at(6), "pause", pause, "after_cas_reply"));
  faults.push_back(NodeFault(b.clock.at(8), "pause", pause, "between_batch_items"));
  // Two VM suspends of the budget each, close together: they add up against
  // the lease (the leader counts it on the boot clock), never past it unseen.
  faults.push_back(NodeFault(b.clock.at(9), "suspend", pause));
  faults.push_back(NodeFault(b.clock.at(9) + 3 * pause, "suspend", pause));
  return b.Scenario(kPausesWorld, "The leader stops the world for exactly the pause budget, five times (timed, before a "
                    "renewal, after its lease check before a ledger write, after a CAS reply, mid-batch), then is "
                    "suspended twice for the budget, close together: it must keep the lease and no write may go out "
                    "unfenced.", faults);
}

Json LeaderCrash(const Builder& b) {
  Json faults = Json::array();
  faults.push_back(NodeFault(b.clock.at(2), "crash"));
  AddRestarts(faults, b.clock.at(2) + b.clock.lease / 2, b.nodes);
  faults.push_back(NodeFault(b.clock.at(5), "crash", 0, "after_cas_reply"));
  AddRestarts(faults, b.clock.at(5) + b.clock.lease / 2, b.nodes);
  faults.push_back(NodeFault(b.clock.at(8), "crash", 0, "before_renew"));
  AddRestarts(faults, b.clock.at(8) + b.clock.lease / 2, b.nodes);
  return b.Scenario(kCrashWorld, "The leader crashes three times: at a fixed time, right after a renewal was applied "
                    "(the longest wait for a successor), and just before a renewal; a successor must lead within "
                    "the failover target.", faults);
}

Json LeaderCut(const Builder& b, const std::string& name, const char* kind, const std::string& what) {
  Json faults = Json::array();
  faults.push_back(NodeFault(b.clock.at(2), kind, b.clock.at(2)));
  faults.push_back(NodeFault(b.clock.at(7), kind, b.clock.at(2), "after_cas_reply"));
  return b.Scenario(name, "The leader " + what + " for two leases, at a fixed time and again right after a renewal: "
                    "it must demote at its deadline and a successor take over within the failover target.", faults);
}

Json OneWayToStore(const Builder& b) {
  Json faults = Json::array();
  faults.push_back({{"at_ms", b.clock.at(2)}, {"kind", "partition_oneway"}, {"from", Json::array({"leader"})},
                    {"to", Json::array({"store"})}, {"duration_ms", b.clock.at(2)}});
  return b.Scenario("timing-leader-oneway-to-store", "Nothing the leader sends reaches the store for two leases "
                    "(replies would still come back): its renewals vanish, a successor takes over.", faults);
}

Json StoreOutages(const Builder& b, bool longer) {
  Json faults = Json::array();
  if (longer) {
    faults.push_back({{"at_ms", b.clock.at(2)}, {"kind", "store_outage"}, {"mode", "blackhole"},
                      {"duration_ms", b.clock.at(2)}});
    return b.Scenario("timing-store-outage-long", "The store answers nothing for two leases: nobody can lead; once it "
                      "is back a leader must hold the lease within the recovery bound.", faults);
  }
  // A quarter of the renewal window: the leader's retries ride it out.
  const std::int64_t window = Ms(b.timing.renew_deadline - b.timing.renew_interval);
  const std::int64_t outage = std::max<std::int64_t>(1, window / 4);
  faults.push_back({{"at_ms", b.clock.at(2)}, {"kind", "store_outage"}, {"mode", "unavailable"}, {"duration_ms", outage}});
  faults.push_back({{"at_ms", b.clock.at(6)}, {"kind", "store_outage"}, {"mode", "blackhole"}, {"duration_ms", outage}});
  return b.Scenario("timing-store-outage-short", "The store refuses, then ignores, every request for a quarter of the "
                    "window between renew interval and deadline: the leader's retries should keep the lease.", faults);
}

Json PauseBeyondBudget(const Builder& b) {
  const std::int64_t twice = 2 * std::max(b.targets.pause_budget_ms, Ms(b.timing.safety_margin));
  Json faults = Json::array();
  faults.push_back(NodeFault(b.clock.at(2), "pause", b.clock.at(2), "before_ledger_write"));
  faults.push_back(NodeFault(b.clock.at(7), "pause", twice, "before_renew"));
  return b.Scenario("timing-pause-beyond-budget", "Beyond the assumptions: the leader stops for two leases after its "
                    "lease check, then for twice the pause budget before a renewal. Overlap is expected; its late "
                    "writes must be fenced.", faults);
}

// Slow enough that the leader's deadline, on its clock, outlasts the
// latest takeover the rules allow by a renew interval: overlap every time.
std::int64_t BeyondDriftPpm(const core::TimingConfig& t) {
  const base::Nanos outlast = core::RecoveryBound(t) + t.renew_interval;
  const std::int64_t drift = base::kPpmOne - t.renew_deadline / std::max<base::Nanos>(1, outlast / base::kPpmOne);
  return std::clamp(drift, std::max(kBeyondDriftPpmMin, t.drift_bound_ppm + kBeyondDriftPpmMin), kBeyondDriftPpmMax);
}

Json DriftBeyondBound(const Builder& b) {
  const std::int64_t drift = BeyondDriftPpm(b.timing);
  Json faults = Json::array();
  faults.push_back({{"at_ms", b.clock.at(2)}, {"kind", "clock_drift"}, {"node", "leader"}, {"drift_ppm", -drift}});
  faults.push_back(NodeFault(b.clock.at(4), "isolate_from_store", b.clock.at(2)));
  return b.Scenario("timing-drift-beyond-bound", "Beyond the assumptions: the leader's clock slows to " +
                    std::to_string(drift) + " ppm, then it loses the store: its deadline outlives the lease a "
                    "successor waits out. Overlap is expected; fencing must hold.", faults);
}

}  // namespace

const char* WorldRoleName(WorldRole role) {
  switch (role) {
    case WorldRole::kQuiet: return "quiet";
    case WorldRole::kFailover: return "failover";
    case WorldRole::kOutage: return "outage";
    case WorldRole::kBeyond: return "beyond";
  }
  return "?";
}

LatencyShape ShapeLatency(const Targets& t, const RegionsPlan* regions) {
  // Service time: base and jitter carry the body (up to half the p99), a
  // uniform tail puts 1 % of calls above the p99 and 0.1 % above the p999.
  const std::int64_t local = regions != nullptr ? regions->local_rtt_ms : 2 * kNetworkJitterMs;
  const std::int64_t p99 = t.store_p99_ms;
  const std::int64_t p999 = t.store_p999_ms > 0 ? t.store_p999_ms : p99 + p99 / 2;
  const std::int64_t a = std::max<std::int64_t>(1, p99 - local);
  const std::int64_t b = std::max<std::int64_t>(a + 1, p999 - local);
  const std::int64_t base = a / 4;
  const std::int64_t jitter = a / 4;
  const std::int64_t mean = base + jitter / 2;
  const std::int64_t ta = std::max<std::int64_t>(1, a - mean);
  const std::int64_t tb = std::max<std::int64_t>(ta + 1, b - mean);
  const std::int64_t tail = std::max<std::int64_t>(tb, (10 * tb - ta) / 9);
  const std::int64_t tail_ppm = std::clamp<std::int64_t>(10'000 * tail / std::max<std::int64_t>(1, tail - ta), 1, 500'000);
  LatencyShape shape;
  shape.service = Latency(base, jitter, tail_ppm, tail);
  shape.network = Latency(0, kNetworkJitterMs, kOutlierPpm, kOutlierOverP999 * p999);
  return shape;
}

WorldSet VerifyWorlds(const Targets& targets, const core::TimingConfig& timing, const RegionsPlan* regions) {
  Builder b{targets, timing, regions, ShapeLatency(targets, regions), Clock{Ms(timing.lease_duration)},
            regions != nullptr ? regions->nodes : 3};
  WorldSet set;
  Json list = Json::array();
  auto add = [&](Json scenario, WorldRole role) {
    set.worlds.push_back({scenario["name"].get<std::string>(), role});
    list.push_back(std::move(scenario));
  };
  add(b.Scenario(kSteadyWorld, "Healthy nodes with clocks at the drift bound and the store's latency as given: "
                 "one leader throughout; every demotion is spurious.", Json::array()), WorldRole::kQuiet);
  if (targets.pause_budget_ms > 0) add(PausesWithinBudget(b), WorldRole::kQuiet);
  add(StoreOutages(b, false), WorldRole::kQuiet);
  add(LeaderCrash(b), WorldRole::kFailover);
  add(LeaderCut(b, "timing-leader-isolated-from-store", "isolate_from_store", "cannot reach the store"),
      WorldRole::kFailover);
  add(LeaderCut(b, "timing-leader-partitioned", "isolate", "is partitioned from every other host"),
      WorldRole::kFailover);
  add(OneWayToStore(b), WorldRole::kFailover);
  add(StoreOutages(b, true), WorldRole::kOutage);
  add(PauseBeyondBudget(b), WorldRole::kBeyond);
  add(DriftBeyondBound(b), WorldRole::kBeyond);
  set.file = {{"scenarios", std::move(list)}};
  return set;
}

WorldSet SelectWorlds(const WorldSet& all, const std::vector<std::string>& names) {
  WorldSet set;
  Json list = Json::array();
  for (std::size_t i = 0; i < all.worlds.size(); ++i) {
    if (std::find(names.begin(), names.end(), all.worlds[i].name) == names.end()) continue;
    set.worlds.push_back(all.worlds[i]);
    list.push_back(all.file["scenarios"][i]);
  }
  set.file = {{"scenarios", std::move(list)}};
  return set;
}

}  // namespace leasesim::timing
