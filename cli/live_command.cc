#include "cli/live_command.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>

#include "base/units.h"
#include "base/input_error.h"
#include "cli/command_line.h"
#include "checker/fault_kind.h"
#include "cli/protocol_option.h"
#include "cli/values.h"
#include "cli/commands.h"
#include "live/live_run.h"

namespace leasesim::cli {
namespace {

// What --faults takes, after the options in the help; the fault kinds come
// from the live fault table.
std::string FaultsHelp() {
  std::string usage =
      "LIST: KIND[=VALUE][:TARGET]@AT[+DURATION],... with AT and DURATION in seconds, TARGET \"leader\"\n"
      "        (default) or a node number (an etcd member number for etcd-stop); KIND one of these, or\n"
      "        the [kind] one is, as scenarios name it (the first one that is it):\n";
  for (const live::LiveFaultSpec& spec : live::LiveFaultTable()) {
    const std::string name =
        std::string(spec.name) + (spec.value == nullptr ? "" : (spec.jitter ? "=MS[~J]" : "=MS"));
    usage += "        " + name + std::string(name.size() < 18 ? 18 - name.size() : 1, ' ') + spec.summary + " [" +
             checker::FaultKindName(spec.is) + "]\n";
  }
  usage +=
      "e.g.  leasesim live --duration 40 --faults "
      "pause:leader@6+8,kill:leader@16+3,etcd-stop:leader@24+4,cut:leader@30+4\n"
      "Exit: 0 the history checks, 1 a violation, 2 bad input or usage.";
  return usage;
}

// The longest live run --duration allows: a day.
constexpr std::int64_t kLiveDurationMsMax = 86'400'000;

// What the command line asks for: the options, each bound where it is
// declared (Declare); the texts checked after parsing.
struct LiveRequest {
  live::LiveOptions options;
  std::optional<std::string> duration;  // a duration in cli/values.h's syntax (bare: whole seconds)
  std::optional<std::string> faults;    // the fault list (below)
  std::optional<std::string> protocol;
};

// Every option of `leasesim live`.
void Declare(CommandLine& parsed, LiveRequest& r) {
  constexpr std::int64_t kMsMax = std::numeric_limits<std::int64_t>::max() / base::kNanosPerMilli;
  live::LiveOptions& o = r.options;
  parsed.Integer("--nodes", "N", "Node processes (1..9; default 3)", o.nodes, 1, 9)
      .Option("--duration", "DURATION", "How long the run lasts: whole seconds (40) or 90s, 10m, 1h30m", r.duration)
      .Option("--etcd", "URLS", "An existing etcd cluster's client URLs, comma-separated", o.etcd_urls)
      .Option("--faults", "LIST", "Real faults to inject (below)", r.faults)
      .Option("-o,--out", "DIR", "Where the history and reports go", o.out_dir)
      .Integer("--lease-ms", "MS", "Lease duration", o.lease_ms, 1, kMsMax)
      .Integer("--renew-interval-ms", "MS", "Renewal interval", o.renew_interval_ms, 1, kMsMax)
      .Integer("--renew-deadline-ms", "MS", "Renewal deadline", o.renew_deadline_ms, 1, kMsMax)
      .Integer("--retry-ms", "MS", "Retry interval", o.retry_ms, 1, kMsMax)
      .Integer("--request-timeout-ms", "MS", "Store request timeout", o.request_timeout_ms, 1, kMsMax)
      .Integer("--period-ms", "MS", "Settlement period", o.period_ms, 1, kMsMax)
      .Option("--node-binary", "PATH", "The node program (default: this program, as PROGRAM live-node)",
              o.node_binary)
      .Option("--etcd-binary", "PATH", "The etcd program to start (default /usr/bin/etcd)", o.etcd_binary)
      .Switch("--etcd-secure", "The run's own cluster with TLS, client certificates and etcd auth (made for the run)",
              o.etcd_secure)
      .Option("--etcd-ca", "FILE", "CA bundle of a secured cluster given with --etcd (docs/LIVE.md)", o.etcd_ca)
      .Option("--etcd-cert", "FILE", "Client certificate for a secured cluster", o.etcd_cert)
      .Option("--etcd-key", "FILE", "Client key for a secured cluster", o.etcd_key)
      .Option("--etcd-server-name", "NAME", "Server name the cluster's certificate must carry", o.etcd_server_name)
      .Option("--etcd-user", "USER", "etcd user for authentication", o.etcd_user)
      .Option("--etcd-password-file", "FILE", "File holding that user's password", o.etcd_password_file)
      .Footer(FaultsHelp());
  DeclareProtocol(parsed, "The protocol the nodes run", r.protocol);
}

}  // namespace

int LiveCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CommandLine parsed("live", "Run a registered protocol (leasesim's unchanged core by default) in real node "
                             "processes against a real etcd cluster (started on loopback unless --etcd is given) "
                             "with real faults, and check the merged history (docs/LIVE.md).");
  LiveRequest request;
  Declare(parsed, request);
  if (const std::optional<int> code = parsed.Parse(args, out, err)) return *code;
  live::LiveOptions& options = request.options;
  auto bad = [&](const std::string& message) {
    err << "leasesim live: " << message << "\n(leasesim live --help lists the options)\n";
    return kExitBadInput;
  };
  if (request.duration) {
    // The commands' one duration syntax (cli/values.h), as --time-budget's.
    const std::int64_t ms = ParseDurationMs(*request.duration);
    if (ms < 1'000 || ms > kLiveDurationMsMax) {
      return bad(base::InputError{"--duration", std::string(kDurationRule) + ", from 1 s to 24 h (got \"" +
                                                    *request.duration + "\")"}
                     .ToString());
    }
    options.duration_ms = ms;
  }
  const ProtocolChoice protocol = ReadProtocol(request.protocol);
  if (protocol.error) return bad(protocol.error->ToString());
  options.protocol = protocol.name.value_or("");
  if (request.faults) {
    if (const auto error = live::ParseFaults(*request.faults, options.nodes, options.faults)) {
      return bad(error->ToString());
    }
  }
  options.command_line = "leasesim live";
  for (const std::string& arg : args) options.command_line += " " + arg;
  return live::RunLive(options, out, err).exit_code;
}

}  // namespace leasesim::cli
