#include "fuzz/zoo.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "runner/run.h"
#include "runner/scenario_parser.h"

namespace leasesim::fuzz {
namespace {

using Json = nlohmann::json;
using core::ProtocolVariant;

// The world every zoo scenario starts from: three nodes, a minute, the
// documented default timing with a 2 s pause budget.
Json Base() {
  return Json::parse(R"({
    "nodes": 3, "duration_ms": 60000,
    "lease": {"duration_ms": 10000, "renew_interval_ms": 3000, "renew_deadline_ms": 7000, "retry_ms": 1000,
              "request_timeout_ms": 1000, "drift_bound_ppm": 1000, "safety_margin_ms": 500, "pause_budget_ms": 2000},
    "settlement": {"period_ms": 1000, "batch_items": 4, "poll_ms": 50},
    "store": {"kind": "linearizable", "latency_ms": {"base": 2, "jitter": 3, "tail_p": 0.01, "tail": 200}},
    "network": {"latency_ms": {"base": 1, "jitter": 2}, "loss": 0.001},
    "expect": {"violations": []}
  })");
}

struct Recipe {
  ProtocolVariant variant;
  const char* description;
  const char* patch;  // merged into Base() (RFC 7386)
  int seed_budget;
};

// Each recipe names the mistake and the world that exposes it. Faults the
// nemesis draws per seed; a few recipes add one hand-written setup fault.
const Recipe kRecipes[] = {
    {ProtocolVariant::kNoFencing,
     "The ledger ignores tokens. A follower's clock runs 50% fast from 5 s (beyond the bound); when the nemesis "
     "cuts the leader off from the store, the follower takes over while the leader still settles. With keys in "
     "place a stale write only shows when it hits a window the successor has not settled yet, which short "
     "windows make likely.",
     R"({"lease": {"duration_ms": 10000, "renew_interval_ms": 3000, "renew_deadline_ms": 8000, "retry_ms": 200,
                   "request_timeout_ms": 1000, "drift_bound_ppm": 1000, "safety_margin_ms": 500, "pause_budget_ms": 1000},
         "settlement": {"period_ms": 200, "poll_ms": 20},
         "faults": [{"at_ms": 5000, "kind": "clock_drift", "node": "follower", "drift_ppm": 500000}],
         "nemesis": {"kinds": ["isolate_from_store", "partition", "store_outage"], "faults_max": 4,
                     "from_ms": 6000, "until_ms": 40000}})",
     30},
    {ProtocolVariant::kRenewDeadlineFromReply,
     "Validity counted from the renewal's reply. Tight timing (200 ms between the renew deadline and the takeover "
     "wait) and slow replies on the network (tail latency) make the lease outlive what a candidate assumes, "
     "once the leader is cut off from the store.",
     R"({"lease": {"duration_ms": 10000, "renew_interval_ms": 2000, "renew_deadline_ms": 9800, "retry_ms": 100,
                   "request_timeout_ms": 1500, "drift_bound_ppm": 10, "safety_margin_ms": 100, "pause_budget_ms": 0},
         "network": {"latency_ms": {"base": 1, "jitter": 2, "tail_p": 0.3, "tail": 1200}, "loss": 0.001},
         "nemesis": {"kinds": ["isolate_from_store"], "swarm": false, "faults_max": 6}})",
     30},
    {ProtocolVariant::kExpiryFromWallTimestamp,
     "Expiry judged from the record's wall-clock stamp: NTP steps make a live lease look expired.",
     R"({"nemesis": {"kinds": ["clock_step"], "swarm": false, "faults_max": 4}})", 30},
    {ProtocolVariant::kBatchContinuesAfterFailedRenewal,
     "The lease is checked once per batch. The leader is cut off from the store at 10 s, so its renewals fail; "
     "pauses within the budget strike between batch items around its deadline.",
     R"({"lease": {"duration_ms": 10000, "renew_interval_ms": 2000, "renew_deadline_ms": 5000, "retry_ms": 500,
                   "request_timeout_ms": 1000, "drift_bound_ppm": 1000, "safety_margin_ms": 500, "pause_budget_ms": 4000},
         "faults": [{"at_ms": 10000, "kind": "isolate_from_store", "node": "leader", "duration_ms": 20000}],
         "nemesis": {"kinds": ["pause"], "swarm": false, "faults_max": 4, "points": ["between_batch_items"],
                     "from_ms": 11000, "until_ms": 15000}})",
     30},
    {ProtocolVariant::kCampaignFromStaleRead,
     "Expiry timed from a cached first read of the holder: renewals never show, so a live lease 'expires'.",
     R"({"nemesis": {"faults_max": 3}})", 30},
    {ProtocolVariant::kBlindWrite,
     "Acquire and renew overwrite the record: every node that starts at once takes the lease.",
     R"({"nemesis": {"faults_max": 3}})", 30},
    {ProtocolVariant::kNoTermBump,
     "A takeover keeps the old term: any change of leader reuses a term.",
     R"({"nemesis": {"kinds": ["crash", "isolate_from_store", "shutdown", "store_outage"], "faults_max": 4}})", 30},
    {ProtocolVariant::kReleaseWithoutVersionCheck,
     "A release overwrites whatever record is there. A leader stopped in the middle of its graceful release "
     "(beyond the pause budget) frees its successor's lease when it wakes.",
     R"({"nemesis": {"kinds": ["shutdown"], "swarm": false, "faults_max": 4, "within_assumptions": false}})", 30},
    {ProtocolVariant::kNoIdempotencyKey,
     "No idempotency key: a batch applied whose reply was lost is applied again on retry.",
     R"({"network": {"latency_ms": {"base": 1, "jitter": 2}, "loss": 0.01},
         "nemesis": {"kinds": ["partition_oneway", "clog", "crash"], "faults_max": 4}})", 30},
    {ProtocolVariant::kOwnLeaseDuration,
     "A candidate waits its own lease duration. Nodes 1 and 2 hold 20 s leases, node 3 a 10 s one; when a "
     "long-lease leader is cut off from the store, node 3 takes over while it still believes it leads.",
     R"({"lease": {"by_node": [{"node": 1, "duration_ms": 20000, "renew_interval_ms": 4000, "renew_deadline_ms": 15000},
                               {"node": 2, "duration_ms": 20000, "renew_interval_ms": 4000, "renew_deadline_ms": 15000}]},
         "nemesis": {"kinds": ["isolate_from_store", "crash"], "swarm": false, "faults_max": 4}})",
     30},
    {ProtocolVariant::kConnectionLossStillLeading,
     "A failed renewal (timeout, unavailable store) is taken as still leading.",
     R"({"nemesis": {"kinds": ["isolate_from_store", "store_outage", "partition"], "faults_max": 4}})", 30},
};

