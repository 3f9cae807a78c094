// leasesim fuzz: RapidCheck over generated scenarios; a failure is shrunk and
// written to DIR/counterexample.json with the command that replays it.

#include <charconv>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>

#include "cli/args.h"
#include "cli/commands.h"
#include "fuzz/fuzz.h"
#include "fuzz/scenario_json.h"
#include "runner/nemesis.h"
#include "runner/scenario_parser.h"
#include "zoo/variants.h"

namespace leasesim::cli {
namespace {

constexpr const char* kFuzzUsage =
    "usage: leasesim fuzz [--runs N] [--seed S] [--variant V] [--property P] [--out DIR] [--no-shrink]\n"
    "       leasesim fuzz --expand FILE --scenario NAME --seed N   (print a nemesis seed's fault script)\n";

template <typename T>
bool ParseNumber(const std::string& text, T& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

int FuzzCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  const Args args(argv, {"--runs", "--seed", "--variant", "--property", "--out", "--expand", "--scenario"},
                  {"--no-shrink"});
  if (!args.ok() || !args.positional().empty()) {
    err << (args.ok() ? "" : "leasesim fuzz: " + args.error() + "\n") << kFuzzUsage;
    return kExitBadInput;
  }
  if (auto file = args.value("--expand")) {
    // Prints the fault script a nemesis scenario draws for one seed, as an
    // ordinary scenario file.
    std::uint64_t seed = 0;
    if (!args.value("--scenario") || !args.value("--seed") || !ParseNumber(*args.value("--seed"), seed)) {
      err << "usage: leasesim fuzz --expand FILE --scenario NAME --seed N\n";
      return kExitBadInput;
    }
    auto loaded = runner::LoadScenarioFile(*file);
    if (std::holds_alternative<runner::ParseError>(loaded)) {
      err << "leasesim: " << std::get<runner::ParseError>(loaded).message << "\n";
      return kExitBadInput;
    }
    for (const runner::Scenario& scenario : std::get<runner::ScenarioFile>(loaded).scenarios) {
      if (scenario.name != *args.value("--scenario")) continue;
      out << fuzz::ScenarioFileText({runner::ExpandNemesis(scenario, seed)});
      return kExitOk;
    }
    err << "leasesim fuzz: " << *file << " has no scenario named \"" << *args.value("--scenario") << "\"\n";
    return kExitBadInput;
  }
  fuzz::FuzzOptions options;
  if (auto runs = args.value("--runs")) {
    if (!ParseNumber(*runs, options.runs) || options.runs < 1 || options.runs > 10'000'000) {
      err << "leasesim fuzz: --runs must be an integer from 1 to 10000000\n";
      return kExitBadInput;
    }
  }
  if (auto seed = args.value("--seed")) {
    if (!ParseNumber(*seed, options.seed)) {
      err << "leasesim fuzz: --seed must be a non-negative integer\n";
      return kExitBadInput;
    }
  } else {
    // A fresh session: the seed is printed, so it can be reproduced.
    std::random_device device;  // determinism-ok: picks the session seed only; printed below
    options.seed = (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }
  if (auto variant = args.value("--variant")) {
    if (zoo::FindVariant(*variant) == nullptr) {
      err << "leasesim fuzz: unknown variant \"" << *variant << "\" (known: " << zoo::VariantNames() << ")\n";
      return kExitBadInput;
    }
    options.variant = *variant;
  }
  if (auto property = args.value("--property")) {
    if (auto problem = fuzz::CheckPropertyName(*property)) {
      err << "leasesim fuzz: " << *problem << "\n";
      return kExitBadInput;
    }
    options.property = *property;
  }
  options.shrink = !args.has("--no-shrink");
  const std::string out_dir = args.value("--out").value_or("out/fuzz");

  const std::string again = "leasesim fuzz --runs " + std::to_string(options.runs) + " --seed " +
                            std::to_string(options.seed) + " --variant " +
                            options.variant + " --property " + options.property;
  out << "leasesim fuzz: " << options.runs << " case(s), property " << options.property << ", variant "
      << options.variant << ", seed " << options.seed << "\n";
  out.flush();
  const fuzz::FuzzOutcome outcome = fuzz::RunFuzz(options, out);
  if (!outcome.failed) {
    out << "ok: " << options.runs << " case(s) passed (" << outcome.cases << " run(s)); same session: " << again << "\n";
    return kExitOk;
  }
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  const std::string path = (std::filesystem::path(out_dir) / "counterexample.json").string();
  runner::Scenario scenario = outcome.counterexample;
  scenario.description = "Shrunk by `" + again + "`" + (outcome.violations.empty() ? std::string() : ": " + outcome.violations.front().kind);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << fuzz::ScenarioFileText({scenario});
  file.close();
  if (!file) {
    err << "leasesim fuzz: cannot write " << path << "\n";
    return kExitBadInput;
  }
  out << "FAIL property " << options.property << ": counterexample with " << scenario.faults.size() << " fault(s), "
      << scenario.nodes << " node(s), " << scenario.duration / sim::kNanosPerSecond << " s simulated\n";
  for (const checker::Violation& violation : outcome.violations) {
    out << "  " << violation.kind << ": " << violation.message << "\n";
  }
  out << "  wrote " << path << "\n";
  out << "  replay: leasesim run " << path << " --seed " << outcome.run_seed << "\n";
  out << "  same session: " << again << "\n";
  return kExitViolation;
}

}  // namespace leasesim::cli
