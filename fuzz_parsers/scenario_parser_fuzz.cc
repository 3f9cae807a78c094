// libFuzzer target: the scenario-file parser (runner/scenario_parser.h). Any
// input is either a scenario file or one error naming the file; never a
// crash, a hang or undefined behaviour.

#include <string>
#include <variant>

#include "fuzz_parsers/fuzz_input.h"
#include "runner/scenario_parser.h"

using leasesim::fuzz_parsers::AsText;
using leasesim::fuzz_parsers::Require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(AsText(data, size));
  const auto parsed = leasesim::runner::ParseScenarioText("fuzz.json", text);
  if (const auto* error = std::get_if<leasesim::base::InputError>(&parsed)) {
    Require(!error->rule.empty(), "a scenario error says the rule it broke");
    Require(error->In("fuzz.json").starts_with("fuzz.json"), "a scenario error names the file");
  }
  return 0;
}
