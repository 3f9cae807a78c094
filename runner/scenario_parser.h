#pragma once
// Reads scenario files strictly: an unknown field, a missing required field,
// a wrong type, an impossible value or an unsound timing configuration is an
// error naming the file, the field's path and the rule it broke.

#include <string>
#include <variant>

#include "runner/scenario.h"

namespace leasesim::runner {

struct ParseError {
  std::string message;  // "FILE: scenarios[0].lease.renew_deadline_ms: must be < ..."
};

std::variant<ScenarioFile, ParseError> ParseScenarioText(const std::string& path, const std::string& text);
std::variant<ScenarioFile, ParseError> LoadScenarioFile(const std::string& path);

}  // namespace leasesim::runner
