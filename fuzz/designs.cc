#include "fuzz/designs.h"

#include <cassert>
#include <set>

#include <absl/strings/str_format.h>
#include <nlohmann/json.hpp>

#include "core/protocol.h"
#include "fuzz/search.h"
#include "fuzz/zoo.h"

namespace leasesim::fuzz {
namespace {

// "12/200 (6.0%)": violating cases of those run.
std::string Rate(const DesignRow& row) {
  const int permille =
      row.cases == 0 ? 0 : static_cast<int>(static_cast<std::int64_t>(row.violating) * 1000 / row.cases);
  return absl::StrFormat("%d/%d (%d.%d%%)", row.violating, row.cases, permille / 10, permille % 10);
}

}  // namespace

std::variant<std::vector<std::string>, base::InputError> DesignProtocols(const std::vector<std::string>& only) {
  std::vector<std::string> names{std::string(core::kLeasesimProtocol)};
  for (const core::Protocol* protocol : core::Protocols().All()) {
    if (!protocol->design.empty()) names.push_back(protocol->name);
  }
  if (only.empty()) return names;
  std::vector<std::string> kept;
  for (const std::string& name : only) {
    bool known = false;
    for (const std::string& candidate : names) known = known || candidate == name;
    if (!known) {
      std::string all;
      for (const std::string& candidate : names) all += (all.empty() ? "" : ", ") + candidate;
      return base::InputError{"--protocols", "\"" + name + "\" is not a design (designs: " + all + ")"};
    }
    kept.push_back(name);
  }
  return kept;
}

DesignRow HuntDesign(const std::string& protocol, int runs, std::uint64_t seed, bool shrink, const HuntWatcher& watch) {
  const core::ProtocolRegistry::Lookup found = core::Protocols().Find(protocol);
  assert(found.protocol.has_value());
  DesignRow row;
  row.protocol = protocol;
  row.design = found.protocol->design.empty() ? protocol : found.protocol->design;
  row.token = found.protocol->ledger_checks_fence;
  SearchOptions options;
  options.runs = runs;
  options.seed = seed;
  options.protocol = protocol;
  if (watch) {
    options.on_progress = [&watch](const SearchProgress& progress) {
      watch({.runs = progress.cases, .runs_max = progress.runs_max});
    };
  }
  int index = 0;
  // Never "fails": every case runs, and each violating one is counted.
  options.fails = [&](const runner::Scenario& scenario, std::uint64_t run_seed, const runner::RunResult& result) {
    ++index;
    if (result.ok()) return false;
    ++row.violating;
    std::set<std::string> kinds;
    for (const checker::Violation& violation : result.unexpected) kinds.insert(violation.kind);
    for (const std::string& kind : kinds) row.kind_cases[kind] += 1;
    if (kinds.contains("stale_token_write") || kinds.contains("dual_writer")) ++row.stale_applied;
    if (row.first_violation == 0) {
      row.first_violation = index;
      row.kinds.assign(kinds.begin(), kinds.end());
      row.failing = scenario;
      row.run_seed = run_seed;
    }
    return false;
  };
  row.cases = Search(options).runs;
  if (row.first_violation > 0 && shrink) {
    if (watch) watch({.runs = row.cases, .runs_max = runs, .shrinking = true});
    row.failing.name = "counterexample";
    row.shrink = Shrink(row.failing, row.run_seed, FailsWithAnyOf(row.kinds));
    row.shrunk = true;
  }
  return row;
}

std::string FormatDesignTable(const std::vector<DesignRow>& rows, const std::vector<std::string>& counterexamples) {
  std::string out = absl::StrFormat("%-22s %-5s %-13s %-36s %-18s %-13s %s\n", "protocol", "token", "first (case)",
                                    "kinds (first)", "violating", "stale applied", "counterexample");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const DesignRow& row = rows[i];
    const std::string first = row.first_violation > 0 ? std::to_string(row.first_violation) : "none";
    const std::string file = i < counterexamples.size() && !counterexamples[i].empty() ? counterexamples[i] : "-";
    absl::StrAppendFormat(&out, "%-22s %-5s %-13s %-36s %-18s %-13d %s\n", row.protocol, row.token ? "yes" : "no",
                          first, row.kinds.empty() ? "-" : JoinKinds(row.kinds), Rate(row), row.stale_applied, file);
  }
  return out;
}

std::string DesignTableJson(const std::vector<DesignRow>& rows, const std::vector<std::string>& counterexamples,
                            std::uint64_t seed, int runs, const std::string& program) {
  nlohmann::ordered_json table{{"seed", seed}, {"runs", runs}, {"rows", nlohmann::ordered_json::array()}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const DesignRow& row = rows[i];
    nlohmann::ordered_json entry{{"design", row.design},
                                 {"protocol", row.protocol},
                                 {"token", row.token},
                                 {"cases", row.cases},
                                 {"violating", row.violating},
                                 {"first_violation", row.first_violation},
                                 {"kinds", row.kinds},
                                 {"kind_cases", row.kind_cases},
                                 {"stale_applied", row.stale_applied}};
    const std::string file = i < counterexamples.size() ? counterexamples[i] : "";
    if (!file.empty()) {
      entry["counterexample"] = file;
      entry["replay"] = program + " run " + file + " --seed " + std::to_string(row.run_seed);
      entry["shrunk_kinds"] = nlohmann::ordered_json::array();
      for (const checker::Violation& violation : row.shrink.result.unexpected) {
        entry["shrunk_kinds"].push_back(violation.kind);
      }
    }
    table["rows"].push_back(entry);
  }
  return table.dump(2) + "\n";
}

}  // namespace leasesim::fuzz