runner::Scenario ParseOne(const Json& json) {
  auto parsed = runner::ParseScenarioText("zoo", Json{{"scenarios", Json::array({json})}}.dump());
  if (std::holds_alternative<runner::ParseError>(parsed)) {
    throw std::logic_error("zoo scenario does not parse: " + std::get<runner::ParseError>(parsed).message);
  }
  return std::get<runner::ScenarioFile>(parsed).scenarios.at(0);
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace

const std::vector<ZooEntry>& ZooEntries() {
  static const std::vector<ZooEntry> entries = [] {
    std::vector<ZooEntry> list;
    for (const Recipe& recipe : kRecipes) {
      Json json = Base();
      json.merge_patch(Json::parse(recipe.patch));
      json["name"] = "zoo-" + std::string(core::ProtocolVariantName(recipe.variant));
      json["description"] = recipe.description;
      json["variant"] = std::string(core::ProtocolVariantName(recipe.variant));
      list.push_back(ZooEntry{recipe.variant, ParseOne(json), recipe.seed_budget});
    }
    return list;
  }();
  return entries;
}

ZooRow HuntVariant(const ZooEntry& entry, int seeds, bool shrink) {
  ZooRow row;
  row.variant = std::string(core::ProtocolVariantName(entry.variant));
  for (int seed = 1; seed <= seeds; ++seed) {
    ++row.seeds_run;
    const runner::RunResult result = runner::RunScenario(entry.scenario, static_cast<std::uint64_t>(seed));
    if (result.ok()) continue;
    row.caught = true;
    row.first_seed = static_cast<std::uint64_t>(seed);
    std::set<std::string> kinds;
    for (const checker::Violation& violation : result.unexpected) kinds.insert(violation.kind);
    row.kinds.assign(kinds.begin(), kinds.end());
    break;
  }
  if (row.caught && shrink) {
    row.shrink = Shrink(entry.scenario, row.first_seed, FailsWithAnyOf(row.kinds));
    row.shrunk = true;
  }
  return row;
}

ZooRow CheckCorrect(int seeds) {
  ZooRow row;
  row.variant = "correct";
  for (const ZooEntry& entry : ZooEntries()) {
    runner::Scenario scenario = entry.scenario;
    scenario.variant = ProtocolVariant::kCorrect;
    for (int seed = 1; seed <= seeds; ++seed) {
      ++row.runs;
      const runner::RunResult result = runner::RunScenario(scenario, static_cast<std::uint64_t>(seed));
      if (result.ok()) continue;
      ++row.false_alarms;
      if (row.false_alarm.empty()) {
        row.false_alarm = scenario.name + " seed " + std::to_string(seed) + ": " + result.unexpected.front().kind;
      }
    }
  }
  row.seeds_run = seeds;
  return row;
}

std::string FormatZooTable(const std::vector<ZooRow>& rows) {
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-38s %-7s %-6s %-44s %s\n", "variant", "caught", "seeds", "violation kinds",
                "shrunk (faults, nodes, sim s)");
  out << line;
  for (const ZooRow& row : rows) {
    if (row.variant == "correct") {
      std::snprintf(line, sizeof line, "%-38s %-7s %-6s %-44s %s\n", "correct (false alarms)",
                    row.false_alarms == 0 ? "none" : "FALSE", std::to_string(row.runs).c_str(),
                    row.false_alarms == 0 ? "-" : row.false_alarm.c_str(), "-");
      out << line;
      continue;
    }
    std::string size = "-";
    if (row.shrunk) {
      size = std::to_string(row.shrink.scenario.faults.size()) + ", " + std::to_string(row.shrink.scenario.nodes) +
             ", " + std::to_string(row.shrink.scenario.duration / sim::kNanosPerSecond);
    }
    std::snprintf(line, sizeof line, "%-38s %-7s %-6s %-44s %s\n", row.variant.c_str(), row.caught ? "yes" : "NO",
                  row.caught ? std::to_string(row.first_seed).c_str() : (">" + std::to_string(row.seeds_run)).c_str(),
                  row.caught ? Join(row.kinds).c_str() : "-", size.c_str());
    out << line;
  }
  return out.str();
}

}  // namespace leasesim::fuzz
