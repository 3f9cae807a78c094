#include "reports/timeline_json.h"

#include <charconv>

#include <nlohmann/json.hpp>

#include "base/hash_text.h"
#include "base/input_error.h"

namespace leasesim::reports {
namespace {

using Json = nlohmann::ordered_json;

Json ToJson(const Timeline& t) {
  Json json;
  json["scenario"] = t.scenario;
  json["seed"] = t.seed;
  json["ok"] = t.ok;
  json["trace_hash"] = base::HashText(t.trace_hash);
  json["node_count"] = t.node_count;
  json["end_ns"] = t.end_ns;
  json["replay"] = t.replay_command;
  Json beliefs = Json::array();
  for (const TimelineBelief& b : t.beliefs) {
    beliefs.push_back({{"node", b.node}, {"holder", b.holder}, {"term", b.term}, {"from_ns", b.from_ns},
                       {"until_ns", b.until_ns}, {"end_reason", b.end_reason}});
  }
  json["beliefs"] = std::move(beliefs);
  Json holders = Json::array();
  for (const TimelineHolder& h : t.holders) {
    holders.push_back({{"node", h.node}, {"holder", h.holder}, {"term", h.term}, {"from_ns", h.from_ns},
                       {"until_ns", h.until_ns}});
  }
  json["holders"] = std::move(holders);
  Json faults = Json::array();
  for (const TimelineFault& f : t.faults) {
    faults.push_back({{"kind", f.kind}, {"nodes", f.nodes}, {"start_ns", f.start_ns}, {"end_ns", f.end_ns},
                      {"within_assumptions", f.within_assumptions}, {"description", f.description}});
  }
  json["faults"] = std::move(faults);
  Json writes = Json::array();
  for (const TimelineWrite& w : t.writes) {
    writes.push_back({{"node", w.node}, {"holder", w.holder}, {"token", w.token}, {"window", w.window},
                      {"sent_ns", w.sent_ns}, {"arrived_ns", w.arrived_ns}, {"result", w.result},
                      {"lease_valid_at_send", w.lease_valid_at_send}});
  }
  json["writes"] = std::move(writes);
  Json violations = Json::array();
  for (const TimelineViolation& v : t.violations) {
    violations.push_back({{"kind", v.kind}, {"message", v.message}, {"at_ns", v.at_ns}, {"nodes", v.nodes},
                          {"expected", v.expected}});
  }
  json["violations"] = std::move(violations);
  json["notes"] = t.notes;
  return json;
}

Timeline FromJson(const Json& json) {
  Timeline t;
  t.scenario = json.at("scenario").get<std::string>();
  t.seed = json.at("seed").get<std::uint64_t>();
  t.ok = json.at("ok").get<bool>();
  const std::string hash = json.at("trace_hash").get<std::string>();
  const auto [end, error] = std::from_chars(hash.data(), hash.data() + hash.size(), t.trace_hash, 16);
  if (error != std::errc() || end != hash.data() + hash.size()) throw base::InputError{"trace_hash", "not hex"};
  t.node_count = json.at("node_count").get<int>();
  t.end_ns = json.at("end_ns").get<std::int64_t>();
  t.replay_command = json.at("replay").get<std::string>();
  for (const Json& b : json.at("beliefs")) {
    t.beliefs.push_back({b.at("node").get<int>(), b.at("holder").get<std::string>(), b.at("term").get<std::int64_t>(),
                         b.at("from_ns").get<std::int64_t>(), b.at("until_ns").get<std::int64_t>(),
                         b.at("end_reason").get<std::string>()});
  }
  for (const Json& h : json.at("holders")) {
    t.holders.push_back({h.at("node").get<int>(), h.at("holder").get<std::string>(), h.at("term").get<std::int64_t>(),
                         h.at("from_ns").get<std::int64_t>(), h.at("until_ns").get<std::int64_t>()});
  }
  for (const Json& f : json.at("faults")) {
    t.faults.push_back({f.at("kind").get<std::string>(), f.at("nodes").get<std::vector<int>>(),
                        f.at("start_ns").get<std::int64_t>(), f.at("end_ns").get<std::int64_t>(),
                        f.at("within_assumptions").get<bool>(), f.at("description").get<std::string>()});
  }
  for (const Json& w : json.at("writes")) {
    t.writes.push_back({w.at("node").get<int>(), w.at("holder").get<std::string>(), w.at("token").get<std::int64_t>(),
                        w.at("window").get<std::int64_t>(), w.at("sent_ns").get<std::int64_t>(),
                        w.at("arrived_ns").get<std::int64_t>(), w.at("result").get<std::string>(),
                        w.at("lease_valid_at_send").get<bool>()});
  }
  for (const Json& v : json.at("violations")) {
    t.violations.push_back({v.at("kind").get<std::string>(), v.at("message").get<std::string>(),
                            v.at("at_ns").get<std::int64_t>(), v.at("nodes").get<std::vector<int>>(),
                            v.at("expected").get<bool>()});
  }
  t.notes = json.at("notes").get<std::vector<std::string>>();
  return t;
}

}  // namespace

std::string TimelinesJson(const std::vector<Timeline>& timelines) {
  Json json;
  json["format"] = "leasesim-timelines";
  json["version"] = kTimelinesVersion;
  Json list = Json::array();
  for (const Timeline& timeline : timelines) list.push_back(ToJson(timeline));
  json["timelines"] = std::move(list);
  return json.dump(1) + "\n";
}

std::variant<std::vector<Timeline>, base::InputError> ParseTimelinesJson(const std::string& text) {
  try {
    const Json json = Json::parse(text);
    if (!json.is_object() || json.value("format", "") != "leasesim-timelines") {
      return base::InputError{"", "not a leasesim timelines file (no \"format\": \"leasesim-timelines\")"};
    }
    if (json.value("version", 0) != kTimelinesVersion) {
      return base::InputError{"", "timelines version " + json.value("version", Json()).dump() +
                                      " (this leasesim reads version " + std::to_string(kTimelinesVersion) + ")"};
    }
    std::vector<Timeline> timelines;
    const Json& list = json.at("timelines");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string where = "timelines[" + std::to_string(i) + "]";
      try {
        timelines.push_back(FromJson(list[i]));
      } catch (const base::InputError& problem) {
        return base::InputError{where + "." + problem.path, problem.rule};
      } catch (const nlohmann::json::exception& error) {
        return base::InputError{where, error.what()};
      }
    }
    return timelines;
  } catch (const nlohmann::json::exception& error) {
    return base::InputError{"", std::string("malformed timelines file: ") + error.what()};
  }
}

}  // namespace leasesim::reports
