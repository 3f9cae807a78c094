#pragma once
// Reads scenario files strictly: an unknown field, a missing required field,
// a wrong type, an impossible value or an unsound timing configuration is
// the one bad-input error (base/input_error.h) naming the field's path (or
// the line and column of text that is not JSON) and the rule it broke. The
// error does not hold the file's name: a caller says error.In(file).

#include <string>
#include <variant>

#include "base/input_error.h"
#include "runner/scenario.h"

namespace leasesim::runner {

// `path` is the file's name, kept in ScenarioFile::path. An error's
// In(path): "FILE: scenarios[0].lease.renew_deadline_ms: must be < ...".
std::variant<ScenarioFile, base::InputError> ParseScenarioText(const std::string& path, const std::string& text);
// As ParseScenarioText, reading the file; one that cannot be read is an
// error with no path, "cannot be read".
std::variant<ScenarioFile, base::InputError> LoadScenarioFile(const std::string& path);

}  // namespace leasesim::runner
