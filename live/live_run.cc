// A live run as a phased object, in the spirit of FoundationDB's workloads:
// setup (options, etcd, proxies) → start (node processes) → run faults (the
// timed part) → stop (nodes down, ledger read back, etcd stopped) → check
// (merge, judge, report). Each phase is one method; RunLive drives them in
// order and stops at the first that fails. Every resource is owned by an
// RAII member, so every way out — failure, interrupt — cleans up.

#include "live/live_run.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

#include "live/etcd_side.h"
#include "live/fault_injector.h"
#include "live/live_config.h"
#include "live/live_judge.h"
#include "live/live_report.h"
#include "live/node_fleet.h"
#include "live/node_journal.h"
#include "live/run_mechanisms.h"

namespace leasesim::live {
namespace {

std::atomic<int> g_interrupt{0};

void OnInterrupt(int signal_number) { g_interrupt.store(signal_number); }

// Installs SIGINT/SIGTERM/SIGHUP handlers for the run and restores the
// previous ones afterwards. An interrupted run unwinds normally, so every
// RAII owner (etcd cluster, node processes, temp dirs) cleans up.
class InterruptGuard {
 public:
  InterruptGuard() {
    g_interrupt.store(0);
    struct sigaction action {};
    action.sa_handler = OnInterrupt;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &previous_[i]);
  }
  ~InterruptGuard() {
    for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &previous_[i], nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[3] {};
};

// How often the run looks at its nodes and its fault schedule.
constexpr auto kTick = std::chrono::milliseconds(10);

std::int64_t WallNanos() {
  // determinism-ok: live mode — the settlement schedule's epoch is a real wall-clock instant.
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One live run; see the comment at the top of the file.
class LiveRun {
 public:
  LiveRun(const LiveOptions& options, std::ostream& out, std::ostream& err)
      : o_(options), out_(out), err_(err) {}

  std::optional<RunFailure> Setup();
  std::optional<RunFailure> Start();
  std::optional<RunFailure> RunFaults();
  std::optional<RunFailure> Stop();
  LiveResult Check();

 private:
  const LiveOptions& o_;
  std::ostream& out_;
  std::ostream& err_;
  std::string node_binary_;
  std::vector<std::string> node_words_;  // between the binary and its flags
  std::string lease_key_;
  std::string ledger_prefix_;
  FinishedRun run_;
  // Destroyed in reverse: the injector, the nodes, then etcd and its proxies.
  EtcdSide etcd_;
  std::unique_ptr<NodeFleet> fleet_;
  std::unique_ptr<RunMechanisms> mechanisms_;
  std::unique_ptr<FaultInjector> injector_;
};

// Options, the node executable, the output directory, etcd and the proxies.
std::optional<RunFailure> LiveRun::Setup() {
  if (auto failure = ValidateOptions(o_)) return failure;
  if (auto failure = ResolveNodeBinary(o_, node_binary_, node_words_)) return failure;
  std::error_code ec;
  std::filesystem::create_directories(o_.out_dir + "/nodes", ec);
  if (ec) return RunFailure{2, "cannot create " + o_.out_dir + ": " + ec.message()};
  if (std::string error = etcd_.Connect(o_, out_); !error.empty()) {
    return RunFailure{kExitCouldNotRun, error};
  }
  if (std::string error = etcd_.StartProxies(o_.nodes, o_.faults); !error.empty()) {
    return RunFailure{kExitCouldNotRun, error};
  }
  return std::nullopt;
}

// True time 0, the run's keys in etcd, and every node's first incarnation.
std::optional<RunFailure> LiveRun::Start() {
  run_.start_mono = MonotonicNanos();
  run_.start_wall_ns = WallNanos();
  run_.epoch_wall_ns = run_.start_wall_ns;  // window k falls due at true time (k+1)*period
  const std::string run_id = "live-" + std::to_string(::getpid()) + "-" + std::to_string(run_.start_mono / kNanosPerMilli);
  lease_key_ = "leasesim/" + run_id + "/lease/settlement";
  ledger_prefix_ = "leasesim/" + run_id + "/ledger/";
  // TLS, credentials and permissions are checked once here, so a
  // misconfiguration is one clear error rather than nodes that never lead.
  if (std::string error = etcd_.CheckAccess(lease_key_, ledger_prefix_); !error.empty()) {
    return RunFailure{kExitCouldNotRun, "etcd access: " + error};
  }
  NodeLaunchSpec spec{.binary = node_binary_,
                      .binary_words = node_words_,
                      .out_dir = o_.out_dir,
                      .key = lease_key_,
                      .ledger_prefix = ledger_prefix_,
                      .epoch_wall_ns = run_.epoch_wall_ns,
                      .etcd_urls = etcd_.AllNodeUrls(),
                      .etcd_flags = etcd_.NodeSecurityFlags()};
  fleet_ = std::make_unique<NodeFleet>(std::move(spec), o_, err_);
  for (int n = 1; n <= o_.nodes; ++n) {
    if (fleet_->Launch(n) == 0) return RunFailure{kExitCouldNotRun, "could not start the nodes"};
  }
  out_ << "live: " << o_.nodes << " nodes, " << static_cast<double>(o_.duration_ms) / 1000.0 << " s, protocol "
       << ProtocolName(o_.protocol) << ", lease key " << lease_key_ << "\n";
  return std::nullopt;
}

// Injects the faults at their times until the run's end or an interrupt.
std::optional<RunFailure> LiveRun::RunFaults() {
  mechanisms_ = std::make_unique<RunMechanisms>(*fleet_, etcd_, lease_key_);
  const std::int64_t arm_timeout = std::max<std::int64_t>(3 * o_.period_ms, 3'000) * kNanosPerMilli;
  injector_ = std::make_unique<FaultInjector>(
      *mechanisms_,
      InjectorSettings{.start_mono = run_.start_mono, .pause_budget_ms = o_.pause_budget_ms,
                       .arm_timeout_ns = arm_timeout},
      out_);
  injector_->Schedule(o_.faults);
  const std::int64_t end_at = run_.start_mono + o_.duration_ms * kNanosPerMilli;
  for (std::int64_t now = MonotonicNanos(); now < end_at; now = MonotonicNanos()) {
    if (g_interrupt.load() != 0) break;
    injector_->Tick(now);
    // determinism-ok: live mode — the orchestrator polls in real time.
    std::this_thread::sleep_for(kTick);
  }
  return std::nullopt;
}

// Every node stopped at once (outcomes in flight stay unknown), the ledger
// read back from etcd, etcd's logs kept and the cluster stopped.
std::optional<RunFailure> LiveRun::Stop() {
  // The run ends when the last node is dead, not when the kill starts: a node
  // alive at the end believes it leads until its process is gone, and may
  // still send a write in between (the history closes its belief at the end).
  fleet_->KillAll();
  run_.end_mono = MonotonicNanos();
  if (const int signal_number = g_interrupt.load(); signal_number != 0) {
    return RunFailure{kExitCouldNotRun, "interrupted by signal " + std::to_string(signal_number) +
                                            "; nodes and etcd stopped"};
  }
  if (!etcd_.ReadLedger(ledger_prefix_, run_.applied)) {
    return RunFailure{kExitCouldNotRun, "could not read the ledger back from etcd"};
  }
  etcd_.SaveLogsAndStop(o_.out_dir);
  run_.journals = fleet_->journals();
  run_.kills = fleet_->kills();
  run_.faults = injector_->log();
  run_.takeouts = injector_->takeouts();
  return std::nullopt;
}

// The merged history judged, the files written, the verdict printed.
LiveResult LiveRun::Check() {
  const Judgement judgement = Judge(o_, run_);
  for (const std::string& warning : judgement.merged.warnings) err_ << "leasesim live: warning: " << warning << "\n";
  if (std::string errors = WriteRunFiles(o_, judgement); !errors.empty()) err_ << "leasesim live: " << errors;
  PrintVerdict(o_, judgement, out_);
  LiveResult result;
  result.verdict = judgement.verdict;
  result.figures = judgement.figures;
  result.exit_code = judgement.verdict.ok() ? 0 : 1;
  return result;
}

}  // namespace

LiveResult RunLive(const LiveOptions& options, std::ostream& out, std::ostream& err) {
  InterruptGuard interrupt_guard;
  LiveRun run(options, out, err);
  for (auto phase : {&LiveRun::Setup, &LiveRun::Start, &LiveRun::RunFaults, &LiveRun::Stop}) {
    if (const std::optional<RunFailure> failure = (run.*phase)()) {
      err << "leasesim live: " << failure->message << "\n";
      LiveResult result;
      result.exit_code = failure->exit_code;
      return result;
    }
  }
  return run.Check();
}

}  // namespace leasesim::live
