#include "live/node_fleet.h"

#include <signal.h>
#include <sys/wait.h>

#include <cassert>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "live/live_config.h"
#include "live/node_journal.h"
#include "live/processes.h"

namespace leasesim::live {

std::vector<std::string> NodeArgv(const NodeLaunchSpec& spec, const LiveOptions& o, int node, int incarnation) {
  const std::string base = spec.out_dir + "/nodes/n" + std::to_string(node) + "." + std::to_string(incarnation);
  std::vector<std::string> argv = {spec.binary};
  argv.insert(argv.end(), spec.binary_words.begin(), spec.binary_words.end());
  argv.insert(argv.end(), {
          "--node", std::to_string(node),
          "--incarnation", std::to_string(incarnation),
          "--etcd", spec.etcd_urls.at(static_cast<std::size_t>(node)),
          "--key", spec.key,
          "--ledger-prefix", spec.ledger_prefix,
          "--journal", base + ".jsonl",
          "--epoch-wall-ns", std::to_string(spec.epoch_wall_ns),
          "--protocol", ProtocolName(o.protocol),
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
          "--batch-items", std::to_string(o.batch_items)});
  argv.insert(argv.end(), spec.etcd_flags.begin(), spec.etcd_flags.end());
  return argv;
}

NodeFleet::NodeFleet(NodeLaunchSpec spec, const LiveOptions& options, std::ostream& err)
    : spec_(std::move(spec)), options_(options), err_(err), nodes_(static_cast<std::size_t>(options.nodes + 1)) {}

NodeFleet::~NodeFleet() { KillAll(); }

NodeFleet::Process& NodeFleet::at(int node) {
  assert(node >= 1);
  assert(node < static_cast<int>(nodes_.size()));
  return nodes_[static_cast<std::size_t>(node)];
}

const NodeFleet::Process& NodeFleet::at(int node) const {
  assert(node >= 1);
  assert(node < static_cast<int>(nodes_.size()));
  return nodes_[static_cast<std::size_t>(node)];
}

std::string NodeFleet::BasePath(int node, int incarnation) const {
  return spec_.out_dir + "/nodes/n" + std::to_string(node) + "." + std::to_string(incarnation);
}

int NodeFleet::Launch(int node) {
  Process& p = at(node);
  assert(p.pid <= 0);  // one process per node at a time
  const int incarnation = p.incarnation + 1;
  const std::string base = BasePath(node, incarnation);
  std::error_code ignored;
  std::filesystem::remove(base + ".jsonl", ignored);
  std::string error;
  const pid_t pid = live::Launch(NodeArgv(spec_, options_, node, incarnation), base + ".log", error);
  if (pid < 0) {
    err_ << "leasesim live: cannot start node " << node << ": " << error << "\n";
    return 0;
  }
  p = Process{incarnation, pid, false, false};
  journals_.push_back(JournalFile{node, incarnation, base + ".jsonl"});
  return incarnation;
}

int NodeFleet::RunningIncarnation(int node) const {
  if (node < 1 || node >= static_cast<int>(nodes_.size())) return 0;
  const Process& p = at(node);
  return p.pid > 0 ? p.incarnation : 0;
}

void NodeFleet::Signal(int node, int signal, int incarnation) {
  const Process& p = at(node);
  if (p.pid <= 0 || (incarnation != 0 && p.incarnation != incarnation)) return;
  ::kill(p.pid, signal);
}

void NodeFleet::Stop(int node) {
  Process& p = at(node);
  if (p.pid <= 0) return;
  ::kill(p.pid, SIGSTOP);
  p.stopped = true;
}

void NodeFleet::ArmStop(int node) {
  Process& p = at(node);
  if (p.pid <= 0) return;
  ::kill(p.pid, SIGUSR1);
  p.armed = true;
}

void NodeFleet::DisarmStop(int node, int incarnation) {
  Process& p = at(node);
  if (p.pid <= 0 || p.incarnation != incarnation) return;
  ::kill(p.pid, SIGUSR2);
  p.armed = false;
}

void NodeFleet::Continue(int node, int incarnation) {
  Process& p = at(node);
  if (p.pid <= 0 || p.incarnation != incarnation) return;
  ::kill(p.pid, SIGCONT);
  p.stopped = false;
}

void NodeFleet::Kill(int node) {
  Process& p = at(node);
  if (p.pid <= 0) return;
  ::kill(p.pid, SIGKILL);
  ::waitpid(p.pid, nullptr, 0);
  kills_.push_back({node, p.incarnation, MonotonicNanos()});
  p.pid = -1;
}

// Every process is signalled before any is waited for, so they stop within
// a scheduler tick of each other rather than one reap apart.
void NodeFleet::KillAll() {
  for (Process& p : nodes_) {
    if (p.pid > 0) ::kill(p.pid, SIGKILL);
  }
  for (Process& p : nodes_) {
    if (p.pid <= 0) continue;
    ::waitpid(p.pid, nullptr, 0);
    p.pid = -1;
  }
}

std::vector<Incarnation> NodeFleet::Reap() {
  std::vector<Incarnation> self_stopped;
  for (int n = 1; n < static_cast<int>(nodes_.size()); ++n) {
    Process& p = at(n);
    if (p.pid <= 0) continue;
    int status = 0;
    if (::waitpid(p.pid, &status, WNOHANG | WUNTRACED) != p.pid) continue;
    if (WIFSTOPPED(status)) {
      // Only an armed node stops itself; any other stop is our own SIGSTOP.
      if (!p.armed || p.stopped) continue;
      p.armed = false;
      p.stopped = true;
      self_stopped.push_back({n, p.incarnation});
    } else if (WIFEXITED(status) || WIFSIGNALED(status)) {
      err_ << "leasesim live: node n" << n << "#" << p.incarnation << " exited on its own (see "
           << BasePath(n, p.incarnation) << ".log)\n";
      kills_.push_back({n, p.incarnation, MonotonicNanos()});
      p.pid = -1;
    }
  }
  return self_stopped;
}

int NodeFleet::NodeOfHolder(const std::string& holder) const {
  const std::size_t hash = holder.find('#');
  if (holder.size() < 2 || holder[0] != 'n' || hash == std::string::npos) return 0;
  const int n = std::atoi(holder.substr(1, hash - 1).c_str());
  const int k = std::atoi(holder.substr(hash + 1).c_str());
  if (n < 1 || n >= static_cast<int>(nodes_.size())) return 0;
  return RunningIncarnation(n) == k ? n : 0;
}

}  // namespace leasesim::live
