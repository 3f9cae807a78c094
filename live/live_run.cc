#include "live/live_run.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "backends/etcd/etcd_http.h"
#include "backends/etcd/etcd_ledger.h"
#include "backends/etcd/etcd_store.h"
#include "checker/checker.h"
#include "checker/history_figures.h"
#include "core/timing.h"
#include "live/history_merge.h"
#include "live/node_journal.h"
#include "live/processes.h"
#include "live/tcp_proxy.h"
#include "reports/summary_json.h"

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

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction previous_[3] {};
};

std::string Seconds(std::int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", static_cast<double>(ns) / 1e9);
  return text;
}

std::optional<std::int64_t> ParseSecondsAsMs(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(text, &used);
  } catch (...) {
    return std::nullopt;
  }
  if (used != text.size() || value < 0 || value > 1e6) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(value * 1000));
}

// One node process incarnation.
struct NodeProcess {
  int node = 0;
  int incarnation = 0;
  pid_t pid = -1;
  bool stopped = false;  // SIGSTOPped (by us or by itself)
  std::string journal;
};

// Owns the node processes: kills whatever still runs on destruction.
class NodeFleet {
 public:
  ~NodeFleet() { KillAll(); }
  std::vector<NodeProcess>& current() { return current_; }
  void KillAll() {
    for (NodeProcess& p : current_) {
      if (p.pid > 0) {
        ::kill(p.pid, SIGKILL);
        ::waitpid(p.pid, nullptr, 0);
        p.pid = -1;
      }
    }
  }

 private:
  std::vector<NodeProcess> current_;
};

struct Scheduled {
  std::int64_t at = 0;  // CLOCK_MONOTONIC
  std::function<void()> action;
};

std::string VariantList(const std::string& variant) { return variant.empty() ? "correct" : variant; }

}  // namespace

const char* FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kPause: return "pause";
    case FaultKind::kPauseMidBatch: return "pause-mid-batch";
    case FaultKind::kKill: return "kill";
    case FaultKind::kEtcdStop: return "etcd-stop";
    case FaultKind::kCut: return "cut";
  }
  return "?";
}

std::string ValidateVariant(const std::string& variant) {
  std::stringstream parts(variant);
  std::string part;
  int count = 0;
  while (std::getline(parts, part, ',')) {
    ++count;
    if (part != "correct" && part != "no-fencing" && part != "no-idempotency") {
      return "unknown variant \"" + part + "\" (known: correct, no-fencing, no-idempotency; combine with ',')";
    }
  }
  if (count == 0) return "empty variant";
  return {};
}

std::string ParseFaults(const std::string& text, int nodes, std::vector<LiveFault>& faults) {
  faults.clear();
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    const std::string what = "fault \"" + item + "\": ";
    LiveFault fault;
    fault.text = item;
    const std::size_t at = item.find('@');
    if (at == std::string::npos) return what + "missing @AT (e.g. pause:leader@6+8)";
    std::string head = item.substr(0, at);
    std::string when = item.substr(at + 1);
    std::string duration;
    const std::size_t plus = when.find('+');
    if (plus != std::string::npos) {
      duration = when.substr(plus + 1);
      when = when.substr(0, plus);
    }
    std::string kind = head;
    std::string target;
    const std::size_t colon = head.find(':');
    if (colon != std::string::npos) {
      kind = head.substr(0, colon);
      target = head.substr(colon + 1);
    }
    if (kind == "pause") fault.kind = FaultKind::kPause;
    else if (kind == "pause-mid-batch") fault.kind = FaultKind::kPauseMidBatch;
    else if (kind == "kill") fault.kind = FaultKind::kKill;
    else if (kind == "etcd-stop") fault.kind = FaultKind::kEtcdStop;
    else if (kind == "cut") fault.kind = FaultKind::kCut;
    else return what + "unknown kind \"" + kind + "\" (pause, pause-mid-batch, kill, etcd-stop, cut)";
    const int limit = fault.kind == FaultKind::kEtcdStop ? EtcdCluster::kMembers : nodes;
    if (target.empty() || target == "leader") {
      fault.leader = true;
    } else {
      try {
        std::size_t used = 0;
        fault.target = std::stoi(target, &used);
        if (used != target.size()) throw 0;
      } catch (...) {
        return what + "target must be \"leader\" or a number";
      }
      if (fault.target < 1 || fault.target > limit) {
        return what + "target " + target + " out of range 1.." + std::to_string(limit);
      }
    }
    const std::optional<std::int64_t> at_ms = ParseSecondsAsMs(when);
    if (!at_ms) return what + "AT must be seconds from the start (e.g. 6 or 6.5)";
    fault.at_ms = *at_ms;
    if (!duration.empty()) {
      const std::optional<std::int64_t> ms = ParseSecondsAsMs(duration);
      if (!ms) return what + "DURATION must be seconds (e.g. +8)";
      fault.duration_ms = *ms;
    } else if (fault.kind != FaultKind::kKill) {
      return what + "needs +DURATION (seconds)";
    }
    faults.push_back(fault);
  }
  std::stable_sort(faults.begin(), faults.end(),
                   [](const LiveFault& a, const LiveFault& b) { return a.at_ms < b.at_ms; });
  return {};
}

