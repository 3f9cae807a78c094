// One replica process of a live run — a registered protocol (leasesim's
// unchanged core by default) on the real Env, talking to etcd, journaling
// what it does for the orchestrator (live/node_journal.h). Started by
// `leasesim live` as `leasesim live-node ...` (or by leasesim-live-node);
// runs until killed.
//
// Signals: SIGUSR1 arms a stop at the core's next "before_ledger_write"
// fault point (the process SIGSTOPs itself there, mid-batch, so the
// orchestrator can hold it beyond its lease); SIGUSR2 disarms.

#include "live/live_node.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/etcd/etcd_access.h"
#include "backends/etcd/etcd_http.h"
#include "backends/etcd/etcd_kv.h"
#include "backends/etcd/etcd_ledger.h"
#include "backends/etcd/etcd_store.h"
#include "backends/etcd/lease_exposition.h"
#include "backends/etcd/lease_health.h"
#include "backends/etcd/metrics_server.h"
#include "backends/etcd/real_env.h"
#include "base/units.h"
#include "core/metrics.h"
#include "core/protocol.h"
#include "core/timing.h"
#include "live/node_journal.h"

namespace {

using namespace leasesim;

std::atomic<bool> g_armed{false};

void OnArm(int) { g_armed.store(true); }
void OnDisarm(int) { g_armed.store(false); }

using base::kNanosPerMilli;
constexpr int kExitUsage = 2;
constexpr int kExitMisconfigured = 3;  // etcd refuses us: TLS, credentials, permissions

int Usage(const std::string& why) {
  std::cerr << "leasesim live-node: " << why
            << "\nusage: leasesim live-node --node N --incarnation K --etcd URLS --key KEY --ledger-prefix P\n"
               "         --journal FILE --epoch-wall-ns NS [--protocol NAME] [--lease-ms ..] [--renew-interval-ms ..]\n"
               "         [--renew-deadline-ms ..] [--retry-ms ..] [--request-timeout-ms ..] [--drift-ppm ..]\n"
               "         [--margin-ms ..] [--pause-budget-ms ..] [--period-ms ..] [--poll-ms ..]\n"
               "         [--batch-items ..] [--metrics-address A] [--metrics-port P] [--health-timeout-ms ..]\n"
               "         [--etcd-ca FILE] [--etcd-cert FILE] [--etcd-key FILE] [--etcd-server-name NAME]\n"
               "         [--etcd-user USER] [--etcd-password-file FILE]\n";
  return kExitUsage;
}

// Everything the node runs with, from its flags.
struct NodeConfig {
  int node = 0;
  std::string identity;    // "n<i>#<k>": unique per process start
  std::string node_label;  // "n<i>": stable across restarts
  std::string etcd_urls, key, ledger_prefix, journal_path;
  core::Protocol protocol;  // what the node runs: the registry's default unless named
  core::TimingConfig timing;
  core::SettlementConfig settlement;
  etcd::EndpointOptions etcd;  // endpoints, TLS, auth
  std::string metrics_address;
  int metrics_port = 0;
  core::Nanos health_timeout = 0;  // /healthz: how long past its deadline a leader may go unrenewed
};

using Flags = std::map<std::string, std::string>;

constexpr const char* kRequired[] = {"--node",          "--incarnation", "--etcd",         "--key",
                                     "--ledger-prefix", "--journal",     "--epoch-wall-ns"};

// Flag values by name, the defaults filled in; an exit code on a usage error.
std::optional<int> ParseFlags(int argc, char** argv, Flags& flags) {
  flags = {{"--protocol", core::Protocols().default_name()}, {"--variant", ""},        {"--lease-ms", "4000"},   {"--renew-interval-ms", "1000"},
           {"--renew-deadline-ms", "3000"}, {"--retry-ms", "500"},    {"--request-timeout-ms", "600"},
           {"--drift-ppm", "1000"},         {"--margin-ms", "500"},   {"--pause-budget-ms", "300"},
           {"--period-ms", "1000"},         {"--poll-ms", "100"},     {"--batch-items", "3"},
           {"--metrics-address", "127.0.0.1"}, {"--metrics-port", "0"}, {"--health-timeout-ms", "2000"},
           {"--etcd-ca", ""},               {"--etcd-cert", ""},      {"--etcd-key", ""},
           {"--etcd-server-name", ""},      {"--etcd-user", ""},      {"--etcd-password-file", ""}};
  for (const char* r : kRequired) flags[r];
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (!flags.contains(flag)) return Usage("unknown flag " + flag);
    if (i + 1 >= argc) return Usage(flag + " needs a value");
    flags[flag] = argv[++i];
  }
  for (const char* r : kRequired) {
    if (flags[r].empty()) return Usage(std::string(r) + " is required");
  }
  return std::nullopt;
}

