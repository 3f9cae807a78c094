#pragma once
// --protocol NAME, said once for every command that runs nodes (run,
// replay, fuzz, explore, zoo, timing, live): a registered protocol's name
// (core/protocol.h), checked against the registry. --variant, its name
// before protocols were plug-ins, is kept as an alias.

#include <optional>
#include <string>

#include "base/input_error.h"
#include "cli/command_line.h"

namespace leasesim::cli {

// Declares --protocol (and its alias --variant) with `help`, bound to
// `name` (nullopt when not given).
CommandLine& DeclareProtocol(CommandLine& args, const std::string& help, std::optional<std::string>& name);

// What the command line named: nothing, a registered protocol, or the
// bad-input error (path "--protocol", the rule naming the known protocols).
struct ProtocolChoice {
  std::optional<std::string> name;
  std::optional<base::InputError> error;
};
ProtocolChoice ReadProtocol(const std::optional<std::string>& name);

}  // namespace leasesim::cli