LiveResult RunLive(const LiveOptions& o, std::ostream& out, std::ostream& err) {
  LiveResult result;
  auto fail = [&](int code, const std::string& message) {
    err << "leasesim live: " << message << "\n";
    result.exit_code = code;
    return result;
  };
  // --- Validate -------------------------------------------------------------
  const core::TimingConfig timing{.lease_duration = o.lease_ms * kNanosPerMs,
                                  .renew_interval = o.renew_interval_ms * kNanosPerMs,
                                  .renew_deadline = o.renew_deadline_ms * kNanosPerMs,
                                  .retry = o.retry_ms * kNanosPerMs,
                                  .request_timeout = o.request_timeout_ms * kNanosPerMs,
                                  .drift_bound_ppm = o.drift_ppm,
                                  .safety_margin = o.margin_ms * kNanosPerMs,
                                  .pause_budget = o.pause_budget_ms * kNanosPerMs};
  for (const core::TimingError& error : core::ValidateTiming(timing)) {
    return fail(2, "timing: " + error.field + " " + error.rule);
  }
  if (o.nodes < 1 || o.nodes > 9) return fail(2, "--nodes must be in 1..9");
  if (o.duration_ms < 1'000) return fail(2, "--duration must be at least 1 s");
  if (std::string error = ValidateVariant(VariantList(o.variant)); !error.empty()) return fail(2, error);
  const bool own_cluster = o.etcd_urls.empty();
  for (const LiveFault& fault : o.faults) {
    if (fault.kind == FaultKind::kEtcdStop && !own_cluster) {
      return fail(2, "fault \"" + fault.text + "\": etcd-stop needs the run's own cluster (no --etcd)");
    }
    if (fault.at_ms >= o.duration_ms) {
      return fail(2, "fault \"" + fault.text + "\" starts after the run ends");
    }
  }
  std::string node_binary = o.node_binary;
  if (node_binary.empty()) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    node_binary = (self.parent_path() / "leasesim-live-node").string();
  }
  if (::access(node_binary.c_str(), X_OK) != 0) {
    return fail(kExitCouldNotRun, "node executable " + node_binary + " not found (build target leasesim-live-node)");
  }
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir + "/nodes", ec);
  if (ec) return fail(2, "cannot create " + o.out_dir + ": " + ec.message());

  InterruptGuard interrupt_guard;

  // --- etcd -----------------------------------------------------------------
  EtcdCluster cluster;  // stopped and removed on every way out of this function
  std::string urls = o.etcd_urls;
  if (own_cluster) {
    std::string error;
    if (!cluster.Start(o.etcd_binary, 20'000, error)) return fail(kExitCouldNotRun, "etcd: " + error);
    urls = cluster.ClientUrls();
    out << "live: etcd cluster of 3 at " << urls << " (data " << cluster.dir() << ")\n";
  } else {
    out << "live: etcd at " << urls << "\n";
  }
  etcd::EtcdHttp http({.endpoints = etcd::SplitEndpoints(urls)});
  etcd::EtcdStoreClient store(http);

  // --- Proxies for the nodes a cut fault may hit ------------------------------
  bool cut_leader = false;
  std::vector<bool> proxied(static_cast<std::size_t>(o.nodes + 1), false);
  for (const LiveFault& fault : o.faults) {
    if (fault.kind != FaultKind::kCut) continue;
    if (fault.leader) cut_leader = true;
    else proxied[static_cast<std::size_t>(fault.target)] = true;
  }
  ProxyHub proxies;
  std::vector<std::string> node_urls(static_cast<std::size_t>(o.nodes + 1), urls);
  for (int n = 1; n <= o.nodes; ++n) {
    if (!cut_leader && !proxied[static_cast<std::size_t>(n)]) continue;
    proxied[static_cast<std::size_t>(n)] = true;
    std::string list;
    for (const std::string& url : etcd::SplitEndpoints(urls)) {
      const int port = std::stoi(url.substr(url.rfind(':') + 1));
      const int local = proxies.Add(n, port);
      if (local == 0) return fail(kExitCouldNotRun, "cannot start the TCP proxy");
      list += (list.empty() ? "" : ",") + std::string("http://127.0.0.1:") + std::to_string(local);
    }
    node_urls[static_cast<std::size_t>(n)] = list;
  }
  proxies.Start();

  // --- The run --------------------------------------------------------------
  const std::int64_t start = MonotonicNanos();
  // determinism-ok: live mode — the schedule's epoch is a real wall-clock instant.
  const std::int64_t start_wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count();
  const std::int64_t period = o.period_ms * kNanosPerMs;
  // Window k falls due at true time (k+1)*period (the checker's default).
  const std::int64_t epoch_wall = start_wall;
  const std::string run_id = "live-" + std::to_string(::getpid()) + "-" + std::to_string(start / 1'000'000);
  const std::string key = "leasesim/" + run_id + "/lease/settlement";
  const std::string ledger_prefix = "leasesim/" + run_id + "/ledger/";

  NodeFleet fleet;
  std::vector<JournalFile> journals;
  std::vector<KillRecord> kills;
  std::vector<checker::FaultRecord> fault_log;
  std::vector<Scheduled> scheduled;
  std::vector<int> incarnations(static_cast<std::size_t>(o.nodes + 1), 0);
  fleet.current().resize(static_cast<std::size_t>(o.nodes + 1));
  auto rel = [&](std::int64_t mono) { return mono - start; };

  auto launch = [&](int n) -> bool {
    const int incarnation = ++incarnations[static_cast<std::size_t>(n)];
    const std::string base = o.out_dir + "/nodes/n" + std::to_string(n) + "." + std::to_string(incarnation);
    std::filesystem::remove(base + ".jsonl", ec);
    std::vector<std::string> argv = {node_binary,
                                     "--node", std::to_string(n),
                                     "--incarnation", std::to_string(incarnation),
                                     "--etcd", node_urls[static_cast<std::size_t>(n)],
                                     "--key", key,
                                     "--ledger-prefix", ledger_prefix,
                                     "--journal", base + ".jsonl",
                                     "--epoch-wall-ns", std::to_string(epoch_wall),
                                     "--variant", VariantList(o.variant),
                                     "--lease-ms", std::to_string(o.lease_ms),
                                     "--renew-interval-ms", std::to_string(o.renew_interval_ms),
                                     "--renew-deadline-ms", std::to_string(o.renew_deadline_ms),
                                     "--retry-ms", std::to_string(o.retry_ms),
                                     "--request-timeout-ms", std::to_string(o.request_timeout_ms),
                                     "--drift-ppm", std::to_string(o.drift_ppm),
                                     "--margin-ms", std::to_string(o.margin_ms),
                                     "--pause-budget-ms", std::to_string(o.pause_budget_ms),
                                     "--period-ms", std::to_string(o.period_ms),
                                     "--poll-ms", std::to_string(o.poll_ms),
                                     "--batch-items", std::to_string(o.batch_items)};
    std::string error;
    const pid_t pid = Launch(argv, base + ".log", error);
    if (pid < 0) {
      err << "leasesim live: cannot start node " << n << ": " << error << "\n";
      return false;
    }
    fleet.current()[static_cast<std::size_t>(n)] = NodeProcess{n, incarnation, pid, false, base + ".jsonl"};
    journals.push_back(JournalFile{n, incarnation, base + ".jsonl"});
    return true;
  };
  for (int n = 1; n <= o.nodes; ++n) {
    if (!launch(n)) return fail(kExitCouldNotRun, "could not start the nodes");
  }
  out << "live: " << o.nodes << " nodes, " << static_cast<double>(o.duration_ms) / 1000.0 << " s, variant " << VariantList(o.variant)
      << ", lease key " << key << "\n";

  // The node holding the lease now, according to etcd (0 if none).
  auto lease_holder = [&]() -> int {
    const core::StoreResult read = store.Read(key, 500 * kNanosPerMs);
    if (read.status != core::StoreStatus::kOk || !read.current.found) return 0;
    const std::string& holder = read.current.record.holder;  // "n<i>#<k>"
    const std::size_t hash = holder.find('#');
    if (holder.size() < 2 || holder[0] != 'n' || hash == std::string::npos) return 0;
    const int n = std::atoi(holder.substr(1, hash - 1).c_str());
    const int k = std::atoi(holder.substr(hash + 1).c_str());
    if (n < 1 || n > o.nodes) return 0;
    const NodeProcess& p = fleet.current()[static_cast<std::size_t>(n)];
    return (p.pid > 0 && p.incarnation == k) ? n : 0;
  };

  // Failover measurements: a fault that took the lease holder out.
  struct Takeout {
    std::int64_t at = 0;  // true time
    std::string victim;
    std::string kind;
  };
  std::vector<Takeout> takeouts;

  struct PendingSelfStop {
    int node = 0;
    pid_t pid = -1;
    std::int64_t deadline = 0;
    LiveFault fault;
  };
  std::vector<PendingSelfStop> self_stops;

  auto record_fault = [&](checker::FaultRecord record, const std::string& line) {
    out << "live: " << Seconds(record.start_ns) << " " << line << "\n";
    fault_log.push_back(std::move(record));
  };

  auto inject = [&](const LiveFault& fault) {
    const std::int64_t now = MonotonicNanos();
    checker::FaultRecord record;
    record.start_ns = rel(now);
    record.end_ns = rel(now);
    if (fault.kind == FaultKind::kEtcdStop) {
      const int member = fault.leader ? cluster.Leader() : fault.target - 1;
      record.kind = "store_member_crash";
      if (member < 0 || !cluster.running(member)) {
        record.description = "skipped: " + fault.text + " (no such running member)";
        record_fault(record, record.description);
        return;
      }
      cluster.Kill(member);
      record.end_ns = rel(now + fault.duration_ms * kNanosPerMs);
      record.description = "etcd member m" + std::to_string(member + 1) + (fault.leader ? " (the etcd leader)" : "") +
                           " killed for " + Seconds(fault.duration_ms * kNanosPerMs);
      record_fault(record, record.description);
      scheduled.push_back({now + fault.duration_ms * kNanosPerMs, [&, member] {
                             std::string error;
                             if (!cluster.Restart(member, error)) err << "leasesim live: etcd restart: " << error << "\n";
                             out << "live: " << Seconds(rel(MonotonicNanos())) << " etcd member m" << member + 1
                                 << " restarted\n";
                           }});
      return;
    }
    const int n = fault.leader ? lease_holder() : fault.target;
    NodeProcess* p = n > 0 ? &fleet.current()[static_cast<std::size_t>(n)] : nullptr;
    if (p == nullptr || p->pid <= 0) {
      record.kind = FaultKindName(fault.kind);
      record.description = "skipped: " + fault.text + (fault.leader ? " (no node held the lease)" : " (node not running)");
      record_fault(record, record.description);
      return;
    }
    record.nodes = {n};
    const std::string who = "n" + std::to_string(n) + "#" + std::to_string(p->incarnation) +
                            (fault.leader ? " (the lease holder)" : "");
    const bool holder = n == lease_holder();
    switch (fault.kind) {
      case FaultKind::kPause: {
        ::kill(p->pid, SIGSTOP);
        p->stopped = true;
        record.kind = "pause";
        record.end_ns = rel(now + fault.duration_ms * kNanosPerMs);
        record.within_assumptions = fault.duration_ms <= o.pause_budget_ms;
        record.description = "SIGSTOP " + who + " for " + Seconds(fault.duration_ms * kNanosPerMs);
        if (holder) takeouts.push_back({record.start_ns, who.substr(0, who.find(' ')), "pause"});
        const pid_t pid = p->pid;
        scheduled.push_back({now + fault.duration_ms * kNanosPerMs, [&, n, pid] {
                               NodeProcess& q = fleet.current()[static_cast<std::size_t>(n)];
                               if (q.pid == pid) {
                                 ::kill(pid, SIGCONT);
                                 q.stopped = false;
                               }
                             }});
        record_fault(record, record.description);
        break;
      }
      case FaultKind::kPauseMidBatch:
        ::kill(p->pid, SIGUSR1);
        self_stops.push_back({n, p->pid, now + std::max<std::int64_t>(3 * period, 3'000 * kNanosPerMs), fault});
        out << "live: " << Seconds(record.start_ns) << " armed " << who << " to stop before its next ledger write\n";
        break;
      case FaultKind::kKill: {
        ::kill(p->pid, SIGKILL);
        ::waitpid(p->pid, nullptr, 0);
        kills.push_back({n, p->incarnation, MonotonicNanos()});
        p->pid = -1;
        record.kind = "crash";
        record.description = "SIGKILL " + who;
        if (holder) takeouts.push_back({record.start_ns, who.substr(0, who.find(' ')), "kill"});
        record_fault(record, record.description +
                                 (fault.duration_ms > 0 ? ", restart in " + Seconds(fault.duration_ms * kNanosPerMs)
                                                        : std::string()));
        if (fault.duration_ms > 0) {
          scheduled.push_back({now + fault.duration_ms * kNanosPerMs, [&, n] {
                                 checker::FaultRecord restart;
                                 restart.kind = "restart";
                                 restart.nodes = {n};
                                 restart.start_ns = restart.end_ns = rel(MonotonicNanos());
                                 launch(n);
                                 restart.description = "restarted n" + std::to_string(n) + " as n" +
                                                       std::to_string(n) + "#" +
                                                       std::to_string(incarnations[static_cast<std::size_t>(n)]);
                                 record_fault(restart, restart.description);
                               }});
        }
        break;
      }
      case FaultKind::kCut: {
        if (!proxied[static_cast<std::size_t>(n)]) {
          record.kind = "partition";
          record.description = "skipped: " + fault.text + " (node not behind the proxy)";
          record_fault(record, record.description);
          return;
        }
        proxies.SetCut(n, true);
        record.kind = "partition";
        record.end_ns = rel(now + fault.duration_ms * kNanosPerMs);
        record.description = "cut " + who + " off etcd for " + Seconds(fault.duration_ms * kNanosPerMs);
        if (holder) takeouts.push_back({record.start_ns, who.substr(0, who.find(' ')), "cut"});
        scheduled.push_back({now + fault.duration_ms * kNanosPerMs, [&, n] { proxies.SetCut(n, false); }});
        record_fault(record, record.description);
        break;
      }
      case FaultKind::kEtcdStop:
        break;
    }
  };

  for (const LiveFault& fault : o.faults) {
    scheduled.push_back({start + fault.at_ms * kNanosPerMs, [&, fault] { inject(fault); }});
  }

  const std::int64_t end_at = start + o.duration_ms * kNanosPerMs;
  bool interrupted = false;
  while (MonotonicNanos() < end_at) {
    if (g_interrupt.load() != 0) {
      interrupted = true;
      break;
    }
    const std::int64_t now = MonotonicNanos();
    // Run what is due, in time order (actions may schedule more).
    for (;;) {
      auto due = std::min_element(scheduled.begin(), scheduled.end(),
                                  [](const Scheduled& a, const Scheduled& b) { return a.at < b.at; });
      if (due == scheduled.end() || due->at > now) break;
      std::function<void()> action = std::move(due->action);
      scheduled.erase(due);
      action();
    }
    // Nodes: stopped themselves (mid-batch pause), or died on their own.
    for (int n = 1; n <= o.nodes; ++n) {
      NodeProcess& p = fleet.current()[static_cast<std::size_t>(n)];
      if (p.pid <= 0) continue;
      int status = 0;
      const pid_t got = ::waitpid(p.pid, &status, WNOHANG | WUNTRACED);
      if (got != p.pid) continue;
      if (WIFSTOPPED(status)) {
        auto it = std::find_if(self_stops.begin(), self_stops.end(),
                               [&](const PendingSelfStop& s) { return s.pid == p.pid; });
        if (it == self_stops.end() || p.stopped) continue;
        p.stopped = true;
        const std::int64_t stopped_at = MonotonicNanos();
        checker::FaultRecord record;
        record.kind = "pause";
        record.nodes = {n};
        record.start_ns = rel(stopped_at);
        record.end_ns = rel(stopped_at + it->fault.duration_ms * kNanosPerMs);
        record.within_assumptions = it->fault.duration_ms <= o.pause_budget_ms;
        const std::string who = "n" + std::to_string(n) + "#" + std::to_string(p.incarnation);
        record.description = who + " stopped itself before a ledger write; held for " +
                             Seconds(it->fault.duration_ms * kNanosPerMs);
        takeouts.push_back({record.start_ns, who, "pause-mid-batch"});
        const pid_t pid = p.pid;
        scheduled.push_back({stopped_at + it->fault.duration_ms * kNanosPerMs, [&, n, pid] {
                               NodeProcess& q = fleet.current()[static_cast<std::size_t>(n)];
                               if (q.pid == pid) {
                                 ::kill(pid, SIGCONT);
                                 q.stopped = false;
                               }
                             }});
        self_stops.erase(it);
        record_fault(record, record.description);
      } else if (WIFEXITED(status) || WIFSIGNALED(status)) {
        err << "leasesim live: node n" << n << "#" << p.incarnation << " exited on its own (see "
            << o.out_dir << "/nodes/n" << n << "." << p.incarnation << ".log)\n";
        kills.push_back({n, p.incarnation, MonotonicNanos()});
        p.pid = -1;
      }
    }
    // Armed self-stops that never happened (no ledger write in time): disarm.
    for (auto it = self_stops.begin(); it != self_stops.end();) {
      if (MonotonicNanos() < it->deadline) {
        ++it;
        continue;
      }
      NodeProcess& p = fleet.current()[static_cast<std::size_t>(it->node)];
      if (p.pid == it->pid) ::kill(p.pid, SIGUSR2);
      checker::FaultRecord record;
      record.kind = "pause";
      record.nodes = {it->node};
      record.start_ns = record.end_ns = rel(MonotonicNanos());
      record.description = "skipped: " + it->fault.text + " (no ledger write while armed)";
      record_fault(record, record.description);
      it = self_stops.erase(it);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // --- The end: stop every node at once; outcomes in flight stay unknown. ---
  const std::int64_t end = MonotonicNanos();
  fleet.KillAll();
  if (interrupted) {
    return fail(kExitCouldNotRun, "interrupted by signal " + std::to_string(g_interrupt.load()) +
                                      "; nodes and etcd stopped");
  }
  std::vector<etcd::AppliedBatch> applied;
  {
    etcd::EtcdLedgerClient ledger(http, {.prefix = ledger_prefix, .writer = "orchestrator"});
    bool listed = false;
    for (int attempt = 0; attempt < 20 && !listed; ++attempt) {
      listed = ledger.ListApplied(2'000 * kNanosPerMs, applied);
      if (!listed) std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    if (!listed) return fail(kExitCouldNotRun, "could not read the ledger back from etcd");
  }
  if (own_cluster) {
    for (int m = 1; m <= EtcdCluster::kMembers; ++m) {
      std::filesystem::copy_file(cluster.dir() + "/m" + std::to_string(m) + ".log",
                                 o.out_dir + "/etcd-m" + std::to_string(m) + ".log",
                                 std::filesystem::copy_options::overwrite_existing, ec);
    }
    cluster.Shutdown();
  }

  // --- Merge, check, report --------------------------------------------------
  MergeInput merge;
  merge.start_mono = start;
  merge.end_mono = end;
  merge.node_count = o.nodes;
  merge.journals = journals;
  merge.kills = kills;
  merge.faults = fault_log;
  merge.applied = applied;
  merge.assumptions.drift_bound_ppm = o.drift_ppm;
  merge.assumptions.pause_budget_ns = timing.pause_budget;
  merge.assumptions.lease_duration_ns = timing.lease_duration;
  merge.assumptions.renew_interval_ns = timing.renew_interval;
  merge.assumptions.retry_ns = timing.retry;
  merge.assumptions.settlement_period_ns = period;
  // etcd's own leader election (election timeout 1 s by default) comes on
  // top of the protocol's recovery bound after an etcd member is stopped.
  merge.assumptions.recovery_bound_ns = core::RecoveryBound(timing) + 3'000 * kNanosPerMs;
  // Windows due early enough that a healed system must have settled them.
  std::int64_t last_heal = 0;
  for (const checker::FaultRecord& f : fault_log) last_heal = std::max(last_heal, f.end_ns);
  std::int64_t cutoff = (end - start) - 2 * period - 2'000 * kNanosPerMs;
  if (last_heal + merge.assumptions.recovery_bound_ns > cutoff) cutoff = std::min(cutoff, last_heal);
  for (std::int64_t k = 0;; ++k) {
    const std::int64_t due_true = (epoch_wall + (k + 1) * period - start_wall);
    if (due_true > cutoff) break;
    merge.due_windows.push_back(k);
  }
  MergeOutput merged = MergeJournals(merge);
  for (const std::string& warning : merged.warnings) err << "leasesim live: warning: " << warning << "\n";
  const checker::History& history = merged.history;
  result.verdict = checker::CheckHistory(history);

  // Figures.
  auto& figures = result.figures;
  figures = checker::HistoryFigures(history);
  figures["due_windows"] = static_cast<std::int64_t>(history.due_windows.size());
  figures["renewals"] = static_cast<std::int64_t>(merged.renewal_latencies_ns.size());
  figures["renewal_latency_p50_us"] = Quantile(merged.renewal_latencies_ns, 0.50) / 1000;
  figures["renewal_latency_p99_us"] = Quantile(merged.renewal_latencies_ns, 0.99) / 1000;
  figures["renewal_latency_max_us"] = Quantile(merged.renewal_latencies_ns, 1.0) / 1000;
  figures["faults_injected"] = static_cast<std::int64_t>(fault_log.size());
  std::vector<std::int64_t> failovers;
  for (const Takeout& t : takeouts) {
    for (const checker::LeadershipBelief& b : history.beliefs) {
      if (b.from_ns > t.at && b.holder != t.victim) {
        failovers.push_back(b.from_ns - t.at);
        out << "live: failover after " << t.kind << " of " << t.victim << ": " << b.holder << " acquired term "
            << b.term << " after " << Seconds(b.from_ns - t.at) << "\n";
        break;
      }
    }
  }
  if (!failovers.empty()) {
    figures["failovers"] = static_cast<std::int64_t>(failovers.size());
    figures["failover_ms_max"] = *std::max_element(failovers.begin(), failovers.end()) / kNanosPerMs;
    figures["failover_ms_min"] = *std::min_element(failovers.begin(), failovers.end()) / kNanosPerMs;
  }

  // history.json: the merged history, for reading and re-checking.
  {
    nlohmann::ordered_json json;
    json["format"] = "leasesim-live-history";
    json["version"] = 1;
    json["end_ns"] = history.end_ns;
    json["node_count"] = history.node_count;
    for (const checker::LeadershipBelief& b : history.beliefs) {
      json["beliefs"].push_back({{"node", b.node}, {"holder", b.holder}, {"term", b.term}, {"from_ns", b.from_ns},
                                 {"until_ns", b.until_ns}, {"end_reason", b.end_reason}});
    }
    for (const checker::LedgerWrite& w : history.ledger_writes) {
      const char* results[] = {"applied", "rejected_stale", "duplicate", "lost"};
      json["ledger_writes"].push_back({{"id", w.id}, {"node", w.node}, {"holder", w.holder}, {"token", w.token},
                                       {"key", w.idempotency_key}, {"window", w.window}, {"sent_ns", w.sent_ns},
                                       {"arrived_ns", w.arrived_ns}, {"result", results[static_cast<int>(w.result)]},
                                       {"lease_valid_at_send", w.lease_valid_at_send}});
    }
    for (const checker::FaultRecord& f : history.faults) {
      json["faults"].push_back({{"kind", f.kind}, {"nodes", f.nodes}, {"start_ns", f.start_ns},
                                {"end_ns", f.end_ns}, {"within_assumptions", f.within_assumptions},
                                {"description", f.description}});
    }
    json["store_ops"] = history.store_ops.size();
    json["due_windows"] = history.due_windows;
    std::ofstream(o.out_dir + "/history.json") << json.dump(1) << "\n";
  }
  reports::SweepSummary sweep;
  sweep.scenario_file = "live";
  sweep.seeds = "live";
  reports::RunSummary run;
  run.scenario = "live-" + VariantList(o.variant);
  run.ok = result.verdict.ok();
  for (const checker::Violation& v : result.verdict.violations) {
    run.violations.push_back({v.kind, v.message, v.at_ns, false});
  }
  run.notes = result.verdict.notes;
  run.figures = figures;
  run.replay_command = o.command_line;  // a live run is not replayable; this reruns it
  sweep.runs.push_back(run);
  if (std::string error = reports::WriteFileAtomically(o.out_dir + "/summary.json", reports::SummaryJson(sweep));
      !error.empty()) {
    err << "leasesim live: " << error << "\n";
  }

  out << (result.verdict.ok() ? "PASS" : "FAIL") << " live " << VariantList(o.variant) << ": "
      << result.verdict.violations.size() << " violation(s); " << figures["settlements_applied"]
      << " batches applied, " << figures["leader_terms"] << " terms, renewal p50 "
      << static_cast<double>(figures["renewal_latency_p50_us"]) / 1000.0 << " ms p99 " << static_cast<double>(figures["renewal_latency_p99_us"]) / 1000.0
      << " ms";
  if (figures.contains("failover_ms_max")) out << ", failover max " << figures["failover_ms_max"] << " ms";
  out << "\n";
  for (const checker::Violation& v : result.verdict.violations) out << "  " << v.kind << ": " << v.message << "\n";
  for (const std::string& note : result.verdict.notes) out << "  note: " << note << "\n";
  out << "  summary: " << o.out_dir << "/summary.json, history: " << o.out_dir << "/history.json\n";
  result.exit_code = result.verdict.ok() ? 0 : 1;
  return result;
}

}  // namespace leasesim::live