// Reads every numeric flag; the first that is not a whole number fails.
class Numbers {
 public:
  explicit Numbers(const Flags& flags) : flags_(flags) {}
  std::int64_t operator()(const std::string& flag) {
    try {
      std::size_t used = 0;
      const std::string& text = flags_.at(flag);
      const long long value = std::stoll(text, &used);
      if (used == text.size()) return value;
    } catch (...) {
    }
    if (bad_.empty()) bad_ = flag;
    return 0;
  }
  const std::string& bad() const { return bad_; }

 private:
  const Flags& flags_;
  std::string bad_;
};

// The etcd client's options from the flags; an exit code on a usage error.
std::optional<int> BuildEtcdOptions(const Flags& flags, NodeConfig& c) {
  c.etcd.endpoints = etcd::SplitEndpoints(c.etcd_urls);
  c.etcd.tls = {.ca_file = flags.at("--etcd-ca"), .cert_file = flags.at("--etcd-cert"),
                .key_file = flags.at("--etcd-key"), .server_name = flags.at("--etcd-server-name")};
  c.etcd.auth.user = flags.at("--etcd-user");
  if (const std::string& file = flags.at("--etcd-password-file"); !file.empty()) {
    std::ifstream in(file);
    if (!in) return Usage("--etcd-password-file: cannot read " + file);
    std::getline(in, c.etcd.auth.password);
  }
  for (const std::string& error : etcd::ValidateEndpointOptions(c.etcd)) return Usage("etcd options: " + error);
  c.etcd.on_error = [](const std::string& message) { std::cerr << "leasesim live-node: etcd: " << message << "\n"; };
  return std::nullopt;
}

std::optional<int> BuildConfig(const Flags& flags, NodeConfig& c) {
  Numbers number(flags);
  c.node = static_cast<int>(number("--node"));
  c.identity = "n" + std::to_string(c.node) + "#" + flags.at("--incarnation");
  c.node_label = "n" + std::to_string(c.node);
  c.etcd_urls = flags.at("--etcd");
  c.key = flags.at("--key");
  c.ledger_prefix = flags.at("--ledger-prefix");
  c.journal_path = flags.at("--journal");
  c.timing = {.lease_duration = number("--lease-ms") * kNanosPerMilli,
              .renew_interval = number("--renew-interval-ms") * kNanosPerMilli,
              .renew_deadline = number("--renew-deadline-ms") * kNanosPerMilli,
              .retry = number("--retry-ms") * kNanosPerMilli,
              .request_timeout = number("--request-timeout-ms") * kNanosPerMilli,
              .drift_bound_ppm = number("--drift-ppm"),
              .safety_margin = number("--margin-ms") * kNanosPerMilli,
              .pause_budget = number("--pause-budget-ms") * kNanosPerMilli};
  c.settlement = {.period = number("--period-ms") * kNanosPerMilli,
                  .schedule_epoch_wall = number("--epoch-wall-ns"),
                  .batch_items = static_cast<int>(number("--batch-items")),
                  .poll = number("--poll-ms") * kNanosPerMilli,
                  .request_timeout = c.timing.request_timeout};
  c.metrics_address = flags.at("--metrics-address");
  c.metrics_port = static_cast<int>(number("--metrics-port"));
  c.health_timeout = number("--health-timeout-ms") * kNanosPerMilli;
  (void)number("--incarnation");
  if (!number.bad().empty()) return Usage(number.bad() + " is not a whole number");
  // --variant: the older name of --protocol.
  const std::string& name = flags.at("--variant").empty() ? flags.at("--protocol") : flags.at("--variant");
  core::ProtocolRegistry::Lookup found = core::Protocols().Find(name);
  if (!found.protocol) return Usage("--protocol: " + found.error);
  c.protocol = std::move(*found.protocol);
  if (const std::optional<int> code = BuildEtcdOptions(flags, c)) return code;
  for (const core::TimingError& error : core::ValidateTiming(c.timing)) {
    std::cerr << "leasesim live-node: timing: " << error.path << " " << error.rule << "\n";
    return kExitUsage;
  }
  return std::nullopt;
}

// SIGTERM / SIGINT are taken by sigwait at the end: blocked before any
// thread starts, so every thread inherits the mask.
sigset_t BlockTerminationSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// SIGUSR1 arms a self-stop at the next ledger write; SIGUSR2 disarms.
void InstallStopFault(etcd::RealEnv& env, live::NodeJournal& journal) {
  struct sigaction arm {};
  arm.sa_handler = OnArm;
  sigaction(SIGUSR1, &arm, nullptr);
  struct sigaction disarm {};
  disarm.sa_handler = OnDisarm;
  sigaction(SIGUSR2, &disarm, nullptr);
  env.SetFaultHook([&journal](std::string_view point) {
    if (point != "before_ledger_write" || !g_armed.exchange(false)) return;
    journal.Write(nlohmann::json{{"t", "stop"}, {"point", std::string(point)}, {"at", live::MonotonicNanos()}}.dump());
    ::raise(SIGSTOP);  // the orchestrator sees it stopped and sends SIGCONT later
  });
}

