// leasesim compare BASE_DIR NEW_DIR: the command-line adapter of compare/
// (docs/COMPARE.md). Parsing is in ParseCompareArgs alone.

#include <charconv>
#include <optional>
#include <ostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "compare/compare.h"
#include "compare/render.h"
#include "reports/summary_json.h"

namespace leasesim::cli {
namespace {

constexpr const char* kCompareUsage =
    "usage: leasesim compare BASE_DIR NEW_DIR [--markdown FILE] [--json FILE] [--tolerate FIGURE=+N%]...\n"
    "                        [--alpha A] [--allow-scenario-change] [--quiet]\n"
    "  exit 0 nothing got worse, 1 a seed newly fails or a figure regressed, 2 bad input\n";

struct CompareRequest {
  std::string base;
  std::string next;
  std::optional<std::string> markdown;
  std::optional<std::string> json;
  bool quiet = false;
  compare::CompareOptions options;
};

// The whole command line, or the message that says what is wrong with it.
std::variant<CompareRequest, std::string> ParseCompareArgs(const std::vector<std::string>& argv) {
  constexpr int kToleratesMax = 1000;
  CompareRequest request;
  std::vector<std::string> rest;  // --tolerate may repeat; Args takes each other flag once
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::optional<std::string> value;
    if (argv[i] == "--tolerate" && i + 1 < argv.size()) value = argv[++i];
    if (argv[i].starts_with("--tolerate=")) value = argv[i].substr(11);
    if (argv[i] == "--tolerate" && !value) return std::string("--tolerate needs a value");
    if (!value) {
      rest.push_back(argv[i]);
      continue;
    }
    std::string error;
    const std::optional<compare::Tolerance> tolerance = compare::ParseTolerance(*value, error);
    if (!tolerance) return error;
    if (request.options.tolerances.size() >= kToleratesMax) return std::string("too many --tolerate");
    request.options.tolerances.push_back(*tolerance);
  }
  const Args args(rest, {"--markdown", "--json", "--alpha"}, {"--allow-scenario-change", "--quiet"});
  if (!args.ok()) return args.error();
  if (args.positional().size() != 2) return std::string("give two output directories, BASE_DIR and NEW_DIR");
  request.base = args.positional()[0];
  request.next = args.positional()[1];
  request.markdown = args.value("--markdown");
  request.json = args.value("--json");
  request.quiet = args.has("--quiet");
  request.options.allow_scenario_change = args.has("--allow-scenario-change");
  if (const auto alpha = args.value("--alpha")) {
    double value = 0;
    const auto [end, error] = std::from_chars(alpha->data(), alpha->data() + alpha->size(), value);
    if (error != std::errc() || end != alpha->data() + alpha->size() || !(value > 0) || value > 0.5) {
      return "--alpha must be a number in (0, 0.5] (got \"" + *alpha + "\")";
    }
    request.options.alpha = value;
  }
  return request;
}

}  // namespace

int CompareCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  auto parsed = ParseCompareArgs(argv);
  if (std::holds_alternative<std::string>(parsed)) {
    err << "leasesim compare: " << std::get<std::string>(parsed) << "\n" << kCompareUsage;
    return kExitBadInput;
  }
  const CompareRequest& request = std::get<CompareRequest>(parsed);
  auto result = compare::CompareDirectories(request.base, request.next, request.options);
  if (std::holds_alternative<std::string>(result)) {
    err << "leasesim compare: cannot compare: " << std::get<std::string>(result) << "\n";
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
