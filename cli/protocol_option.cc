#include "cli/protocol_option.h"

#include <utility>

#include "core/protocol.h"

namespace leasesim::cli {

CommandLine& DeclareProtocol(CommandLine& args, const std::string& help, std::optional<std::string>& name) {
  return args.Option("--protocol,--variant", "NAME",
                     help + " (registered: " + core::Protocols().Names() + "; --variant is an alias)", name);
}

ProtocolChoice ReadProtocol(const std::optional<std::string>& name) {
  if (!name) return {};
  if (std::string error = core::Protocols().Find(*name).error; !error.empty()) {
    return {std::nullopt, base::InputError{"--protocol", std::move(error)}};
  }
  return {name, std::nullopt};
}

}  // namespace leasesim::cli
