// leasesim explore: every placement of up to K faults from a menu in one
// small scenario, run on one seed, in a fixed order (docs/EXPLORE.md). Each
// violating placement is written as an ordinary scenario file with the
// `leasesim run` command that replays it.

#include <cassert>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <ostream>

#include <absl/strings/str_format.h>

#include "base/input_error.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/progress_line.h"
#include "fuzz/scenario_json.h"
#include "runner/explore.h"
#include "runner/fault_catalogue.h"
#include "runner/scenario_parser.h"
#include "base/program_name.h"
#include "cli/protocol_option.h"
#include "runner/protocol_stores.h"

namespace leasesim::cli {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kKeepMax = 100'000;

// What the command line asks for, each option bound where it is declared
// (Declare), then the scenario and the menu read (ReadRequest).
struct Request {
  std::string file;
  std::optional<std::string> scenario_name;  // --scenario
  std::optional<int> faults;                 // --faults
  std::optional<std::string> menu_path;      // --menu
  std::optional<std::string> protocol;       // --protocol
  runner::Scenario scenario;
  std::vector<runner::MenuItem> menu;
  runner::ExploreOptions options;
  std::string out = "out/explore";
  bool list = false;
  bool quiet = false;
};

void Declare(CommandLine& args, Request& r) {
  args.Positional("FILE", "The scenario file", /*required=*/false)
      .Option("--scenario", "NAME", "The scenario to explore", r.scenario_name)
      .Required()
      .Integer("--faults", "K", "Place up to K faults (1.." + std::to_string(runner::kExploreFaultsMax) + ")",
               r.faults, 1, runner::kExploreFaultsMax)
      .Required()
      .Option("--menu", "MENU.json", "The faults to place (default: drawn from the fault catalogue)", r.menu_path)
      .Option("-o,--out", "DIR", "Where violating placements go (default out/explore)", r.out)
      .Integer("-s,--seed", "S", "The one seed every placement runs on", r.options.seed, 0,
               std::numeric_limits<std::int64_t>::max())
      .Integer("--limit", "N", "Run at most N placements", r.options.limit, 1, std::numeric_limits<std::int64_t>::max())
      .Integer("--keep", "N", "Write at most N violating placements", r.options.keep, 0, kKeepMax)
      .Switch("--stop-at-first", "Stop at the first violating placement", r.options.stop_at_first)
      .Switch("--list", "Print the menu and stop", r.list)
      .Switch("-q,--quiet", "No progress line on a terminal", r.quiet)
      .Footer("Exit: 0 no placement violates, 1 some does, 2 bad input or usage.");
  DeclareProtocol(args, "The protocol (default: the scenario's)", r.protocol);
}

// A file's own error (its field and rule) names the file in the rule, the
// input as a whole being that file.
std::optional<base::InputError> ReadRequest(const CommandLine& args, Request& request) {
  if (args.positional().size() != 1) return base::InputError{"FILE", "needs exactly one scenario file"};
  request.file = args.positional().front();
  // Both required where declared: CommandLine::Parse refused their absence.
  assert(request.scenario_name.has_value());
  assert(request.faults.has_value());
  const std::string& name = *request.scenario_name;
  request.options.faults = *request.faults;
  auto loaded = runner::LoadScenarioFile(request.file);
  if (auto* error = std::get_if<base::InputError>(&loaded)) return base::InputError{.rule = error->In(request.file)};
  const auto& scenarios = std::get<runner::ScenarioFile>(loaded).scenarios;
  const auto it = std::find_if(scenarios.begin(), scenarios.end(), [&](const auto& s) { return s.name == name; });
  if (it == scenarios.end()) return base::InputError{"--scenario", request.file + " has no scenario named \"" + name + "\""};
  request.scenario = *it;
  if (auto refusal = runner::ExploreRefusal(request.scenario)) return base::InputError{"--scenario", *refusal};
  const ProtocolChoice protocol = ReadProtocol(request.protocol);
  if (protocol.error) return protocol.error;
  if (protocol.name) runner::SetScenarioProtocol(request.scenario, *protocol.name);
  runner::ExploreMenu menu = runner::DefaultMenu(request.scenario);
  if (request.menu_path) {
    auto parsed = runner::LoadMenuFile(*request.menu_path, request.scenario);
    if (auto* error = std::get_if<base::InputError>(&parsed)) {
      return base::InputError{"--menu", error->In(*request.menu_path)};
    }
    menu = std::get<runner::ExploreMenu>(parsed);
  }
  request.menu = runner::BuildMenu(request.scenario, menu);
  return std::nullopt;
}

void PrintHeader(const Request& request, std::ostream& out) {
  const runner::ExploreOptions& options = request.options;
  out << "explore " << request.file << " scenario " << request.scenario.name << ", protocol "
      << request.scenario.protocol << ", seed " << options.seed << ", up to " << options.faults << " fault(s)\n";
  std::map<std::string, std::size_t> by_kind;  // in name order, for a stable line
  for (const runner::MenuItem& item : request.menu) ++by_kind[runner::FaultKindName(item.fault.kind)];
  out << "menu: " << request.menu.size() << " items (";
  for (auto it = by_kind.begin(); it != by_kind.end(); ++it) {
    out << (it == by_kind.begin() ? "" : ", ") << it->first << " " << it->second;
  }
  out << ")\n";
  const std::uint64_t items = request.menu.size();
  out << "placements: " << runner::PlacementCount(items, options.faults) << " (1 with no fault added";
  for (int k = 1; k <= options.faults; ++k) {
    out << ", " << runner::PlacementCount(items, k) - runner::PlacementCount(items, k - 1) << " of " << k;
  }
  out << (options.limit > 0 ? "; at most " + std::to_string(options.limit) + " run" : std::string()) << ")\n";
}

void PrintCoverage(const runner::ExploreReport& report, std::ostream& out) {
  std::size_t reached = 0;
  for (const auto& [probe, placements] : report.probes) reached += placements > 0 ? 1 : 0;
  out << "probes reached: " << reached << " of " << report.probes.size() << " (placements reaching each:";
  for (const auto& [probe, placements] : report.probes) {
    if (placements > 0) out << " " << probe << " " << placements;
  }
  out << ")\n";
  const std::vector<std::string> never = report.ProbesNeverReached();
  out << "probes never reached:";
  for (const std::string& probe : never) out << " " << probe;
  out << (never.empty() ? " none\n" : "\n");
  out << "fault points reached (placements reaching each):";
  for (const auto& [point, placements] : report.fault_points) out << " " << point << " " << placements;
  out << "\n";
}

// Writes DIR/placement-N.json and prints the violation with its replay command.
bool WriteViolation(const runner::ViolatingPlacement& found, const Request& request, std::ostream& out,
                    std::ostream& err) {
  const fs::path path = fs::path(request.out) / ("placement-" + std::to_string(found.index) + ".json");
  std::error_code ignored;
  fs::create_directories(request.out, ignored);
  std::ofstream file(path, std::ios::binary);
  file << fuzz::ScenarioFileText({found.scenario});
  if (!file.flush()) {
    err << "leasesim explore: cannot write " << path.string() << "\n";
    return false;
  }
  out << "FAIL placement " << found.index << ":";
  for (std::size_t item : found.items) out << (item == found.items.front() ? " " : " + ") << request.menu[item].label;
  out << "\n";
  for (const checker::Violation& violation : found.violations) {
    out << "  " << violation.kind << ": " << violation.message << "\n";
  }
  out << "  replay: " << base::ProgramName() << " run " << path.string() << " --seed " << request.options.seed << "\n";
  return true;
}

}  // namespace

int ExploreCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  CommandLine args("explore", "Run every placement of up to K faults from a menu in one small scenario of FILE, on "
                              "one seed, in a fixed order (docs/EXPLORE.md); write each violating placement as an "
                              "ordinary scenario file with the command that replays it.");
  Request request;
  Declare(args, request);
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  if (auto error = ReadRequest(args, request)) {
    err << "leasesim explore: " << error->ToString() << "\n(leasesim explore --help lists the options)\n";
    return kExitBadInput;
  }
  PrintHeader(request, out);
  if (request.list) {
    for (std::size_t i = 0; i < request.menu.size(); ++i) out << "  " << i << ": " << request.menu[i].label << "\n";
    return kExitOk;
  }
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();  // determinism-ok: the elapsed time is printed to stderr only
  std::uint64_t written = 0;
  bool write_failed = false;
  ProgressLine progress(err, ProgressLine::Wanted(err, request.quiet));
  const runner::ExploreReport report = runner::Explore(
      request.scenario, request.menu, request.options,
      [&](const runner::ViolatingPlacement& found) {
        if (written >= request.options.keep || write_failed) return;
        progress.Clear();
        write_failed = !WriteViolation(found, request, out, err);
        ++written;
      },
      [&](const runner::ExploreProgress& now) { progress.Update(now); });
  progress.Clear();
  if (write_failed) return kExitBadInput;
  out << "ran " << report.ran << " of " << report.planned << " placements: " << report.violating << " violating";
  if (report.violating > written) out << " (" << report.violating - written << " not written: --keep " << request.options.keep << ")";
  out << "\n";
  PrintCoverage(report, out);
  out << std::flush;  // before the elapsed time on stderr
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  err << absl::StrFormat("explore: %d placements in %.1f s\n", report.ran, seconds);
  return report.violating > 0 ? kExitViolation : kExitOk;
}

}  // namespace leasesim::cli
