// leasesim check FILE: reads the command line and hands the request to the
// checker (checker/check_command.h), which judges the history.

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>

#include "checker/check_command.h"
#include "base/input_error.h"
#include "cli/command_line.h"
#include "cli/commands.h"

namespace leasesim::cli {

int CheckCommand(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  CommandLine args("check", "Judge a recorded history (leasesim's, a Jepsen log or a Jepsen EDN history) for "
                            "linearizability and the lease and fencing properties (docs/CHECKER.md).");
  checker::CheckRequest request;  // each option bound to its field where it is declared
  args.Positional("FILE", "The history file", /*required=*/false)
      .Option("--format", "leasesim|jepsen-log|edn", "The file's format (default: sniffed)", request.format)
      .Option("--model", "lease|cas-register|kv", "What to judge it against (default: the format's)", request.model)
      .Option("--initial-value", "V",
              "cas-register only: the register's value before the first operation, an integer or nil "
              "(default nil, as Knossos's cas-register model and Porcupine's etcd model; Knossos's own "
              "tests run its histories from 0)",
              request.initial_value)
      .Integer("--budget", "N", "Linearizability search steps before giving up (exit 4)", request.budget, 1,
               std::numeric_limits<std::int64_t>::max())
      .Switch("--json", "Print one JSON object", request.json)
      .Footer("A register history is read as the checker of its format reads it: EDN as Knossos (a :fail "
              "did not happen and is dropped, a read of nil says nothing, a read's invocation value is ignored), "
              "a Jepsen log as Porcupine (a failed cas saw another value); :info is an outcome unknown in both. "
              "Exit: 0 fine, 1 violation, 2 bad input or usage (a corrupt line is named by its number), "
              "4 step budget exhausted.");
  if (const std::optional<int> code = args.Parse(argv, out, err)) return *code;
  if (args.positional().size() != 1) {
    err << "leasesim check: " << base::InputError{"FILE", "needs exactly one history file"}.ToString()
        << "\n(leasesim check --help lists the options)\n";
    return checker::kCheckExitBadInput;
  }
  request.file = args.positional()[0];
  return checker::RunCheck(request, out, err);
}

}  // namespace leasesim::cli