void WriteHello(live::NodeJournal& journal, const NodeConfig& c, const etcd::MetricsServer& metrics) {
  journal.Write(nlohmann::json{{"t", "hello"},
                               {"node", c.node},
                               {"identity", c.identity},
                               {"pid", static_cast<long>(::getpid())},
                               {"metrics_port", metrics.ok() ? metrics.port() : 0},
                               {"at", live::MonotonicNanos()}}
                    .dump());
}

// Graceful: release the lease (version-checked) so a successor takes over
// at once, then end the tasks. Shutdown runs as a task (it blocks on etcd),
// given at most two seconds.
void ShutDown(etcd::RealEnv& env, core::ProtocolNode& lease_node) {
  std::atomic<bool> released{false};
  env.Spawn("shutdown", [&] {
    lease_node.Shutdown("");
    released.store(true);
  });
  for (int i = 0; i < 200 && !released.load(); ++i) ::usleep(10'000);
  env.Stop();
}

// TLS, credentials and permissions, checked before leading; a transient
// problem (etcd electing, a member down) is only a warning.
bool PreflightPassed(etcd::EtcdHttp& http, const NodeConfig& c) {
  bool passed = true;
  for (const etcd::AccessProblem& problem :
       etcd::CheckAccess(http, {.lease_key = c.key, .ledger_prefix = c.ledger_prefix}, c.timing.lease_duration)) {
    std::cerr << "leasesim live-node: etcd access: " << problem.message
              << (problem.misconfigured() ? "" : " (going on: it may pass)") << "\n";
    if (problem.misconfigured()) passed = false;
  }
  return passed;
}

int RunNode(const NodeConfig& c, const sigset_t& termination) {
  live::NodeJournal journal(c.journal_path);
  if (!journal.ok()) return Usage("cannot open journal " + c.journal_path);
  etcd::EtcdHttp http(c.etcd);
  if (!PreflightPassed(http, c)) return kExitMisconfigured;
  etcd::EtcdStoreClient etcd_store(http);
  etcd::EtcdLedgerClient etcd_ledger(http, {.prefix = c.ledger_prefix,
                                            .check_fence = c.protocol.ledger_checks_fence,
                                            .writer = c.identity});
  live::JournaledStore store(etcd_store, journal);
  live::JournaledLedger ledger(etcd_ledger, journal, &live::BootNanos);
  live::JournaledEvents events(journal);
  etcd::LeaseHealth health(events, store, {.lease = c.key, .identity = c.identity, .timeout = c.health_timeout});
  // The KV seam on the same cluster, for protocols written against it
  // (Env::kv(0)); its calls are not journaled (the live history holds the
  // lease record store's and the ledger's operations).
  etcd::EtcdKvClient etcd_kv(http);
  etcd::RealEnv env(health.store(), ledger, health, &etcd_kv);
  ledger.ReportWallSeenOf(env);
  InstallStopFault(env, journal);
  const std::unique_ptr<core::ProtocolNode> built = c.protocol.build(
      env, {.node_name = c.node_label, .identity = c.identity, .key = c.key, .timing = c.timing,
            .settlement = c.settlement});
  core::ProtocolNode& lease_node = *built;
  etcd::MetricsServer metrics({.bind_address = c.metrics_address,
                               .port = c.metrics_port,
                               .metrics =
                                   [&] {
                                     std::string text;
                                     // A design that keeps no core metrics serves none.
                                     const core::LeaseMetrics* kept = lease_node.exposed_metrics();
                                     const core::LeadershipTap* tap = lease_node.exposed_tap();
                                     if (kept == nullptr || tap == nullptr) return text;
                                     env.WithCoreLock([&] { text = etcd::RenderLeaseExposition(*kept, *tap, c.key); });
                                     return text;
                                   },
                               .health = [&] { return health.Check(etcd::RealEnv::BootClockNanos()); }});
  if (!metrics.ok()) std::cerr << "leasesim live-node: metrics: " << metrics.error() << "\n";
  WriteHello(journal, c, metrics);
  lease_node.Start();
  // Runs until killed (the orchestrator ends every run with SIGKILL), or
  // stops cleanly on SIGTERM / SIGINT.
  int signal_number = 0;
  sigwait(&termination, &signal_number);
  ShutDown(env, lease_node);
  return 0;
}

}  // namespace

namespace leasesim::live {

int RunLiveNode(int argc, char** argv) {
  Flags flags;
  if (const std::optional<int> code = ParseFlags(argc, argv, flags)) return *code;
  NodeConfig config;
  if (const std::optional<int> code = BuildConfig(flags, config)) return *code;
  const sigset_t termination = BlockTerminationSignals();
  return RunNode(config, termination);
}

}  // namespace leasesim::live
