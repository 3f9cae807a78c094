#pragma once
// What the reference designs' tests share: a small fixed world running a
// design, scenario files read from the source tree, and views of a run's
// history (who led, which violation kinds).

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "checker/checker.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"

namespace leasesim::designs::testing {

// Three nodes for 60 s with a 10 s lease, 2 s settlement windows and no
// message loss, running `protocol`; `faults` is the faults array's inside.
inline std::string World(const std::string& protocol, const std::string& request_timeout_ms,
                         const std::string& faults) {
  return R"({"scenarios": [{"name": "w", "nodes": 3, "duration_ms": 60000, "protocol": ")" + protocol + R"(",
    "lease": {"duration_ms": 10000, "renew_interval_ms": 3000, "renew_deadline_ms": 7000,
              "retry_ms": 1000, "request_timeout_ms": )" + request_timeout_ms + R"(, "drift_bound_ppm": 1000,
              "safety_margin_ms": 500},
    "settlement": {"period_ms": 2000, "batch_items": 3},
    "store": {"kind": "linearizable", "latency_ms": {"base": 2, "jitter": 3}},
    "network": {"latency_ms": {"base": 1, "jitter": 2}, "loss": 0},
    "faults": [)" + faults + "]}]}";
}

inline std::vector<runner::Scenario> Parse(const std::string& path, const std::string& text) {
  auto parsed = runner::ParseScenarioText(path, text);
  if (!std::holds_alternative<runner::ScenarioFile>(parsed)) {
    ADD_FAILURE() << std::get<base::InputError>(parsed).ToString();
    return {};
  }
  return std::get<runner::ScenarioFile>(parsed).scenarios;
}

// A file of the source tree (ctest sets LEASESIM_SOURCE_DIR), parsed.
inline std::vector<runner::Scenario> ParseSourceFile(const std::string& relative) {
  const char* dir = std::getenv("LEASESIM_SOURCE_DIR");
  std::ifstream in(std::string(dir != nullptr ? dir : ".") + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return Parse(relative, text.str());
}

inline std::set<std::string> Kinds(const checker::Verdict& verdict) {
  std::set<std::string> kinds;
  for (const checker::Violation& v : verdict.violations) kinds.insert(v.kind);
  return kinds;
}

// The nodes that believed they led, in order, one entry per run of beliefs.
inline std::vector<int> LeaderNodes(const checker::History& history) {
  std::vector<int> nodes;
  for (const checker::LeadershipBelief& belief : history.beliefs) {
    if (nodes.empty() || nodes.back() != belief.node) nodes.push_back(belief.node);
  }
  return nodes;
}

}  // namespace leasesim::designs::testing
