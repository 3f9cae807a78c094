// leasesim-live-node: one replica process of a live run — the unchanged core
// (LeaseNode) on the real Env, talking to etcd, journaling what it does for
// the orchestrator (live/node_journal.h). Started by `leasesim live`; runs
// until killed.
//
// Signals: SIGUSR1 arms a stop at the core's next "before_ledger_write"
// fault point (the process SIGSTOPs itself there, mid-batch, so the
// orchestrator can hold it beyond its lease); SIGUSR2 disarms.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/etcd/etcd_http.h"
#include "backends/etcd/etcd_ledger.h"
#include "backends/etcd/etcd_store.h"
#include "backends/etcd/metrics_server.h"
#include "backends/etcd/real_env.h"
#include "core/lease_node.h"
#include "core/metrics.h"
#include "core/timing.h"
#include "live/node_journal.h"

namespace {

std::atomic<bool> g_armed{false};

void OnArm(int) { g_armed.store(true); }
void OnDisarm(int) { g_armed.store(false); }

constexpr std::int64_t kMs = 1'000'000;

int Usage(const std::string& why) {
  std::cerr << "leasesim-live-node: " << why
            << "\nusage: leasesim-live-node --node N --incarnation K --etcd URLS --key KEY --ledger-prefix P\n"
               "         --journal FILE --epoch-wall-ns NS [--variant V] [--lease-ms ..] [--renew-interval-ms ..]\n"
               "         [--renew-deadline-ms ..] [--retry-ms ..] [--request-timeout-ms ..] [--drift-ppm ..]\n"
               "         [--margin-ms ..] [--pause-budget-ms ..] [--period-ms ..] [--poll-ms ..]\n"
               "         [--batch-items ..] [--metrics-port P]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace leasesim;
  std::map<std::string, std::string> flags = {
      {"--variant", "correct"},      {"--lease-ms", "4000"},         {"--renew-interval-ms", "1000"},
      {"--renew-deadline-ms", "3000"}, {"--retry-ms", "500"},        {"--request-timeout-ms", "600"},
      {"--drift-ppm", "1000"},       {"--margin-ms", "500"},         {"--pause-budget-ms", "300"},
      {"--period-ms", "1000"},       {"--poll-ms", "100"},           {"--batch-items", "3"},
      {"--metrics-port", "0"}};
  const char* required[] = {"--node", "--incarnation", "--etcd", "--key", "--ledger-prefix", "--journal",
                            "--epoch-wall-ns"};
  for (const char* r : required) flags[r];
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (!flags.contains(flag)) return Usage("unknown flag " + flag);
    if (i + 1 >= argc) return Usage(flag + " needs a value");
    flags[flag] = argv[++i];
  }
  for (const char* r : required) {
    if (flags[r].empty()) return Usage(std::string(r) + " is required");
  }
  auto number = [&](const std::string& flag) -> std::int64_t {
    try {
      return std::stoll(flags[flag]);
    } catch (...) {
      std::cerr << "leasesim-live-node: " << flag << " is not a number\n";
      std::exit(2);
    }
  };
  const int node = static_cast<int>(number("--node"));
  const std::string identity = "n" + std::to_string(node) + "#" + flags["--incarnation"];
  const std::string variant = flags["--variant"];
  bool check_fence = true;
  bool check_idempotency = true;
  if (variant.find("no-fencing") != std::string::npos) check_fence = false;
  if (variant.find("no-idempotency") != std::string::npos) check_idempotency = false;

  core::TimingConfig timing{.lease_duration = number("--lease-ms") * kMs,
                            .renew_interval = number("--renew-interval-ms") * kMs,
                            .renew_deadline = number("--renew-deadline-ms") * kMs,
                            .retry = number("--retry-ms") * kMs,
                            .request_timeout = number("--request-timeout-ms") * kMs,
                            .drift_bound_ppm = number("--drift-ppm"),
                            .safety_margin = number("--margin-ms") * kMs,
                            .pause_budget = number("--pause-budget-ms") * kMs};
  for (const core::TimingError& error : core::ValidateTiming(timing)) {
    std::cerr << "leasesim-live-node: timing: " << error.field << " " << error.rule << "\n";
    return 2;
  }

  // SIGTERM / SIGINT are taken by sigwait below: block them before any
  // thread starts, so every thread inherits the mask.
  sigset_t wait_for;
  sigemptyset(&wait_for);
  sigaddset(&wait_for, SIGTERM);
  sigaddset(&wait_for, SIGINT);
  pthread_sigmask(SIG_BLOCK, &wait_for, nullptr);

  live::NodeJournal journal(flags["--journal"]);
  if (!journal.ok()) return Usage("cannot open journal " + flags["--journal"]);

  etcd::EtcdHttp http({.endpoints = etcd::SplitEndpoints(flags["--etcd"])});
  etcd::EtcdStoreClient etcd_store(http);
  etcd::EtcdLedgerClient etcd_ledger(http, {.prefix = flags["--ledger-prefix"],
                                            .check_fence = check_fence,
                                            .check_idempotency = check_idempotency,
                                            .writer = identity});
  live::JournaledStore store(etcd_store, journal);
  live::JournaledLedger ledger(etcd_ledger, journal, &live::MonotonicNanos);
  live::JournaledEvents events(journal);
  etcd::RealEnv env(store, ledger, events);

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

  const std::string node_label = "n" + std::to_string(node);
  core::LeaseNode lease_node(env, {.key = flags["--key"], .identity = identity, .node_name = node_label, .timing = timing},
                             {.period = number("--period-ms") * kMs,
                              .schedule_epoch_wall = number("--epoch-wall-ns"),
                              .batch_items = static_cast<int>(number("--batch-items")),
                              .poll = number("--poll-ms") * kMs,
                              .request_timeout = timing.request_timeout});
  etcd::MetricsServer metrics(static_cast<int>(number("--metrics-port")), [&] {
    std::string text;
    env.WithCoreLock([&] { text = core::RenderPrometheus(lease_node.metrics(), node_label); });
    return text;
  });
  journal.Write(nlohmann::json{{"t", "hello"},
                               {"node", node},
                               {"identity", identity},
                               {"pid", static_cast<long>(::getpid())},
                               {"metrics_port", metrics.ok() ? metrics.port() : 0},
                               {"at", live::MonotonicNanos()}}
                    .dump());
  lease_node.Start();
  // Runs until killed (the orchestrator ends every run with SIGKILL), or
  // stops cleanly on SIGTERM / SIGINT.
  int signal_number = 0;
  sigwait(&wait_for, &signal_number);
  // Graceful: release the lease (version-checked) so a successor takes over
  // at once, then end the tasks. Shutdown runs as a task (it blocks on etcd).
  std::atomic<bool> released{false};
  env.Spawn("shutdown", [&] {
    lease_node.Shutdown("");
    released.store(true);
  });
  for (int i = 0; i < 200 && !released.load(); ++i) ::usleep(10'000);
  env.Stop();
  return 0;
}
