#include "cli/live_command.h"

#include <optional>
#include <ostream>
#include <string>

#include "cli/command_line.h"
#include "cli/protocol_option.h"
#include "cli/commands.h"
#include "live/live_run.h"

namespace leasesim::cli {
namespace {

// What --faults takes, after the options in the help; the fault kinds come
// from the live fault table.
std::string FaultsHelp() {
  std::string usage =
      "LIST: KIND[=VALUE][:TARGET]@AT[+DURATION],... with AT and DURATION in seconds, TARGET \"leader\"\n"
      "        (default) or a node number (an etcd member number for etcd-stop); KIND one of\n";
  for (const live::LiveFaultSpec& spec : live::LiveFaultTable()) {
    const std::string name =
        std::string(spec.name) + (spec.value == nullptr ? "" : (spec.jitter ? "=MS[~J]" : "=MS"));
    usage += "        " + name + std::string(name.size() < 18 ? 18 - name.size() : 1, ' ') + spec.summary + "\n";
  }
  usage +=
      "e.g.  leasesim live --duration 40 --faults "
      "pause:leader@6+8,kill:leader@16+3,etcd-stop:leader@24+4,cut:leader@30+4\n"
      "Exit: 0 the history checks, 1 a violation, 2 bad input or usage.";
  return usage;
}

// Seconds (decimals allowed) as milliseconds.
std::optional<std::int64_t> SecondsToMs(const std::string& text) {
  try {
    std::size_t used = 0;
    const double seconds = std::stod(text, &used);
    if (used != text.size() || seconds <= 0 || seconds > 86'400) return std::nullopt;
    return static_cast<std::int64_t>(seconds * 1000 + 0.5);
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<std::int64_t> Integer(const std::string& text) {
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used != text.size() || value < 0) return std::nullopt;
    return value;
  } catch (...) {
    return std::nullopt;
  }
}

// Every option of `leasesim live`.
void Declare(CommandLine& parsed) {
  parsed.Option("--nodes", "N", "Node processes (1..9; default 3)")
      .Option("--duration", "SECONDS", "How long the run lasts")
      .Option("--etcd", "URLS", "An existing etcd cluster's client URLs, comma-separated")
      .Option("--faults", "LIST", "Real faults to inject (below)")
      .Option("-o,--out", "DIR", "Where the history and reports go")
      .Option("--lease-ms", "MS", "Lease duration")
      .Option("--renew-interval-ms", "MS", "Renewal interval")
      .Option("--renew-deadline-ms", "MS", "Renewal deadline")
      .Option("--retry-ms", "MS", "Retry interval")
      .Option("--request-timeout-ms", "MS", "Store request timeout")
      .Option("--period-ms", "MS", "Settlement period")
      .Option("--node-binary", "PATH", "The node program (default: this program, as PROGRAM live-node)")
      .Option("--etcd-binary", "PATH", "The etcd program to start (default /usr/bin/etcd)")
      .Switch("--etcd-secure", "The run's own cluster with TLS, client certificates and etcd auth (made for the run)")
      .Option("--etcd-ca", "FILE", "CA bundle of a secured cluster given with --etcd (docs/LIVE.md)")
      .Option("--etcd-cert", "FILE", "Client certificate for a secured cluster")
      .Option("--etcd-key", "FILE", "Client key for a secured cluster")
      .Option("--etcd-server-name", "NAME", "Server name the cluster's certificate must carry")
      .Option("--etcd-user", "USER", "etcd user for authentication")
      .Option("--etcd-password-file", "FILE", "File holding that user's password")
      .Footer(FaultsHelp());
  DeclareProtocol(parsed, "The protocol the nodes run");
}

}  // namespace

int LiveCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CommandLine parsed("live", "Run a registered protocol (leasesim's unchanged core by default) in real node "
                             "processes against a real etcd cluster (started on loopback unless --etcd is given) "
                             "with real faults, and check the merged history (docs/LIVE.md).");
  Declare(parsed);
  if (const std::optional<int> code = parsed.Parse(args, out, err)) return *code;
  live::LiveOptions options;
  auto bad = [&](const std::string& message) {
    err << "leasesim live: " << message << "\n(leasesim live --help lists the options)\n";
    return kExitBadInput;
  };
  if (auto v = parsed.value("--nodes")) {
    const auto n = Integer(*v);
    if (!n || *n < 1 || *n > 9) return bad("--nodes must be a whole number in 1..9");
    options.nodes = static_cast<int>(*n);
  }
  if (auto v = parsed.value("--duration")) {
    const auto ms = SecondsToMs(*v);
    if (!ms || *ms < 1'000) return bad("--duration must be seconds, at least 1");
    options.duration_ms = *ms;
  }
  if (auto v = parsed.value("--etcd")) options.etcd_urls = *v;
  const ProtocolChoice protocol = ReadProtocol(parsed);
  if (!protocol.error.empty()) return bad(protocol.error);
  options.protocol = protocol.name.value_or("");
  if (auto v = parsed.value("--out")) options.out_dir = *v;
  if (auto v = parsed.value("--node-binary")) options.node_binary = *v;
  if (auto v = parsed.value("--etcd-binary")) options.etcd_binary = *v;
  options.etcd_secure = parsed.has("--etcd-secure");
  const std::pair<const char*, std::string*> security[] = {
      {"--etcd-ca", &options.etcd_ca},       {"--etcd-cert", &options.etcd_cert},
      {"--etcd-key", &options.etcd_key},     {"--etcd-server-name", &options.etcd_server_name},
      {"--etcd-user", &options.etcd_user},   {"--etcd-password-file", &options.etcd_password_file}};
  for (const auto& [flag, field] : security) {
    if (auto v = parsed.value(flag)) *field = *v;
  }
  const std::pair<const char*, std::int64_t*> timing[] = {
      {"--lease-ms", &options.lease_ms},           {"--renew-interval-ms", &options.renew_interval_ms},
      {"--renew-deadline-ms", &options.renew_deadline_ms}, {"--retry-ms", &options.retry_ms},
      {"--request-timeout-ms", &options.request_timeout_ms}, {"--period-ms", &options.period_ms}};
  for (const auto& [flag, field] : timing) {
    if (auto v = parsed.value(flag)) {
      const auto ms = Integer(*v);
      if (!ms || *ms == 0) return bad(std::string(flag) + " must be a positive whole number of milliseconds");
      *field = *ms;
    }
  }
  if (auto v = parsed.value("--faults")) {
    if (std::string error = live::ParseFaults(*v, options.nodes, options.faults); !error.empty()) return bad(error);
  }
  options.command_line = "leasesim live";
  for (const std::string& arg : args) options.command_line += " " + arg;
  return live::RunLive(options, out, err).exit_code;
}

}  // namespace leasesim::cli
