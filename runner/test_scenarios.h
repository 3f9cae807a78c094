#pragma once
// Scenario texts, and readings of runs, shared by the runner's tests and
// the tests of protocols that run worlds (designs/*).

#include <set>
#include <string>
#include <variant>

#include <gtest/gtest.h>

#include "runner/run.h"
#include "runner/scenario_parser.h"

namespace leasesim::runner::testing {

// A sound scenario; `extra` is spliced in as further top-level fields.
inline std::string ScenarioJson(const std::string& extra = "", int nodes = 3, int duration_ms = 60000) {
  return R"({"scenarios": [{
    "name": "t", "nodes": )" + std::to_string(nodes) + R"(, "duration_ms": )" + std::to_string(duration_ms) + R"(,
    "lease": {"duration_ms": 10000, "renew_interval_ms": 3000, "renew_deadline_ms": 7000,
              "retry_ms": 1000, "request_timeout_ms": 1000, "drift_bound_ppm": 1000, "safety_margin_ms": 500},
    "settlement": {"period_ms": 5000, "batch_items": 3},
    "store": {"kind": "linearizable", "latency_ms": {"base": 2, "jitter": 3}},
    "network": {"latency_ms": {"base": 1, "jitter": 2}, "loss": 0.001})" +
         (extra.empty() ? "" : ", " + extra) + "}]}";
}

// One short sound scenario (20 s, a 4 s lease) as an entry of a file's
// "scenarios" list: `faults` is the inside of its fault list, `extra` any
// further fields, each after a comma (", \"expect\": {...}").
inline std::string ShortScenarioEntry(const std::string& name, const std::string& faults,
                                      const std::string& extra = "") {
  return R"({"name": ")" + name + R"(", "nodes": 3, "duration_ms": 20000,
      "lease": {"duration_ms": 4000, "renew_interval_ms": 1000, "renew_deadline_ms": 2500,
                "retry_ms": 500, "request_timeout_ms": 500, "drift_bound_ppm": 1000, "safety_margin_ms": 200},
      "settlement": {"period_ms": 2000, "batch_items": 2},
      "store": {"kind": "linearizable", "latency_ms": {"base": 2, "jitter": 3}},
      "network": {"latency_ms": {"base": 1, "jitter": 2}, "loss": 0.001}, "faults": [)" +
         faults + "]" + extra + "}";
}

// A sound scenario with three regions (a node and a store replica in each)
// and a replicated store; `extra` as above.
inline std::string ReplicatedScenarioJson(const std::string& extra = "") {
  return R"({"scenarios": [{
    "name": "r", "nodes": 3, "duration_ms": 60000,
    "lease": {"duration_ms": 10000, "renew_interval_ms": 3000, "renew_deadline_ms": 7000,
              "retry_ms": 1000, "request_timeout_ms": 1000, "drift_bound_ppm": 1000, "safety_margin_ms": 500,
              "pause_budget_ms": 2000},
    "settlement": {"period_ms": 5000, "batch_items": 3},
    "regions": {"names": ["a", "b", "c"], "within_ms": {"base": 1, "jitter": 1},
                "between": [{"regions": ["a", "b"], "latency_ms": {"base": 10, "jitter": 2}},
                            {"regions": ["a", "c"], "latency_ms": {"base": 10, "jitter": 2}},
                            {"regions": ["b", "c"], "latency_ms": {"base": 10, "jitter": 2}}],
                "nodes": ["a", "b", "c"]},
    "store": {"kind": "replicated", "replicas": 3, "read_mode": "linearizable",
              "latency_ms": {"base": 1, "jitter": 2}, "initial_leader": 1, "placement": ["a", "b", "c"]},
    "network": {"latency_ms": {"base": 1, "jitter": 2}, "loss": 0.001})" +
         (extra.empty() ? "" : ", " + extra) + "}]}";
}

// The first scenario of `text`; `error` says why when it does not parse
// (then the scenario is empty).
inline Scenario FirstScenario(const std::string& text, std::string& error) {
  auto parsed = ParseScenarioText("t.json", text);
  if (!std::holds_alternative<ScenarioFile>(parsed)) {
    error = std::get<base::InputError>(parsed).ToString();
    return {};
  }
  error.clear();
  return std::get<ScenarioFile>(parsed).scenarios.at(0);
}

// The first scenario of `text`, which must parse: a test failure naming
// the error (and an empty scenario) when it does not.
inline Scenario ParsedScenario(const std::string& text) {
  std::string error;
  Scenario scenario = FirstScenario(text, error);
  if (!error.empty()) ADD_FAILURE() << error;
  return scenario;
}

// Why `text` does not parse (the error as printed, without a file name),
// or "" when it does.
inline std::string ScenarioErrorOf(const std::string& text) {
  std::string error;
  FirstScenario(text, error);
  return error;
}

// The kinds of every violation a run's verdict has, expected ones included.
inline std::set<std::string> ViolationKinds(const RunResult& result) {
  std::set<std::string> kinds;
  for (const checker::Violation& violation : result.verdict.violations) kinds.insert(violation.kind);
  return kinds;
}

// Every holder that believed it led (a run kept with keep_history).
inline std::set<std::string> BeliefHolders(const RunResult& result) {
  std::set<std::string> holders;
  for (const checker::LeadershipBelief& belief : result.history.beliefs) holders.insert(belief.holder);
  return holders;
}

}  // namespace leasesim::runner::testing
