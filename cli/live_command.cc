#include "cli/live_command.h"

#include <optional>
#include <ostream>
#include <string>

#include "cli/args.h"
#include "live/live_run.h"

namespace leasesim::cli {
namespace {

// The usage text; the fault kinds come from the live fault table.
std::string Usage() {
  std::string usage =
      "usage: leasesim live [--nodes N] [--duration SECONDS] [--etcd URLS] [--faults LIST]\n"
      "                     [--variant correct|no-fencing|no-idempotency-key[,...]] [--out DIR]\n"
      "                     [--lease-ms MS] [--renew-interval-ms MS] [--renew-deadline-ms MS] [--retry-ms MS]\n"
      "                     [--request-timeout-ms MS] [--period-ms MS] [--node-binary PATH] [--etcd-binary PATH]\n"
      "                     [--etcd-secure | --etcd-ca FILE --etcd-cert FILE --etcd-key FILE\n"
      "                      --etcd-server-name NAME --etcd-user USER --etcd-password-file FILE]\n"
      "  --etcd-secure: the run's own cluster with TLS, client certificates and etcd auth (made for the run);\n"
      "  the --etcd-* options: how to reach a secured cluster given with --etcd (docs/LIVE.md)\n"
      "  LIST: KIND[=VALUE][:TARGET]@AT[+DURATION],... with AT and DURATION in seconds, TARGET \"leader\"\n"
      "        (default) or a node number (an etcd member number for etcd-stop); KIND one of\n";
  for (const live::LiveFaultSpec& spec : live::LiveFaultTable()) {
    const std::string name =
        std::string(spec.name) + (spec.value == nullptr ? "" : (spec.jitter ? "=MS[~J]" : "=MS"));
    usage += "          " + name + std::string(name.size() < 18 ? 18 - name.size() : 1, ' ') + spec.summary + "\n";
  }
  usage +=
      "  e.g.  leasesim live --duration 40 --faults "
      "pause:leader@6+8,kill:leader@16+3,etcd-stop:leader@24+4,cut:leader@30+4\n";
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

}  // namespace

int LiveCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Args parsed(args,
                    {"--nodes", "--duration", "--etcd", "--faults", "--variant", "--out", "--lease-ms",
                     "--renew-interval-ms", "--renew-deadline-ms", "--retry-ms", "--request-timeout-ms",
                     "--period-ms", "--node-binary", "--etcd-binary", "--etcd-ca", "--etcd-cert", "--etcd-key",
                     "--etcd-server-name", "--etcd-user", "--etcd-password-file"},
                    {"--help", "--etcd-secure"});
  if (!parsed.ok()) {
    err << "leasesim live: " << parsed.error() << "\n" << Usage();
    return 2;
  }
  if (parsed.has("--help")) {
    out << Usage();
    return 0;
  }
  if (!parsed.positional().empty()) {
    err << "leasesim live: unexpected argument " << parsed.positional().front() << "\n" << Usage();
    return 2;
  }
  live::LiveOptions options;
  auto bad = [&](const std::string& message) {
    err << "leasesim live: " << message << "\n" << Usage();
    return 2;
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
  if (auto v = parsed.value("--variant")) options.variant = *v;
  if (std::string error = live::ValidateVariant(options.variant); !error.empty()) return bad(error);
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
