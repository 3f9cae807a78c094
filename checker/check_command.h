#pragma once
// `leasesim check FILE [--format leasesim|jepsen-log|edn]
//                      [--model lease|cas-register|kv] [--budget N] [--json]`
// Judges a history file. Exit codes: 0 fine, 1 violation, 2 bad input or
// usage (a corrupt line is named by its number), 4 step budget exhausted.

#include <iosfwd>
#include <string>
#include <vector>

namespace leasesim::checker {

inline constexpr int kCheckExitOk = 0;
inline constexpr int kCheckExitViolation = 1;
inline constexpr int kCheckExitBadInput = 2;
inline constexpr int kCheckExitUnknown = 4;

// `args` are the words after "check". The verdict goes to `out` (text, or
// one JSON object with --json); usage and input errors go to `err`.
int RunCheckCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace leasesim::checker
