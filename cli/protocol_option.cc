#include "cli/protocol_option.h"

#include "core/protocol.h"

namespace leasesim::cli {

CommandLine& DeclareProtocol(CommandLine& args, const std::string& help) {
  return args.Option("--protocol,--variant", "NAME",
                     help + " (registered: " + core::Protocols().Names() + "; --variant is an alias)");
}

ProtocolChoice ReadProtocol(const CommandLine& args) {
  const std::optional<std::string> name = args.value("--protocol");
  if (!name) return {};
  if (std::string error = core::Protocols().Find(*name).error; !error.empty()) {
    return {std::nullopt, "--protocol: " + error};
  }
  return {name, ""};
}

}  // namespace leasesim::cli
