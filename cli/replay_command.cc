#include <algorithm>
#include <cassert>
#include <fstream>
#include <iostream>

#include "base/hash_text.h"
#include "base/units.h"
#include "checker/history_io.h"
#include "base/input_error.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "runner/run.h"
#include "runner/scenario_parser.h"
#include "runner/seeds.h"
#include "runner/sweep_timeline.h"
#include "cli/protocol_option.h"
#include "runner/protocol_stores.h"

namespace leasesim::cli {

namespace {

// What the command line asks for, each option bound where it is declared.
struct ReplayRequest {
  std::optional<std::string> scenario;
  std::optional<std::string> seed;  // as written: one seed in ParseSeeds' syntax
  std::optional<std::string> trace_path;
  std::optional<std::string> history_path;
  std::optional<std::string> html_path;
  std::optional<std::string> protocol;
};

// --trace, --history and --html: the files the user asked for; an exit
// code when one cannot be written.
std::optional<int> WriteRequestedFiles(const ReplayRequest& r, const runner::RunResult& result, const std::string& file_path,
                                       const std::string& protocol, std::ostream& out, std::ostream& err) {
  const std::optional<std::string>& trace_path = r.trace_path;
  if (trace_path) {
    std::ofstream trace(*trace_path, std::ios::trunc);
    if (!trace) {
      err << "leasesim replay: --trace " << *trace_path << ": cannot write\n";
      return kExitBadInput;
    }
    for (const sim::TraceEvent& event : result.trace) trace << event.ToJson() << "\n";
    out << "wrote " << result.trace.size() << " trace events to " << *trace_path << "\n";
  }
  if (const std::optional<std::string>& history_path = r.history_path) {
    std::ofstream history(*history_path, std::ios::trunc);
    if (!history) {
      err << "leasesim replay: --history " << *history_path << ": cannot write\n";
      return kExitBadInput;
    }
    checker::WriteHistory(result.history, history);
    out << "wrote the history to " << *history_path << " (check it with: leasesim check " << *history_path << ")\n";
  }
  if (const std::optional<std::string>& html_path = r.html_path) {
    if (const std::string problem = runner::WriteTimelineHtml(*html_path, result, file_path, protocol);
        !problem.empty()) {
      err << "leasesim replay: --html " << problem << "\n";
      return kExitBadInput;
    }
    out << "wrote the timeline to " << *html_path << "\n";
  }
  return std::nullopt;
}

// What the request names, read and checked: the file, the seed, its
// scenario (with --protocol's protocol when given) and that protocol.
struct ReplayTarget {
  std::string file;
  std::uint64_t seed = 0;
  runner::Scenario scenario;
  std::string protocol;  // --protocol ("" when not given)
};

std::optional<base::InputError> ReadReplayRequest(const CommandLine& args, const ReplayRequest& r,
                                                  ReplayTarget& target) {
  if (args.positional().size() != 1) return base::InputError{"FILE", "needs exactly one scenario file"};
  // --scenario and --seed are required where declared: Parse refused their absence.
  assert(r.scenario.has_value());
  assert(r.seed.has_value());
  auto seeds = runner::ParseSeeds(*r.seed);
  if (std::holds_alternative<base::InputError>(seeds) || std::get<std::vector<std::uint64_t>>(seeds).size() != 1) {
    return base::InputError{"--seed", "must be one non-negative integer"};
  }
  target.seed = std::get<std::vector<std::uint64_t>>(seeds)[0];
  target.file = args.positional()[0];
  auto loaded = runner::LoadScenarioFile(target.file);
  if (const auto* error = std::get_if<base::InputError>(&loaded)) return base::InputError{.rule = error->In(target.file)};
  const std::vector<runner::Scenario>& scenarios = std::get<runner::ScenarioFile>(loaded).scenarios;
  const auto found = std::find_if(scenarios.begin(), scenarios.end(),
                                  [&](const runner::Scenario& candidate) { return candidate.name == *r.scenario; });
  if (found == scenarios.end()) {
    return base::InputError{"--scenario", target.file + " has no scenario named \"" + *r.scenario + "\""};
  }
  target.scenario = *found;
  // --protocol: the protocol `run --protocol` ran it with (its replay line says so).
  const ProtocolChoice protocol = ReadProtocol(r.protocol);
  if (protocol.error) return protocol.error;
  target.protocol = protocol.name.value_or("");
  if (protocol.name) runner::SetScenarioProtocol(target.scenario, *protocol.name);
  return std::nullopt;
}

}  // namespace

int ReplayCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  CommandLine args("replay", "Run one seed of one scenario again, exactly: print its trace hash (the sweep's), its "
                             "figures, each node's leadership periods and the violations.");
  ReplayRequest r;
  args.Positional("FILE", "The scenario file", /*required=*/false)
      .Option("--scenario", "NAME", "The scenario", r.scenario)
      .Required()
      .Option("-s,--seed", "N", "The seed", r.seed)
      .Required()
      .Option("--trace", "FILE", "Write every trace event as JSON lines", r.trace_path)
      .Option("--history", "FILE", "Write the run's history (docs/HISTORY_FORMAT.md)", r.history_path)
      .Option("--html", "FILE", "Write the run's timeline picture", r.html_path)
      .Footer("Exit: 0 the run passes, 1 it fails, 2 bad input or usage.");
  DeclareProtocol(args, "The protocol run --protocol ran it with (its replay line says so)", r.protocol);
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  ReplayTarget target;
  if (const std::optional<base::InputError> error = ReadReplayRequest(args, r, target)) {
    err << "leasesim replay: " << error->ToString() << "\n(leasesim replay --help lists the options)\n";
    return kExitBadInput;
  }
  const runner::Scenario* scenario = &target.scenario;
  const std::string& file_path = target.file;
  const std::uint64_t seed = target.seed;
  const runner::RunResult result =
      runner::RunScenario(*scenario, seed, {.retain_trace = r.trace_path.has_value(), .keep_history = true});
  out << "scenario " << result.scenario << " seed " << result.seed << " protocol " << scenario->protocol << "\n";
  out << "trace " << base::HashText(result.trace_hash) << " (" << result.trace_events << " events)\n";
  for (const auto& [name, value] : result.figures) out << "  " << name << " = " << value << "\n";
  for (const checker::LeadershipBelief& belief : result.history.beliefs) {
    out << "  leader n" << belief.node << " term " << belief.term << " from " << belief.from_ns / base::kNanosPerMilli
        << " ms until " << belief.until_ns / base::kNanosPerMilli << " ms (" << belief.end_reason << ")\n";
  }
  for (const std::string& note : result.verdict.notes) out << "note: " << note << "\n";
  if (result.verdict.violations.empty()) out << "no violations\n";
  for (const checker::Violation& violation : result.verdict.violations) {
    out << "violation " << violation.kind << ": " << violation.message << "\n";
  }
  if (const std::optional<int> bad = WriteRequestedFiles(r, result, file_path, target.protocol, out, err)) return *bad;
  return result.ok() ? kExitOk : kExitViolation;
}

}  // namespace leasesim::cli
