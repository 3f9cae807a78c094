// leasesim compare BASE_DIR NEW_DIR: the command-line adapter of compare/
// (docs/COMPARE.md). Its flags are declared in DeclareCompareFlags alone.

#include <optional>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include "base/input_error.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/values.h"
#include "compare/compare.h"
#include "compare/render.h"
#include "reports/summary_json.h"

namespace leasesim::cli {
namespace {

struct CompareRequest {
  std::string base;
  std::string next;
  std::optional<std::string> markdown;
  std::optional<std::string> json;
  bool quiet = false;
  compare::CompareOptions options;
  std::vector<std::string> tolerates;  // --tolerate, as written
  std::optional<std::string> alpha;    // --alpha, as written
};

// The command's flags, for parsing and for --help, each bound where it is
// declared.
void DeclareCompareFlags(CommandLine& args, CompareRequest& request) {
  args.Positional("BASE_DIR", "The output of leasesim run (or live) before the change", /*required=*/false)
      .Positional("NEW_DIR", "The output of the same sweep after the change", /*required=*/false)
      .Option("--markdown", "FILE", "Also write the comparison as Markdown (a pull-request comment)", request.markdown)
      .Option("--json", "FILE", "Also write the comparison as JSON", request.json)
      .Repeatable("--tolerate", "FIGURE=+N%", "Accept a regression of FIGURE up to N percent", request.tolerates)
      .Option("--alpha", "A", "Significance level of the paired tests, in (0, 0.5] (default 0.05)", request.alpha)
      .Switch("--allow-scenario-change", "Compare even when the scenario files or scenarios differ (said in the notes)",
              request.options.allow_scenario_change)
      .Switch("-q,--quiet", "Print the verdict line only", request.quiet)
      .Footer("Seeds newly failing, fixed and still failing; per figure the distributions and a paired test over "
              "seeds (docs/COMPARE.md).\n"
              "Exit: 0 nothing got worse, 1 a seed newly fails or a figure regressed, 2 bad input.");
}

// The parsed words into the request; the bad-input error naming the flag.
std::optional<base::InputError> ReadCompareRequest(const CommandLine& args, CompareRequest& request) {
  constexpr std::size_t kToleratesMax = 1000;
  if (args.positional().size() != 2) return base::InputError{.rule = "give two output directories, BASE_DIR and NEW_DIR"};
  request.base = args.positional()[0];
  request.next = args.positional()[1];
  if (request.tolerates.size() > kToleratesMax) {
    return base::InputError{"--tolerate", "may be given at most " + std::to_string(kToleratesMax) + " times"};
  }
  for (const std::string& text : request.tolerates) {
    base::InputError error;
    const std::optional<compare::Tolerance> tolerance = compare::ParseTolerance(text, error);
    if (!tolerance) return error;
    request.options.tolerances.push_back(*tolerance);
  }
  if (const auto& alpha = request.alpha) {
    double value = 0;
    if (!ParseNumber(*alpha, value) || !(value > 0) || value > 0.5) {
      return base::InputError{"--alpha", "must be a number in (0, 0.5] (got \"" + *alpha + "\")"};
    }
    request.options.alpha = value;
  }
  return std::nullopt;
}

}  // namespace

int CompareCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  CommandLine args("compare", "What a change did: two outputs of the same sweep (before and after), paired by seed.");
  CompareRequest request;
  DeclareCompareFlags(args, request);
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  if (const std::optional<base::InputError> problem = ReadCompareRequest(args, request)) {
    err << "leasesim compare: " << problem->ToString() << "\n(leasesim compare --help lists the options)\n";
    return kExitBadInput;
  }
  auto result = compare::CompareDirectories(request.base, request.next, request.options);
  if (const auto* refusal = std::get_if<base::InputError>(&result)) {
    err << "leasesim compare: cannot compare: " << refusal->ToString() << "\n";
    return kExitBadInput;
  }
  const compare::Comparison& comparison = std::get<compare::Comparison>(result);
  out << (request.quiet ? compare::VerdictLine(comparison) + "\n" : compare::ConsoleText(comparison));
  for (const auto& [path, text] : {std::pair{request.markdown, &compare::Markdown}, std::pair{request.json, &compare::Json}}) {
    if (!path) continue;
    if (const std::string problem = reports::WriteFileAtomically(*path, text(comparison)); !problem.empty()) {
      err << "leasesim compare: " << problem << "\n";
      return kExitBadInput;
    }
    if (!request.quiet) out << "wrote " << *path << "\n";
  }
  return comparison.ExitCode();
}

}  // namespace leasesim::cli
